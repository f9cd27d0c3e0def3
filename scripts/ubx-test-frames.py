#!/usr/bin/env python3
"""Independent truth for Tests/UBXTests: UBX frames built by pyubx2 (an independent Python UBX implementation)
from known field values. Prints `NAME hex` lines; the Swift test decodes each frame and compares the fields with
the same values. Run with the test venv: `make ubx-test-venv` then `.build/venv/bin/python3 scripts/ubx-test-frames.py`."""
import math

from pyubx2 import UBXMessage, GET

frames = {
    "NAV-PVT": UBXMessage("NAV", "NAV-PVT", GET, iTOW=123456000, year=2024, month=6, day=1, hour=12, min=34, second=56,
                          validDate=1, validTime=1, fullyResolved=1, tAcc=25, nano=-1200, fixType=3, gnssFixOk=1,
                          diffSoln=1, carrSoln=2, numSV=17, lon=-122.1234567, lat=37.3456789, height=12345, hMSL=45678,
                          hAcc=1234, vAcc=2345, velN=-100, velE=200, velD=-30, gSpeed=224, headMot=117.5, sAcc=56,
                          headAcc=3.45678, pDOP=1.23),
    "NAV-PVAT": UBXMessage("NAV", "NAV-PVAT", GET, iTOW=234567000, version=0, validDate=1, validTime=1,
                           fullyResolved=1, validMag=1, year=2026, month=4, day=20, hour=13, min=48, sec=55, tAcc=22,
                           nano=85767, fixType=4, gnssFixOK=1, diffSoln=1, vehRollValid=1, vehPitchValid=1,
                           vehHeadingValid=1, carrSoln=1, numSV=32, lon=-0.5732272, lat=51.2623256, height=82729,
                           hMSL=36649, hAcc=803, vAcc=651, velN=-321, velE=68, velD=-6, gSpeed=328, sAcc=158,
                           vehRoll=0.04165, vehPitch=-0.23743, vehHeading=168.82255, motHeading=168.81256,
                           accRoll=0.34, accPitch=0.35, accHeading=0.61, magDec=-1.25, magAcc=0.5,
                           errEllipseOrient=171.83, errEllipseMajor=1698, errEllipseMinor=990),
    # A sensor-fusion module's epoch 300000: NAV-PVT with headVehValid, NAV-ATT, HNR-PVT (the vehicle heading each).
    "NAV-PVT-HEADVEH": UBXMessage("NAV", "NAV-PVT", GET, iTOW=300000, year=2024, month=1, day=30, hour=15, min=31,
                                  second=52, validDate=1, validTime=1, fullyResolved=1, fixType=4, gnssFixOk=1,
                                  headVehValid=1, numSV=12, lon=9.3117328, lat=48.7409605, height=311221,
                                  hMSL=263610, hAcc=5099, vAcc=11285, gSpeed=1356, headMot=340.12376, sAcc=283,
                                  headAcc=4.02842, pDOP=1.5, headVeh=340.25, magDec=2.5, magAcc=0.3),
    "NAV-ATT": UBXMessage("NAV", "NAV-ATT", GET, iTOW=300000, version=0, roll=-1.23456, pitch=2.5, heading=338.75,
                          accRoll=0.5, accPitch=0.6, accHeading=1.25),
    "HNR-PVT": UBXMessage("HNR", "HNR-PVT", GET, iTOW=300100, year=2024, month=1, day=30, hour=15, min=31, second=52,
                          validDate=1, validTime=1, nano=100000000, gpsFix=4, GPSfixOK=1, headVehValid=1,
                          lon=9.3117319, lat=48.7409602, height=311297, hMSL=263686, gSpeed=765, speed=770,
                          headMot=251.537, headVeh=251.75, hAcc=5099, vAcc=11285, sAcc=283, headAcc=4.849),
    "NAV-SAT": UBXMessage("NAV", "NAV-SAT", GET, iTOW=1000, version=1, numSvs=2, gnssId_01=0, svId_01=5, cno_01=38,
                          elev_01=19, azim_01=284, prRes_01=1.5, qualityInd_01=7, svUsed_01=1, health_01=1,
                          gnssId_02=6, svId_02=3, cno_02=0, elev_02=-91, azim_02=0, qualityInd_02=1, health_02=1),
    "NAV-DOP": UBXMessage("NAV", "NAV-DOP", GET, iTOW=2000, gDOP=1.64, pDOP=1.46, tDOP=0.73, vDOP=1.28, hDOP=0.71,
                          nDOP=0.51, eDOP=0.5),
    "NAV-STATUS": UBXMessage("NAV", "NAV-STATUS", GET, iTOW=3000, gpsFix=3, gpsFixOk=1, diffSoln=1, wknSet=1, towSet=1,
                             spoofDetState=2, carrSoln=1, ttff=31234, msss=987654),
    "NAV-TIMEGPS": UBXMessage("NAV", "NAV-TIMEGPS", GET, iTOW=494575000, fTOW=-112313, week=1977, leapS=18,
                              towValid=1, weekValid=1, leapSValid=1, tAcc=17),
    "NAV-TIMEUTC": UBXMessage("NAV", "NAV-TIMEUTC", GET, iTOW=4000, tAcc=21, nano=250, year=2025, month=12, day=31,
                              hour=23, min=59, sec=58, validTOW=1, validWKN=1, validUTC=1),
    "NAV-SOL": UBXMessage("NAV", "NAV-SOL", GET, iTOW=5000, fTOW=-868, week=1459, gpsFix=3, gpsfixOK=1, diffSoln=0,
                          wknSet=1, towSet=1, ecefX=30544931, ecefY=-596389099, ecefZ=223305173, pAcc=280, ecefVX=1,
                          ecefVY=-2, ecefVZ=3, sAcc=17, pDOP=2.5, numSV=7),
    "NAV-POSLLH": UBXMessage("NAV", "NAV-POSLLH", GET, iTOW=6000, lon=5.807177490, lat=45.218541146, height=278879,
                             hMSL=230231, hAcc=3791, vAcc=5123),
    "NAV-VELNED": UBXMessage("NAV", "NAV-VELNED", GET, iTOW=7000, velN=-12, velE=34, velD=-5, speed=37, gSpeed=36,
                             heading=158.924, sAcc=100, cAcc=12.5),
    "NAV-HPPOSLLH": UBXMessage("NAV", "NAV-HPPOSLLH", GET, version=0, iTOW=8000, lon=170.5001248, lat=-45.8775915,
                               height=100123, hMSL=90456, lonHp=0.000000033, latHp=-0.000000044, heightHp=0.7,
                               hMSLHp=-0.3, hAcc=141.5, vAcc=200.2),
    "NAV-RELPOSNED": UBXMessage("NAV", "NAV-RELPOSNED", GET, version=1, refStationId=7, iTOW=9000, relPosN=120,
                                relPosE=-45, relPosD=3, relPosLength=128, relPosHeading=339.45, relPosHPN=0.0012,
                                relPosHPE=0, relPosHPD=0, relPosHPLength=0, accN=0.0123, accE=0.0234, accD=0.0345,
                                accLength=0.0111, accHeading=0.5, gnssFixOK=1, diffSoln=1, relPosValid=1, carrSoln=2,
                                relPosHeadingValid=1),
    "NAV-EOE": UBXMessage("NAV", "NAV-EOE", GET, iTOW=9000),
    "MON-HW": UBXMessage("MON", "MON-HW", GET, noisePerMS=87, agcCnt=5120, aStatus=4, aPower=1, jammingState=2,
                         jamInd=120),
    "TIM-TP": UBXMessage("TIM", "TIM-TP", GET, towMS=83485000, towSubMS=0, qErr=-1234, week=1459, timeBase=1, utc=1),
}


