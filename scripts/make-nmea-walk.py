#!/usr/bin/env python3
"""Writes a short synthetic NMEA walk (GGA + RMC + HDT once a second) for the gpsd tests.

The walk starts on Rautatientori in Helsinki and goes east at 1.4 m/s for N seconds.
Usage: make-nmea-walk.py [SECONDS] > walk.nmea
"""
import math
import sys

def checksum(body: str) -> str:
    c = 0
    for ch in body:
        c ^= ord(ch)
    return f"{c:02X}"

def sentence(body: str) -> str:
    return f"${body}*{checksum(body)}"

def dm(value: float, lat: bool) -> tuple[str, str]:
    hemi = ("N" if value >= 0 else "S") if lat else ("E" if value >= 0 else "W")
    value = abs(value)
    deg = int(value)
    minutes = (value - deg) * 60
    return (f"{deg:02d}{minutes:07.4f}" if lat else f"{deg:03d}{minutes:07.4f}"), hemi

def main() -> None:
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    lat0, lon0 = 60.171000, 24.942000   # Rautatientori, Helsinki
    speed, course = 1.4, 90.0            # m/s, degrees true
    r = 6371008.8
    for t in range(seconds):
        d = speed * t
        lat = lat0
        lon = lon0 + math.degrees(d / (r * math.cos(math.radians(lat0))))
        hh, mm, ss = 12, t // 60, t % 60
        stamp = f"{hh:02d}{mm:02d}{ss:02d}.00"
        la, ns = dm(lat, True)
        lo, ew = dm(lon, False)
        print(sentence(f"GPGGA,{stamp},{la},{ns},{lo},{ew},1,09,0.9,15.0,M,18.0,M,,"))
        knots = speed * 1.943844
        print(sentence(f"GPRMC,{stamp},A,{la},{ns},{lo},{ew},{knots:.2f},{course:.1f},211126,,,A"))
        print(sentence(f"HCHDT,{course:.1f},T"))

if __name__ == "__main__":
    main()
