#!/usr/bin/env python3
"""A GSDC 2021 ground_truth.csv (SPAN at the phone's epochs) written as GGA, for SmoothingEval's EXTRA truth.

Usage: truth2nmea.py ground_truth.csv > truth.nmea   (times: GPS milliseconds - 18 s)
"""
import csv
import datetime
import sys


def sentence(body):
    c = 0
    for ch in body:
        c ^= ord(ch)
    return "$%s*%02X\r\n" % (body, c)


def degrees_minutes(v, latitude):
    a = abs(v)
    d = int(a)
    m = (a - d) * 60
    text = ("%02d%09.6f" if latitude else "%03d%09.6f") % (d, m)
    hemisphere = ("N" if v >= 0 else "S") if latitude else ("E" if v >= 0 else "W")
    return text, hemisphere


def main():
    gps_epoch = datetime.datetime(1980, 1, 6)
    for r in csv.DictReader(open(sys.argv[1])):
        t = gps_epoch + datetime.timedelta(milliseconds=int(r["millisSinceGpsEpoch"]) - 18_000)
        hms = t.strftime("%H%M%S") + ".%02d" % (t.microsecond // 10000)
        la, ns = degrees_minutes(float(r["latDeg"]), True)
        lo, ew = degrees_minutes(float(r["lngDeg"]), False)
        height = float(r["heightAboveWgs84EllipsoidM"])
        sys.stdout.write(sentence("GPGGA,%s,%s,%s,%s,%s,1,10,1.0,%.2f,M,0.0,M,," % (hms, la, ns, lo, ew, height)))


if __name__ == "__main__":
    main()
