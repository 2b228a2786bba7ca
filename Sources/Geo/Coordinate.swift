/// Namespace for constants shared by the Geo module.
///
/// Note: this enum has the same name as the module, so `Geo.Something` resolves to a
/// member of this enum first. Refer to the module's types unqualified (`Coordinate`).
public enum Geo {
    /// Mean Earth radius in metres (IUGG mean radius R1), used for all spherical math.
    public static let earthRadius: Double = 6_371_008.8
}

/// A WGS-84 position in decimal degrees, treated as a point on a sphere.
public struct Coordinate: Sendable, Hashable, Codable {
    /// Degrees north of the equator, -90...90.
    public var latitude: Double
    /// Degrees east of Greenwich, -180...180.
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// True when both values are finite and within their legal ranges.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite
            && (-90.0...90.0).contains(latitude)
            && (-180.0...180.0).contains(longitude)
    }
}

extension Coordinate: CustomStringConvertible {
    public var description: String { "(\(latitude), \(longitude))" }
}

// MARK: - Small internal helpers shared by the module

@inline(__always) func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
@inline(__always) func degrees(_ radians: Double) -> Double { radians * 180 / .pi }

/// Wraps a longitude into [-180, 180).
func wrappedLongitude(_ lon: Double) -> Double {
    let shifted = Angle.normalized(lon + 180)
    return shifted - 180
}
