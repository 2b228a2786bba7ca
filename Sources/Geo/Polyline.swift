import Foundation

/// An ordered path of coordinates (e.g. a road or route), measured along great circles.
public struct Polyline: Sendable, Hashable, Codable {
    public var points: [Coordinate]

    public init(_ points: [Coordinate]) {
        self.points = points
    }

    /// Spans shorter than this (metres) are too short to give a meaningful bearing.
    static let minimumSpan = 0.001

    /// Total length in metres: the sum of the great-circle lengths of the segments.
    public var length: Double {
        guard points.count > 1 else { return 0 }
        var total = 0.0
        for i in 1..<points.count {
            total += points[i - 1].distance(to: points[i])
        }
        return total
    }

    /// The point on the line closest to `c`.
    ///
    /// Returns the closest point, its great-circle distance from `c` in metres, the index of
    /// the segment it lies on (segment `i` joins `points[i]` and `points[i + 1]`), and how far
    /// along the line it is from the first point in metres. Nil for an empty line; for a
    /// single point that point is returned with segment index 0. Ties go to the earlier segment.
    ///
    /// Approximation: each segment is projected into a local equirectangular (flat) frame
    /// centred on `c` (x = Δlongitude·cos(latitude of c), y = Δlatitude, both scaled to metres)
    /// and the nearest point is found there, so a segment is treated as straight in
    /// latitude/longitude rather than as a great-circle arc. For segments within a few
    /// kilometres of `c`, away from the poles, the error is well under a metre.
    public func nearestPoint(to c: Coordinate)
        -> (coordinate: Coordinate, distance: Double, segmentIndex: Int, distanceAlong: Double)?
    {
        guard let first = points.first else { return nil }
        guard points.count > 1 else { return (first, c.distance(to: first), 0, 0) }

        let metresPerDegree = Geo.earthRadius * .pi / 180
        let kx = metresPerDegree * cos(radians(c.latitude))
        let ky = metresPerDegree
        func local(_ p: Coordinate) -> (x: Double, y: Double) {
            (Angle.signedDifference(p.longitude, c.longitude) * kx, (p.latitude - c.latitude) * ky)
        }

        var bestIndex = 0
        var bestT = 0.0
        var bestSquared = Double.infinity
        for i in 0..<(points.count - 1) {
            let a = local(points[i]), b = local(points[i + 1])
            let dx = b.x - a.x, dy = b.y - a.y
            let lengthSquared = dx * dx + dy * dy
            // Parameter of the foot of the perpendicular from the origin (c), clamped to the segment.
            var t = lengthSquared > 0 ? -(a.x * dx + a.y * dy) / lengthSquared : 0
            t = min(max(t, 0), 1)
            let px = a.x + t * dx, py = a.y + t * dy
            let squared = px * px + py * py
            if squared < bestSquared {
                bestSquared = squared
                bestIndex = i
                bestT = t
            }
        }

        let a = points[bestIndex], b = points[bestIndex + 1]
        let nearest: Coordinate
        switch bestT {
        case 0: nearest = a
        case 1: nearest = b
        default:
            nearest = Coordinate(
                latitude: a.latitude + bestT * (b.latitude - a.latitude),
                longitude: wrappedLongitude(a.longitude + bestT * Angle.signedDifference(b.longitude, a.longitude)))
        }
        var along = 0.0
        for i in 0..<bestIndex {
            along += points[i].distance(to: points[i + 1])
        }
        along += a.distance(to: nearest)
        return (nearest, c.distance(to: nearest), bestIndex, along)
    }

    /// The point `d` metres along the line from the first point, following each segment's
    /// great circle. Clamped: `d ≤ 0` gives the first point, `d ≥ length` the last.
    /// Nil for an empty line or a NaN `d` (±infinity clamps like any other value).
    public func point(atDistance d: Double) -> Coordinate? {
        guard let first = points.first, !d.isNaN else { return nil }
        if d <= 0 { return first }
        var remaining = d
        for i in 0..<(points.count - 1) {
            let a = points[i], b = points[i + 1]
            let segment = a.distance(to: b)
            if remaining < segment {
                return a.destination(bearing: a.bearing(to: b), distance: remaining)
            }
            remaining -= segment
        }
        return points[points.count - 1]
    }

    /// The direction of travel around `atDistance` metres along the line: the bearing from the
    /// point at `atDistance` to the point `lookAhead` metres further on (both clamped to the line).
    ///
    /// Near the end, where less than `lookAhead` remains, the window slides back so it still spans
    /// `lookAhead` metres (or the whole line if shorter). With `lookAhead ≤ 0` it is the bearing of
    /// the segment at that distance (at a vertex, the segment leaving it).
    /// Nil when the line has no length or an argument is NaN.
    public func bearing(atDistance d: Double, lookAhead: Double) -> Double? {
        let total = length
        guard total > 0, !d.isNaN, !lookAhead.isNaN else { return nil }
        let ahead = max(lookAhead, 0)
        var start = min(max(d, 0), total)
        let end = min(start + ahead, total)
        if end - start < ahead { start = max(end - ahead, 0) }
        if end - start < Polyline.minimumSpan { return segmentBearing(atDistance: start) }
        guard let a = point(atDistance: start), let b = point(atDistance: end) else { return nil }
        return a.bearing(to: b)
    }

    /// Initial bearing of the non-degenerate segment covering distance `d` (preferring the one
    /// that starts at `d` when `d` is on a vertex), or of the last non-degenerate segment.
    private func segmentBearing(atDistance d: Double) -> Double? {
        var travelled = 0.0
        var last: Double?
        for i in 0..<(points.count - 1) {
            let a = points[i], b = points[i + 1]
            let segment = a.distance(to: b)
            guard segment > 0 else { continue }
            last = a.bearing(to: b)
            travelled += segment
            if travelled > d { return last }
        }
        return last
    }
}
