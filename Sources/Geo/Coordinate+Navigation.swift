import Foundation

extension Coordinate {
    /// Great-circle distance in metres (haversine formula on a sphere of radius `Geo.earthRadius`).
    ///
    /// Accuracy versus the WGS-84 ellipsoid is about ±0.5 %, far better than GPS at city scale.
    public func distance(to other: Coordinate) -> Double {
        let phi1 = radians(latitude), phi2 = radians(other.latitude)
        let dPhi = phi2 - phi1
        let dLambda = radians(other.longitude - longitude)
        let sinHalfPhi = sin(dPhi / 2), sinHalfLambda = sin(dLambda / 2)
        var h = sinHalfPhi * sinHalfPhi + cos(phi1) * cos(phi2) * sinHalfLambda * sinHalfLambda
        h = min(max(h, 0), 1)
        return 2 * Geo.earthRadius * atan2(h.squareRoot(), (1 - h).squareRoot())
    }

    /// Initial true bearing (forward azimuth) of the great circle towards `other`,
    /// in degrees [0, 360), 0 = north, clockwise. Returns 0 for identical points.
    public func bearing(to other: Coordinate) -> Double {
        let phi1 = radians(latitude), phi2 = radians(other.latitude)
        let dLambda = radians(other.longitude - longitude)
        let y = sin(dLambda) * cos(phi2)
        let x = cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(dLambda)
        if x == 0 && y == 0 { return 0 }
        return Angle.normalized(degrees(atan2(y, x)))
    }

    /// The point reached by travelling `distance` metres along a great circle that
    /// starts here with initial true `bearing` (degrees). Longitude is wrapped to [-180, 180).
    public func destination(bearing: Double, distance: Double) -> Coordinate {
        let phi1 = radians(latitude), lambda1 = radians(longitude)
        let theta = radians(bearing)
        let delta = distance / Geo.earthRadius
        let sinPhi2 = sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta)
        let phi2 = asin(min(max(sinPhi2, -1), 1))
        let y = sin(theta) * sin(delta) * cos(phi1)
        let x = cos(delta) - sin(phi1) * sinPhi2
        let lambda2 = lambda1 + atan2(y, x)
        return Coordinate(latitude: degrees(phi2), longitude: wrappedLongitude(degrees(lambda2)))
    }

    /// Relative angle of `other` as seen by someone here facing `heading` (degrees, clockwise
    /// from straight ahead, [0, 360)). Feed it to a `RelativeDirection` style.
    public func relativeAngle(to other: Coordinate, heading: Double) -> Double {
        Angle.relative(bearing: bearing(to: other), heading: heading)
    }
}
