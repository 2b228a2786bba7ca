/// One of eight compass points, each covering 45° centred on its nominal bearing:
/// north = [337.5, 22.5), northEast = [22.5, 67.5), … (lower bound inclusive).
/// The raw value is a phrasing key such as "north_east".
public enum CompassDirection: String, Sendable, CaseIterable {
    case north
    case northEast = "north_east"
    case east
    case southEast = "south_east"
    case south
    case southWest = "south_west"
    case west
    case northWest = "north_west"

    /// The sector containing true `bearing` (degrees, any real value).
    /// Non-finite bearings map to north.
    public init(bearing: Double) {
        let b = Angle.normalized(bearing)
        guard b.isFinite else { self = .north; return }
        let index = Int(((b + 22.5) / 45).rounded(.down)) % 8
        self = Self.allCases[index]
    }

    /// The nominal bearing of the compass point, degrees (north = 0, northEast = 45, …).
    public var bearing: Double {
        Double(Self.allCases.firstIndex(of: self)!) * 45
    }
}