def ecef(lat, lon, h):
    """WGS 84 geodetic → ECEF (m), the closed forward form: independent of the decoder's inverse."""
    a, f = 6378137.0, 1 / 298.257223563
    e2 = f * (2 - f)
    p, l = math.radians(lat), math.radians(lon)
    n = a / math.sqrt(1 - e2 * math.sin(p) ** 2)
    return ((n + h) * math.cos(p) * math.cos(l), (n + h) * math.cos(p) * math.sin(l), (n * (1 - e2) + h) * math.sin(p))


def ned_to_ecef(lat, lon, vn, ve, vd):
    p, l = math.radians(lat), math.radians(lon)
    sp, cp, sl, cl = math.sin(p), math.cos(p), math.sin(l), math.cos(l)
    return (-sp * cl * vn - sl * ve - cp * cl * vd, -sp * sl * vn + cl * ve - cp * sl * vd, cp * vn - sp * vd)


# NAV-POSECEF / NAV-HPPOSECEF / NAV-VELECEF of 48.1173° N 11.5183333° E, 545.4 m, moving 3 m/s north, 4 m/s east.
X, Y, Z = ecef(48.1173, 11.5183333, 545.4)
VX, VY, VZ = ned_to_ecef(48.1173, 11.5183333, 3.0, 4.0, 0.0)
cm = [round(v * 100) for v in (X, Y, Z)]
hp = [round((v * 100 - c) * 100) for v, c in zip((X, Y, Z), cm)]   # the 0.1 mm part, −50 … 50
frames["NAV-POSECEF"] = UBXMessage("NAV", "NAV-POSECEF", GET, iTOW=10000, ecefX=cm[0], ecefY=cm[1], ecefZ=cm[2],
                                   pAcc=280)
frames["NAV-HPPOSECEF"] = UBXMessage("NAV", "NAV-HPPOSECEF", GET, version=0, iTOW=11000, ecefX=cm[0], ecefY=cm[1],
                                     ecefZ=cm[2], _HPecefX=hp[0] / 100, _HPecefY=hp[1] / 100, _HPecefZ=hp[2] / 100,
                                     invalidEcef=0, pAcc=14.2)
frames["NAV-VELECEF"] = UBXMessage("NAV", "NAV-VELECEF", GET, iTOW=10000, ecefVX=round(VX * 100),
                                   ecefVY=round(VY * 100), ecefVZ=round(VZ * 100), sAcc=35)
frames["NAV-STATUS-10000"] = UBXMessage("NAV", "NAV-STATUS", GET, iTOW=10000, gpsFix=3, gpsFixOk=1, wknSet=1,
                                        towSet=1)

for name, m in frames.items():
    print(name, m.serialize().hex())
