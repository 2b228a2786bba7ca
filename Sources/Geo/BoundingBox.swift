import Foundation

/// An axis-aligned latitude/longitude rectangle (degrees). Edges are inclusive.
/// Boxes do not wrap across the antimeridian: `minLongitude` should be ≤ `maxLongitude`.
public struct BoundingBox: Sendable, Hashable, Codable {
    public var minLatitude: Double
    public var minLongitude: Double
    public var maxLatitude: Double
    public var maxLongitude: Double

    public init(minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude
        self.minLongitude = minLongitude
        self.maxLatitude = maxLatitude
        self.maxLongitude = maxLongitude
    }

    /// The square extending `radius` metres north, south, east and west of `center`.
    ///
    /// The north/south extent is `radius` along the meridian; the east/west extent is
    /// `radius` along the parallel through `center` (degrees scaled by 1/cos(latitude)).
    /// The result is clamped to latitude ±90 and longitude ±180 (no antimeridian wrapping);
    /// within `radius` of a pole it spans all longitudes.
    public init(center: Coordinate, radius: Double) {
        let r = max(radius, 0)
        let dLat = degrees(r / Geo.earthRadius)
        let cosLat = cos(radians(center.latitude))
        let dLon = cosLat > 1e-12 ? dLat / cosLat : 360
        let poleInside = center.latitude + dLat >= 90 || center.latitude - dLat <= -90
        self.init(
            minLatitude: max(center.latitude - dLat, -90),
            minLongitude: poleInside ? -180 : max(center.longitude - dLon, -180),
            maxLatitude: min(center.latitude + dLat, 90),
            maxLongitude: poleInside ? 180 : min(center.longitude + dLon, 180)
        )
    }

    /// The midpoint in degrees.
    public var center: Coordinate {
        Coordinate(latitude: (minLatitude + maxLatitude) / 2,
                   longitude: (minLongitude + maxLongitude) / 2)
    }

    /// True when `c` lies inside or on the edge.
    public func contains(_ c: Coordinate) -> Bool {
        c.latitude >= minLatitude && c.latitude <= maxLatitude
            && c.longitude >= minLongitude && c.longitude <= maxLongitude
    }

    /// True when the boxes overlap or touch.
    public func intersects(_ other: BoundingBox) -> Bool {
        minLatitude <= other.maxLatitude && other.minLatitude <= maxLatitude
            && minLongitude <= other.maxLongitude && other.minLongitude <= maxLongitude
    }
}
