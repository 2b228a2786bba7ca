// Provenance of the hard-coded expectations used across GeoTests.
//
// None of these numbers come from the Geo module itself. They were computed once with
// Python 3 `math` (double precision) using formulas deliberately different from the ones in
// Sources/Geo, then pasted in:
//
//  • Spherical distance: the spherical law of cosines,
//      R·acos(sin φ1 sin φ2 + cos φ1 cos φ2 cos Δλ),
//    cross-checked with the 3-D vector form R·atan2(|n1 × n2|, n1 · n2) (both agreed to 1 mm),
//    with R = 6 371 008.8 m. Geo uses haversine.
//  • Initial bearing: the target's unit vector projected onto the local east
//    (−sin λ, cos λ, 0) and north (−sin φ cos λ, −sin φ sin λ, cos φ) unit vectors at the start,
//    bearing = atan2(t·east, t·north). Geo uses the classic atan2(sin Δλ cos φ2, …) formula.
//  • Destination: vector rotation  p·cos δ + (north·cos θ + east·sin θ)·sin δ,  then back to
//    lat/lon with asin/atan2. Geo uses the closed-form spherical trig formula.
//  • Ellipsoidal check: Vincenty's inverse formula on WGS-84 (a = 6 378 137 m,
//    f = 1/298.257223563), i.e. the geodesic distances that distance calculators publish.
//    The spherical model is allowed to differ from these by up to 0.5 %.
//  • Slippy tiles: OSM wiki "Slippy map tilenames", lon2tile/lat2tile:
//      x = ⌊(lon + 180)/360 · 2^z⌋,  y = ⌊(1 − asinh(tan φ)/π)/2 · 2^z⌋,
//    and tile corners from  lat = atan(sinh(π(1 − 2y/2^z))),  lon = x/2^z·360 − 180.
//  • Tiles within a radius: brute force over a 41×41 (or 81×81) neighbourhood, keeping every
//    tile whose corner-derived bounds strictly overlap the square
//    lat ± degrees(r/R), lon ± degrees(r/R)/cos(lat). Geo instead takes the tiles containing
//    the square's corners and fills the rectangle between them.
//  • Quadkeys: Bing Maps Tile System documentation (tile x=3, y=5 at level 3 → "213"), plus
//    bit interleaving done by hand in Python for the Helsinki tile.
//
// City coordinates (city-centre points as commonly listed, e.g. on Wikipedia/GeoHack):
//   Helsinki 60.1699 N 24.9384 E, Tallinn 59.4370 N 24.7536 E,
//   London 51.5074 N 0.1278 W, Paris 48.8566 N 2.3522 E,
//   New York 40.7128 N 74.0060 W, Los Angeles 34.0522 N 118.2437 W.
// Helsinki Rautatientori (Railway Square): 60.1710 N 24.9430 E.

import Testing

/// |a − b| ≤ tolerance.
func isClose(_ a: Double, _ b: Double, within tolerance: Double) -> Bool {
    abs(a - b) <= tolerance
}

/// Angular closeness that treats 359.9 and 0.1 as 0.2° apart.
func isCloseAngle(_ a: Double, _ b: Double, within tolerance: Double) -> Bool {
    var d = (a - b).truncatingRemainder(dividingBy: 360)
    if d > 180 { d -= 360 }
    if d < -180 { d += 360 }
    return abs(d) <= tolerance
}
