import Foundation
import Geo

/// One thing guidance wants said (or played): the hand-off to whoever speaks, the behavior pipeline's
/// callout coordinator or a plain printer.
public struct GuidanceCallout: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Codable {
        case beaconSet, beaconDistance, beaconArrival, beaconInfo
        case waypointArrival, waypointDistance, routeComplete, routeInfo
        case maneuver, marker, setting, error
    }

    public var kind: Kind
    public var text: String
    /// Recorded-sample names, when the announcement was rendered for sample output.
    public var samples: [String]?
    /// An earcon to play with it (the Audio module's earcon file name: "beacon_found", "sense_poi").
    public var earcon: String?
    /// Spatialise the speech at this point.
    public var location: Coordinate?
    /// Wait this long before speaking (seconds).
    public var delay: TimeInterval
    /// Interrupt what is being said and clear the queue.
    public var interrupts: Bool

    public init(kind: Kind, text: String, samples: [String]? = nil, earcon: String? = nil, location: Coordinate? = nil,
                delay: TimeInterval = 0, interrupts: Bool = false) {
        self.kind = kind
        self.text = text
        self.samples = samples
        self.earcon = earcon
        self.location = location
        self.delay = delay
        self.interrupts = interrupts
    }
}

/// Whoever speaks guidance callouts. The App implements it over the callout coordinator (or prints).
public protocol GuidanceSpeaker: Sendable {
    func speak(_ callouts: [GuidanceCallout]) async
}

/// The beacon's sound. The App implements it over the audio engine's `BeaconPlayer` (start / stop).
public protocol BeaconAudio: Sendable {
    func startBeacon(at location: Coordinate, name: String) async
    func stopBeacon() async
}

/// Collects callouts (tests, `say`).
public actor RecordingSpeaker: GuidanceSpeaker {
    public private(set) var spoken: [GuidanceCallout] = []
    public init() {}
    public func speak(_ callouts: [GuidanceCallout]) async { spoken += callouts }
}

/// Records beacon start/stop (tests, `say`).
public actor RecordingBeaconAudio: BeaconAudio {
    public enum Call: Sendable, Hashable { case start(Coordinate, String), stop }
    public private(set) var calls: [Call] = []
    public init() {}
    public var isPlaying: Bool { if case .start? = calls.last { true } else { false } }
    public func startBeacon(at location: Coordinate, name: String) async { calls.append(.start(location, name)) }
    public func stopBeacon() async { calls.append(.stop) }
}
