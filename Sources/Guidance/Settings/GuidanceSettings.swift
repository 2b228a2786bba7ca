import Foundation

/// How announcements are rendered: speech-synthesiser text, or names of recorded samples.
public enum AnnouncementOutput: String, Sendable, Codable, CaseIterable {
    case text
    case samples
}

/// The user's guidance settings (spec §8 plus the navigation-speech options).
///
/// `beaconOffDistance` is the radius of the arrival geofence: inside it the beacon is switched off and the
/// arrival callout is spoken. It may be set anywhere from 0 to 50 m in whole metres (finer than the 5 m steps
/// the community asked for); the geofence is left again only at `leaveDistance`, which keeps GPS jitter
/// around the boundary from producing a second arrival.
public struct GuidanceSettings: Sendable, Codable, Equatable {
    public static let beaconOffRange: ClosedRange<Double> = 0...50
    /// Settings may be changed in steps of this many metres (≤ 5 m, as requested).
    public static let beaconOffStep: Double = 1
    public static let defaultBeaconOffDistance: Double = 15
    /// The minimum leave radius of the arrival geofence.
    public static let minimumLeaveDistance: Double = 30
    /// The leave radius is at least this much larger than the enter radius.
    public static let hysteresisMargin: Double = 15

    /// Metres; see the type's documentation.
    public private(set) var beaconOffDistance: Double = GuidanceSettings.defaultBeaconOffDistance
    /// When set, a newly set beacon stays silent until the user is more than this many metres from it.
    public var delayedBeaconStart: Double?
    /// Speak the beacon's distance while walking ("Distance to the Audio Beacon").
    public var beaconDistanceCallouts = true
    /// Speak street names in maneuver announcements.
    public var speakStreetNames = true
    /// Decimal separator for distances ("1.5 kilometers" / "1,5 Kilometern"); nil = the language's own.
    public var decimalSeparator: String?
    public var output: AnnouncementOutput = .text
    /// Language of guidance speech ("en", "de").
    public var language = "en"
    /// Metres before a maneuver for the preparatory announcement (GraphHopper's walking prompt distance).
    public var prepareDistance: Double = 50
    /// A maneuver that follows within this many seconds of walking is chained: "…, then …".
    public var chainWindow: Double = 10
    /// Assumed walking speed when the GPS gives none, m/s.
    public var walkingSpeed: Double = 1.3

    public init() {}

    /// The radius at which the arrival geofence is left again.
    public var leaveDistance: Double {
        max(Self.minimumLeaveDistance, beaconOffDistance + Self.hysteresisMargin)
    }

    public enum SettingError: Error, Equatable, CustomStringConvertible {
        case outOfRange(Double)
        public var description: String {
            switch self {
            case .outOfRange(let v): "beacon off distance \(v) m is outside 0–50 m"
            }
        }
    }

    /// Sets the beacon-off distance: 0…50 m, rounded to the setting step. Throws outside the range.
    @discardableResult
    public mutating func setBeaconOffDistance(_ meters: Double) throws -> Double {
        guard meters.isFinite, Self.beaconOffRange.contains(meters) else { throw SettingError.outOfRange(meters) }
        beaconOffDistance = (meters / Self.beaconOffStep).rounded() * Self.beaconOffStep
        return beaconOffDistance
    }

    // MARK: configuration file

    private enum CodingKeys: String, CodingKey {
        case beaconOffDistance, delayedBeaconStart, beaconDistanceCallouts, speakStreetNames, decimalSeparator,
             output, language, prepareDistance, chainWindow, walkingSpeed
    }

    /// Decodes a configuration where every key is optional; a bad beacon-off distance is an error.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let v = try c.decodeIfPresent(Double.self, forKey: .beaconOffDistance) { try setBeaconOffDistance(v) }
        delayedBeaconStart = try c.decodeIfPresent(Double.self, forKey: .delayedBeaconStart)
        beaconDistanceCallouts = try c.decodeIfPresent(Bool.self, forKey: .beaconDistanceCallouts) ?? true
        speakStreetNames = try c.decodeIfPresent(Bool.self, forKey: .speakStreetNames) ?? true
        decimalSeparator = try c.decodeIfPresent(String.self, forKey: .decimalSeparator)
        output = try c.decodeIfPresent(AnnouncementOutput.self, forKey: .output) ?? .text
        language = try c.decodeIfPresent(String.self, forKey: .language) ?? "en"
        prepareDistance = try c.decodeIfPresent(Double.self, forKey: .prepareDistance) ?? 50
        chainWindow = try c.decodeIfPresent(Double.self, forKey: .chainWindow) ?? 10
        walkingSpeed = try c.decodeIfPresent(Double.self, forKey: .walkingSpeed) ?? 1.3
    }
}
