import Foundation

/// How the user is moving, derived from GPS speed (Linux has no activity classifier; spec §2.3).
public enum MotionState: String, Sendable, Equatable {
    /// No speed seen yet.
    case unknown
    case stationary
    /// On foot (walking or running).
    case walking
    /// Riding: sustained speed above the vehicle threshold ("in vehicle" ⇔ automotive in the spec).
    case inVehicle

    /// The spec's "in motion" (walking, running, cycling, automotive), which course needs.
    public var isInMotion: Bool { self == .walking || self == .inVehicle }
}

/// Classifies motion from a stream of speeds, with time hysteresis so that GPS speed noise does not flicker.
///
/// * stationary → walking when speed ≥ `walkingSpeed` (0.4 m/s, the course threshold of spec §2.1) holds for
///   `walkingAfter`; walking → stationary when it stays below for `stationaryAfter`.
/// * → in vehicle when speed > `vehicleSpeed` (5 m/s, spec §2.3) holds for `vehicleAfter`;
///   in vehicle → walking/stationary only after speed ≤ `leaveVehicleSpeed` for `leaveVehicleAfter`
///   (a bus stopping at a light stays a bus).
public struct MotionClassifier<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    public struct Configuration: Sendable {
        public var walkingSpeed = 0.4
        public var walkingAfter: Duration = .seconds(1)
        public var stationaryAfter: Duration = .seconds(2)
        public var vehicleSpeed = 5.0
        public var vehicleAfter: Duration = .seconds(5)
        public var leaveVehicleSpeed = 2.5
        public var leaveVehicleAfter: Duration = .seconds(30)
        public init() {}
    }

    public let configuration: Configuration
    public private(set) var state: MotionState = .unknown
    private var fastSince: Instant?
    private var movingSince: Instant?
    private var stillSince: Instant?
    private var slowSince: Instant?

    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// Feeds one speed (m/s) measured at `now` and returns the state.
    @discardableResult
    public mutating func update(speed: Double, at now: Instant) -> MotionState {
        guard speed.isFinite, speed >= 0 else { return state }
        let c = configuration
        func since(_ start: inout Instant?, _ holds: Bool) -> Duration? {
            guard holds else { start = nil; return nil }
            if start == nil { start = now }
            return start!.duration(to: now)
        }
        let fastFor = since(&fastSince, speed > c.vehicleSpeed)
        let movingFor = since(&movingSince, speed >= c.walkingSpeed)
        let stillFor = since(&stillSince, speed < c.walkingSpeed)
        let slowFor = since(&slowSince, speed <= c.leaveVehicleSpeed)

        if state == .inVehicle {
            if let slowFor, slowFor >= c.leaveVehicleAfter { state = speed >= c.walkingSpeed ? .walking : .stationary }
            return state
        }
        if let fastFor, fastFor >= c.vehicleAfter { state = .inVehicle; return state }
        switch state {
        case .unknown:
            state = speed >= c.walkingSpeed ? .walking : .stationary
        case .stationary:
            if let movingFor, movingFor >= c.walkingAfter { state = .walking }
        case .walking:
            if let stillFor, stillFor >= c.stationaryAfter { state = .stationary }
        case .inVehicle:
            break
        }
        return state
    }
}
