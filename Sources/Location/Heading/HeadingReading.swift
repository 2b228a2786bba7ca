import Foundation

/// Where a heading comes from. The spec (§2.1) knows three sources — *course*, *user* and *device* — and these
/// kinds map onto them as ``specSource`` says.
public enum HeadingSourceKind: String, Sendable, CaseIterable, Codable {
    /// GPS course over ground, only while walking or riding at ≥ 0.4 m/s (spec "course").
    case course
    /// A head tracker over the OpenTrack UDP protocol (spec "user": the head, like AirPods head tracking).
    case headTracker
    /// A voice statement such as "I am facing north" (device-like: see ``HeadingResolver``).
    case manual
    /// A heading fixed on the command line (`--heading DEG` on `say` and `listen`); device-like, never expires.
    case fixed
    /// The receiver's own heading (gpsd ATT, from NMEA HDT or a dual-antenna receiver): spec "device".
    case receiver
    /// A magnetometer compass (iio-sensor-proxy): spec "device".
    case compass

    /// The spec's source this kind stands for.
    public var specSource: SpecHeadingSource {
        switch self {
        case .course: return .course
        case .headTracker: return .user
        case .manual, .fixed, .receiver, .compass: return .device
        }
    }
}

/// The spec's three heading sources (§2.1).
public enum SpecHeadingSource: String, Sendable {
    case course, user, device
}

/// Who asks for a heading; each consumer has its own priority order (spec §2.2).
public enum HeadingConsumer: String, Sendable, CaseIterable {
    /// Deciding what to say (auto callouts): course → user → device.
    case collection
    /// Orienting the 3-D audio listener: user → course → device.
    case presentation
    /// Which beacon component plays, and "ahead of me": user → device → course.
    case beacon
    /// Automatic intersection callouts: course only.
    case intersection

    /// Spec §2.2, first available wins.
    public var order: [SpecHeadingSource] {
        switch self {
        case .collection: return [.course, .user, .device]
        case .presentation: return [.user, .course, .device]
        case .beacon: return [.user, .device, .course]
        case .intersection: return [.course]
        }
    }
}

/// One heading measurement from a heading provider (not course: course comes with fixes).
public struct HeadingReading: Sendable, Equatable {
    public var kind: HeadingSourceKind
    /// Degrees true, clockwise from north. For ``HeadingSourceKind/headTracker`` this is the tracker's *yaw relative
    /// to its centre* (positive = head turned right); ``HeadingResolver`` turns it into a world heading.
    public var degrees: Double
    /// When the source measured it, if it says.
    public var measuredAt: Date?

    public init(kind: HeadingSourceKind, degrees: Double, measuredAt: Date? = nil) {
        self.kind = kind
        self.degrees = degrees
        self.measuredAt = measuredAt
    }
}

/// A heading chosen for a consumer, with the kind it came from.
public struct ResolvedHeading: Sendable, Equatable {
    public var degrees: Double
    public var source: HeadingSourceKind
    public init(degrees: Double, source: HeadingSourceKind) {
        self.degrees = degrees
        self.source = source
    }
}
