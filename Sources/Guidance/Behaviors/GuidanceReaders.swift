import Behaviors
import Foundation
import Geo

/// The behavior pipeline's view of the beacon: ``DestinationManager``'s snapshot, read without awaiting.
/// Nil while the beacon is a route waypoint, which route guidance speaks about itself.
public struct DestinationBeaconReader: BeaconStateReader {
    public let snapshot: BeaconSnapshot

    public init(snapshot: BeaconSnapshot) { self.snapshot = snapshot }

    public func currentBeacon() -> BeaconState? {
        guard let value = snapshot.current, !value.isRouteWaypoint else { return nil }
        return Self.state(value)
    }

    static func state(_ value: BeaconSnapshot.Value) -> BeaconState {
        let beacon = value.beacon
        var featureKey: String?
        let id: String
        switch beacon.target {
        case .place(let key): id = "place:\(key)"; featureKey = key
        case .marker(let uuid): id = "marker:\(uuid.uuidString)"
        case .waypoint(let route, let index): id = "waypoint:\(route.uuidString):\(index)"
        case .coordinate, .here: id = "point:\(beacon.location.latitude),\(beacon.location.longitude)"
        }
        return BeaconState(id: id, name: beacon.name, coordinate: beacon.location, featureKey: featureKey,
                           isAudioEnabled: value.isAudioOn, arrivalDistance: value.arrivalDistance)
    }
}

/// The behavior pipeline's view of the saved markers (``MarkerStore/nearby(_:radius:limit:)``; temporary
/// markers are left out).
public struct StoreMarkerReader: MarkerReader {
    public let markers: MarkerStore

    public init(markers: MarkerStore) { self.markers = markers }

    public func markers(near coordinate: Coordinate, radius: Double) -> [MarkerInfo] {
        ((try? markers.nearby(coordinate, radius: radius)) ?? []).map {
            MarkerInfo(id: $0.marker.id.uuidString, name: $0.marker.name, coordinate: $0.marker.coordinate,
                       annotation: $0.marker.annotation)
        }
    }
}
