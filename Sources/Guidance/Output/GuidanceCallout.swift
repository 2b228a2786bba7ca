import Foundation
import Geo

/// One thing guidance wants said (or played): a command's read-back or a route's sentence, which becomes a
/// callout in the behavior pipeline (``callout``).
public struct GuidanceCallout: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Codable {
        case beaconSet, beaconDistance, beaconInfo
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

/// The beacon's sound. The App implements it over the audio engine's `BeaconPlayer` (start / stop).
public protocol BeaconAudio: Sendable {
    func startBeacon(at location: Coordinate, name: String) async
    func stopBeacon() async
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
