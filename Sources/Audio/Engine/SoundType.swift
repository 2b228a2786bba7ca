import Geo

/// Where a sound is heard (spec §5.1). Spatial sounds sit on a ring 1 m around the listener, so their
/// direction — not their loudness — tells where the place is.
public enum SoundType: Sendable, Equatable {
    /// Plain stereo, not spatialised.
    case standard
    /// In the direction of a place; follows the listener's location and heading while it plays.
    case localized(Coordinate)
    /// Head-locked: `degrees` clockwise from where the listener faces (90 is always the right ear).
    case relative(Double)
    /// World-locked at a true bearing in degrees (0 = north), turned by the listener's heading.
    case compass(Double)

    var placement: Placement {
        switch self {
        case .standard: return .standard
        case .localized(let c): return .localized(latitude: c.latitude, longitude: c.longitude)
        case .relative(let d): return .relative(d)
        case .compass(let b): return .compass(b)
        }
    }

    var isSpatial: Bool { self != .standard }
}

/// How a played sound ended.
public enum PlaybackResult: Sendable, Equatable {
    /// Played to its end.
    case completed
    /// Stopped (hush, stop, clear) before or while playing.
    case interrupted
    /// Could not be prepared (e.g. a missing WAV file, an unknown voice); nothing or part of it played.
    case failed(String)
}

/// A plain-value form of ``SoundType`` for the render thread.
enum Placement: BitwiseCopyable, Equatable {
    case standard
    case localized(latitude: Double, longitude: Double)
    case relative(Double)
    case compass(Double)
}

/// Linear levels per kind of sound (spec §5.2: speech, beacon, other sounds; 0…1, default 0.75).
public struct AudioLevels: Sendable, Equatable, Codable {
    public var speech: Float
    public var beacon: Float
    public var earcons: Float
    public init(speech: Float = 0.75, beacon: Float = 0.75, earcons: Float = 0.75) {
        self.speech = min(max(speech, 0), 1)
        self.beacon = min(max(beacon, 0), 1)
        self.earcons = min(max(earcons, 0), 1)
    }
}
