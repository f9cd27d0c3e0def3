#!/usr/bin/env python3
"""An RTKLIB solution (.pos: llh, GPST hms, out-outvel=on) written as a receiver's NMEA: GGA, RMC and GST.

Used to make held-out receivers from raw measurements (docs/smoothing.md, the Pixel 5 single-point solution).
Usage: rtklib-pos2nmea.py FILE.pos [full|nogst|nospeed] > out.nmea
  full     GGA + RMC (speed and course from the Doppler velocity) + GST (the solution's sdn/sde/sdu)
  nogst    GGA + RMC, no GST (the accuracy then comes from HDOP)
  nospeed  GGA + RMC without speed and course + GST
Times are GPST - 18 s (UTC in 2017 and later).
"""
import datetime
import math
import sys

from nmea_out import degrees_minutes, sentence


def main():
    mode = sys.argv[2] if len(sys.argv) > 2 else "full"
    out = sys.stdout
    for line in open(sys.argv[1]):
        if line.startswith("%") or not line.strip():
            continue
        f = line.split()
        t = datetime.datetime.strptime(f[0] + " " + f[1], "%Y/%m/%d %H:%M:%S.%f") - datetime.timedelta(seconds=18)
        lat, lon, h = float(f[2]), float(f[3]), float(f[4])
        satellites = int(f[6])
        sdn, sde, sdu = float(f[7]), float(f[8]), float(f[9])
        vn, ve = float(f[15]), float(f[16])
        hms = t.strftime("%H%M%S") + ".%02d" % (t.microsecond // 10000)
        la, ns = degrees_minutes(lat, True)
        lo, ew = degrees_minutes(lon, False)
        hdop = max(0.5, math.hypot(sdn, sde) / 5.0)
        out.write(sentence("GPGGA,%s,%s,%s,%s,%s,1,%02d,%.1f,%.1f,M,0.0,M,," % (hms, la, ns, lo, ew, satellites, hdop, h)))
        date = t.strftime("%d%m%y")
        if mode == "nospeed":
            out.write(sentence("GPRMC,%s,A,%s,%s,%s,%s,,,%s,,,A" % (hms, la, ns, lo, ew, date)))
        else:
            knots = math.hypot(vn, ve) / 0.514444
            course = (math.degrees(math.atan2(ve, vn)) + 360) % 360
            out.write(sentence("GPRMC,%s,A,%s,%s,%s,%s,%.2f,%.1f,%s,,,A" % (hms, la, ns, lo, ew, knots, course, date)))
        if mode != "nogst":
            out.write(sentence("GPGST,%s,,,,,%.2f,%.2f,%.2f" % (hms, sdn, sde, sdu)))


if __name__ == "__main__":
    main()
