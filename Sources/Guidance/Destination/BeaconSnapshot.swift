import Foundation
import Geo

/// A synchronous, thread-safe view of the beacon for readers that cannot await (the behavior pipeline's
/// BeaconStateReader asks at every event). ``DestinationManager`` updates it on every change.
public final class BeaconSnapshot: @unchecked Sendable {
    public struct Value: Sendable, Hashable {
        public var beacon: Beacon
        public var isAudioOn: Bool
        public var isInsideGeofence: Bool
        /// The beacon-off (arrival) distance in force.
        public var arrivalDistance: Double
        /// Route guidance is handling arrivals (the default beacon callouts should stay quiet).
        public var isRouteWaypoint: Bool
    }

    private let lock = NSLock()
    private var value: Value?

    public init() {}

    public var current: Value? {
        lock.lock(); defer { lock.unlock() }
        return value
    }

    func update(_ state: DestinationState, settings: GuidanceSettings) {
        let v = state.beacon.map { b -> Value in
            var waypoint = false
            if case .waypoint = b.target { waypoint = true }
            return Value(beacon: b, isAudioOn: state.isAudioOn, isInsideGeofence: state.isInsideGeofence,
                         arrivalDistance: settings.beaconOffDistance, isRouteWaypoint: waypoint || state.geofenceSuspended)
        }
        lock.lock(); value = v; lock.unlock()
    }
}
