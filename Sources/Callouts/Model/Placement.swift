import Geo

/// Where a sound is heard from (Soundscape's sound types, spec §5.1).
public enum Placement: Sendable, Equatable {
    /// Straight ahead, not spatialised (2-D).
    case standard
    /// At a place on the map; follows the listener as they move and turn.
    case localized(Coordinate)
    /// At a fixed angle from where the listener faces (degrees, 0 ahead, 90 right).
    case relative(Double)
    /// At a fixed true compass bearing (degrees from north).
    case compass(Double)

    /// "standard", "localized", "relative" or "compass".
    public var name: String {
        switch self {
        case .standard: "standard"
        case .localized: "localized"
        case .relative: "relative"
        case .compass: "compass"
        }
    }

    /// The true bearing from `listener` (facing `heading`) to where the sound is placed, when there is one.
    public func bearing(from listener: Coordinate?, heading: Double?) -> Double? {
        switch self {
        case .standard: return nil
        case .localized(let c): return listener.map { $0.bearing(to: c) }
        case .relative(let angle): return heading.map { Angle.normalized($0 + angle) }
        case .compass(let b): return Angle.normalized(b)
        }
    }

    /// Metres from `listener` to the place, for localized sounds.
    public func distance(from listener: Coordinate?) -> Double? {
        if case .localized(let c) = self, let listener { return listener.distance(to: c) }
        return nil
    }
}
