#!/usr/bin/env python3
"""Turns a list of waypoints into a GPX walk with one point a second at walking pace.

Usage: make-walk.py NAME SPEED_M_S "lat,lon" "lat,lon" … > walk.gpx
The waypoints are picked by hand along real streets of the bundled OpenStreetMap extract.
"""
import math
import sys
from datetime import datetime, timedelta, timezone

R = 6371008.8

def dist(a, b):
    la1, lo1, la2, lo2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 2 * R * math.asin(math.sqrt(h))

def main():
    name, speed = sys.argv[1], float(sys.argv[2])
    pts = [tuple(map(float, p.split(","))) for p in sys.argv[3:]]
    start = datetime(2026, 6, 1, 9, 0, 0, tzinfo=timezone.utc)
    out = []
    t = 0.0
    carry = 0.0
    out.append((pts[0], t))
    for a, b in zip(pts, pts[1:]):
        d = dist(a, b)
        s = speed - carry if carry else speed
        while s <= d:
            f = s / d
            t += 1
            out.append(((a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f), t))
            s += speed
        carry = d - (s - speed)
    print('<?xml version="1.0" encoding="UTF-8"?>')
    print('<gpx version="1.1" creator="soundscape scripts/make-walk.py" xmlns="http://www.topografix.com/GPX/1/1">')
    print(f"  <trk><name>{name}</name><trkseg>")
    for (lat, lon), secs in out:
        stamp = (start + timedelta(seconds=secs)).strftime("%Y-%m-%dT%H:%M:%SZ")
        print(f'    <trkpt lat="{lat:.7f}" lon="{lon:.7f}"><time>{stamp}</time></trkpt>')
    print("  </trkseg></trk>")
    print("</gpx>")

if __name__ == "__main__":
    main()
