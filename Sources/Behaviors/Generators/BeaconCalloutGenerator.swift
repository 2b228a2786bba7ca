import Callouts
import Foundation
import Geo

/// The audio beacon's spoken distance (spec §3.4). The beacon itself lives in the Guidance stage; this
/// generator reads it through the context.
///
/// * While walking: "Beacon, 120 meters" after the user moved more than 50 m **and** 5 s passed since the last
///   one (in a vehicle: 25 s, or 50 s beyond 1 km, and speed × 5 s of distance); nothing within the arrival
///   distance. Queued, heard from the beacon. Not kept for "repeat".
/// * When the beacon is set or changed: one update at once. "Where is the beacon": the same, interrupting.
/// * Arriving: "Beacon within 15 meters", with "the beacon sound is now off" when arrival muted it.
public final class BeaconCalloutGenerator: ManualGenerator, AutomaticGenerator {
    public static let minimumMove = 50.0
    public static let minimumInterval = 5.0

    private var last: (point: Coordinate, time: Date)?

    public init() {}

    // MARK: manual

    public func respondsTo(_ event: any UserInitiatedEvent) -> Bool { event is BeaconCalloutEvent }

    public func handle(_ event: any UserInitiatedEvent, context: GeneratorContext) -> HandledEventAction? {
        guard event is BeaconCalloutEvent else { return nil }
        guard let beacon = context.beacon else {
            return .playCallouts(CalloutGroup([.text(context.table("beacon.none"), glyph: .invalidFunction)],
                                              action: .interruptAndClear, label: "beacon.none"))
        }
        if let here = context.user.location { last = (here, context.now) }
        return .playCallouts(CalloutGroup([Self.distanceCallout(beacon)], action: .interruptAndClear, label: "beacon.manual"))
    }

    // MARK: automatic

    public func respondsTo(_ event: any StateChangedEvent) -> Bool {
        event is LocationUpdatedEvent || event is BeaconChangedEvent || event is BeaconGeofenceEvent
    }

    public func handle(_ event: any StateChangedEvent, context: GeneratorContext) -> HandledEventAction? {
        if let geofence = event as? BeaconGeofenceEvent {
            guard geofence.didEnter, let beacon = context.beacon else { return .noAction }
            let within = context.phrasing.distances.string(meters: beacon.arrivalDistance)
            let text = geofence.mutedBeacon ? context.table("beacon.arrived_muted", within) : context.table("beacon.arrived", within)
            let callout = Callout.text(text, glyph: geofence.mutedBeacon ? .beaconFound : .forCategory(beacon.superCategory),
                                       placement: .localized(beacon.coordinate), kind: .beacon)
            return .playCallouts(CalloutGroup([callout], action: .enqueue, label: "beacon.arrival"))
        }
        if event is BeaconChangedEvent { last = nil }
        guard context.settings.automaticCallouts, context.settings.beaconDistance,
              let beacon = context.beacon, let here = context.user.location else { return nil }
        let distance = here.distance(to: beacon.coordinate)
        guard distance > beacon.arrivalDistance else { return nil }
        if !(event is BeaconChangedEvent), let last {
            var interval = Self.minimumInterval
            var move = Self.minimumMove
            if context.user.inVehicle {
                interval *= distance < 1000 ? 5 : 10
                move = max(move, context.user.speed * Self.minimumInterval)
            }
            guard here.distance(to: last.point) > move, context.now.timeIntervalSince(last.time) > interval else { return nil }
        }
        last = (here, context.now)
        if let changed = event as? BeaconChangedEvent, changed.distanceAlreadySpoken { return .noAction }
        return .playCallouts(CalloutGroup([Self.distanceCallout(beacon)], action: .enqueue, label: "beacon.distance",
                                          calloutDelay: AutoCalloutGenerator.delay))
    }

    /// "Beacon, 120 meters", heard from the beacon, with the distance of when it plays.
    static func distanceCallout(_ beacon: BeaconState) -> Callout {
        Callout(kind: .beacon, subject: "beacon:\(beacon.id)") { context in
            let distance = context.location.map { $0.distance(to: beacon.coordinate) } ?? 0
            return [Utterance(context.phrasing.beaconDistance(distance, accuracy: context.accuracy),
                              glyph: .forCategory(beacon.superCategory), placement: .localized(beacon.coordinate))]
        }
    }
}
