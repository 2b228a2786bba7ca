import Callouts
import Foundation
import Geo
import MapData

/// Automatic place callouts (spec §3.2): as the user walks, the places they pass are named, each heard from
/// where it is.
///
/// * Only when callouts are on, and re-evaluated only after the user moved more than 5 m **and** 5 s passed
///   (in a vehicle: 20 s, and speed × 5 s of distance).
/// * Looks 50 m around (300 m in a vehicle) at the 10 nearest features; in a vehicle only landmarks and bus
///   stops. A place is said when it is within its category's trigger range (objects never; markers always
///   eligible), is not the beacon's place, and was not said before — a place said is said again only after
///   60 s and after the user has been farther than its proximity range. Nameless places of one kind ("Bench")
///   count as one.
/// * Queued (never interrupting), 0.75 s apart; a callout whose place the user has left (out of trigger range)
///   before it is heard is skipped, and one not heard may be said again.
/// * Also: "callouts on" / "callouts off".
public final class AutoCalloutGenerator: ManualGenerator, AutomaticGenerator {
    struct Announced {
        var time: Date
        var point: Coordinate
        var proximity: Double
    }

    public static let radius = 50.0
    public static let nearestCount = 10
    public static let reannounceAfter = 60.0
    public static let minimumMove = 5.0
    public static let minimumInterval = 5.0
    public static let delay = 0.75
    /// Metres added to the trigger ranges in Street Preview (spec §3.2).
    public static let previewExtraRange = 10.0

    private var last: (point: Coordinate, time: Date)?
    private var announced: [String: Announced] = [:]

    public init() {}

    // MARK: manual

    public func respondsTo(_ event: any UserInitiatedEvent) -> Bool { event is ToggleAutoCalloutsEvent }

    public func handle(_ event: any UserInitiatedEvent, context: GeneratorContext) -> HandledEventAction? {
        guard let toggle = event as? ToggleAutoCalloutsEvent else { return nil }
        let on = toggle.enabled ?? !context.settings.automaticCallouts
        context.settings.automaticCallouts = on
        if on { last = nil }
        let text = context.table(on ? "status.callouts_on" : "status.callouts_off")
        let glyph: Glyph? = toggle.playSound ? (on ? .calloutsOn : .calloutsOff) : nil
        return .playCallouts(CalloutGroup([.text(text, glyph: glyph)], action: .interruptAndClear, label: "system.callouts"))
    }

    // MARK: automatic

    public func respondsTo(_ event: any StateChangedEvent) -> Bool {
        event is LocationUpdatedEvent || event is CalloutsNotHeardEvent
    }

    public func cancelCallouts(for subject: String) {
        announced[subject] = Announced(time: .distantFuture, point: Coordinate(latitude: 0, longitude: 0), proximity: .infinity)
    }

    public func handle(_ event: any StateChangedEvent, context: GeneratorContext) -> HandledEventAction? {
        if let notHeard = event as? CalloutsNotHeardEvent {
            for subject in notHeard.subjects { announced[subject] = nil }
            return .noAction
        }
        guard let update = event as? LocationUpdatedEvent, context.settings.automaticCallouts,
              let here = context.user.location, let map = context.map else { return nil }
        let inVehicle = context.user.inVehicle
        // Street Preview: no waiting between the walker's jumps, and 10 m farther.
        let previewExtra = update.isPreview ? Self.previewExtraRange : 0
        if !update.isPreview, let last {
            let interval = inVehicle ? Self.minimumInterval * 4 : Self.minimumInterval
            let move = inVehicle ? max(Self.minimumMove, context.user.speed * Self.minimumInterval) : Self.minimumMove
            guard here.distance(to: last.point) > move, context.now.timeIntervalSince(last.time) > interval else { return nil }
        }
        last = (here, context.now)

        // Forget what was said long enough ago and left behind far enough.
        announced = announced.filter { _, entry in
            context.now.timeIntervalSince(entry.time) < Self.reannounceAfter && here.distance(to: entry.point) <= entry.proximity
        }

        let radius = (inVehicle ? Self.radius * 6 : Self.radius) + previewExtra
        // The 10 nearest eligible features, nearest first (in a vehicle only landmarks and bus stops are eligible).
        let candidates = ((try? map.features(near: here, radius: radius)) ?? [])
            .filter { item in
                !inVehicle || item.feature.superCategory == .landmark || item.feature.category == "bus_stop"
            }
            .sorted { $0.distance < $1.distance }
            .prefix(Self.nearestCount)

        var callouts: [Callout] = []
        var triggers: [String: Double] = [:]
        var positions: [String: Coordinate] = [:]
        var keysThisTime: Set<String> = []
        let language = context.table.language
        for item in candidates {
            let feature = item.feature
            var range = CalloutRange.for(feature.superCategory, inVehicle: inVehicle)
            if range.trigger > 0 { range.trigger += previewExtra }
            guard range.trigger > 0, Self.senseEnabled(feature.superCategory, settings: context.settings),
                  item.distance <= range.trigger else { continue }
            if let beacon = context.beacon, beacon.featureKey == feature.key, feature.superCategory != .navilens { continue }
            let key = Self.trackingKey(feature)
            guard !keysThisTime.contains(key) else { continue }
            if let previous = announced[key] {
                // A nameless kind counts as said only if the one said is near this one.
                if feature.name != nil || previous.point.distance(to: item.closestPoint) <= previous.proximity { continue }
            }
            keysThisTime.insert(key)
            announced[key] = Announced(time: context.now, point: item.closestPoint, proximity: range.proximity)
            var callout = PlaceCallouts.feature(item, style: .automatic, language: language)
            callout.subject = key
            triggers[key] = range.trigger
            positions[key] = item.closestPoint
            callouts.append(callout)
        }
        for marker in context.markers?.markers(near: here, radius: CalloutRange.marker.trigger) ?? [] {
            let key = "marker:\(marker.id)"
            guard !keysThisTime.contains(key), announced[key] == nil else { continue }
            keysThisTime.insert(key)
            announced[key] = Announced(time: context.now, point: marker.coordinate, proximity: CalloutRange.marker.proximity)
            triggers[key] = CalloutRange.marker.trigger
            positions[key] = marker.coordinate
            callouts.append(PlaceCallouts.marker(marker, style: .automatic, table: context.table))
        }
        guard !callouts.isEmpty else { return nil }

        let ranges = triggers
        let points = positions
        let said = callouts.compactMap(\.subject)
        let post = context.post
        return .playCallouts(CalloutGroup(
            callouts, action: .enqueue, label: "auto.poi", calloutDelay: Self.delay,
            isWithinRegionToLive: { callout, ctx in
                guard let key = callout.subject, let trigger = ranges[key], let point = points[key],
                      let location = ctx.location else { return true }
                return location.distance(to: point) <= trigger
            },
            onCalloutSkipped: { callout in if let key = callout.subject { post(CalloutsNotHeardEvent(subjects: [key])) } },
            onSkipped: { post(CalloutsNotHeardEvent(subjects: said)) }))
    }

    /// The key a place is remembered by: the feature, or for a nameless one its kind, so that only one
    /// "Bench" is said at a time.
    static func trackingKey(_ feature: MapFeature) -> String {
        feature.name == nil ? "kind:\(feature.category ?? feature.featureValue)" : feature.key
    }

    static func senseEnabled(_ category: SuperCategory, settings: CalloutSettings) -> Bool {
        switch category {
        case .place, .landmark, .information: settings.placesAndLandmarks
        case .mobility, .safety, .navilens: settings.mobility
        case .authoredActivity: true
        default: false
        }
    }
}
