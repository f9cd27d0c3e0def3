#!/usr/bin/env python3
"""A GSDC 2021 ground_truth.csv (SPAN at the phone's epochs) written as GGA, for SmoothingEval's EXTRA truth.

Usage: gsdc-truth2nmea.py ground_truth.csv > truth.nmea   (times: GPS milliseconds - 18 s)
"""
import csv
import datetime
import sys

from nmea_out import degrees_minutes, sentence


def main():
    gps_epoch = datetime.datetime(1980, 1, 6)
    for r in csv.DictReader(open(sys.argv[1])):
        t = gps_epoch + datetime.timedelta(milliseconds=int(r["millisSinceGpsEpoch"]) - 18_000)
        hms = t.strftime("%H%M%S") + ".%02d" % (t.microsecond // 10000)
        la, ns = degrees_minutes(float(r["latDeg"]), True, decimals=6)
        lo, ew = degrees_minutes(float(r["lngDeg"]), False, decimals=6)
        height = float(r["heightAboveWgs84EllipsoidM"])
        sys.stdout.write(sentence("GPGGA,%s,%s,%s,%s,%s,1,10,1.0,%.2f,M,0.0,M,," % (hms, la, ns, lo, ew, height)))


if __name__ == "__main__":
    main()
