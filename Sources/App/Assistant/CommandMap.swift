import Behaviors
import Callouts
import Guidance
import Speech

/// What the assistant does for a command.
public enum AssistantAction: Sendable {
    /// A user-initiated event for the pipeline.
    case post(any UserInitiatedEvent)
    /// Stop speaking (with the hush earcon).
    case hush
    case sleep
    case wake
    /// Sleep until the user leaves this place.
    case snooze
    case setUnits(UnitSystem)
    /// A beacon, marker or route command for the Guidance stage.
    case guidance(GuidanceRequest)
    case quit
}

/// The App's command map: a recognised command (spoken or typed) becomes a user-initiated event or a control of
/// the event processor.
///
/// | intent | action |
/// |---|---|
/// | where_am_i, around_me, ahead_of_me, nearby_markers | ``ExplorationEvent`` (ExplorationGenerator) |
/// | repeat | ``RepeatCalloutEvent`` (SystemGenerator) |
/// | help | ``HelpEvent`` (SystemGenerator) |
/// | gps_accuracy | ``GPSAccuracyEvent`` (SystemGenerator) |
/// | callouts_on / callouts_off | ``ToggleAutoCalloutsEvent`` (AutoCalloutGenerator) |
/// | where_is_beacon | the Guidance stage: "Beacon on Kauppatori, 120 meters, to the left" (during a route: the waypoint) |
/// | set_beacon, beacon_here, mute/unmute/remove_beacon, beacon_off_distance | ``GuidanceRequest`` (DestinationManager) |
/// | save/delete/rename_marker | ``GuidanceRequest`` (MarkerStore) |
/// | take_me_to, start_route | ``GuidanceRequest``: plans or loads the route, activates ``RouteGuidanceBehavior`` |
/// | next/previous_waypoint, stop_route, route_progress | ``RouteCommandEvent`` for the route behavior |
/// | stop | hush (EventProcessor.hush) |
/// | sleep / wake / snooze | EventProcessor.sleep / wake / snooze |
/// | use_metric / use_imperial | EventProcessor.setUnits |
/// | quit | leave the program |
/// | everything else (voice settings, cancel, facing, language), or a command without its place or name | ``UnavailableCommandEvent``: "Sorry, … is not available yet" |
public enum CommandMap {
    public static func action(for command: RecognizedCommand) -> AssistantAction {
        guard let intent = command.knownIntent else { return .post(UnavailableCommandEvent(words: command.words)) }
        switch intent {
        case .whereAmI: return .post(ExplorationEvent(.locate))
        case .aroundMe: return .post(ExplorationEvent(.aroundMe))
        case .aheadOfMe: return .post(ExplorationEvent(.aheadOfMe))
        case .nearbyMarkers: return .post(ExplorationEvent(.nearbyMarkers))
        case .repeatLast: return .post(RepeatCalloutEvent())
        case .help: return .post(HelpEvent())
        case .gpsAccuracy: return .post(GPSAccuracyEvent())
        case .calloutsOn: return .post(ToggleAutoCalloutsEvent(enabled: true))
        case .calloutsOff: return .post(ToggleAutoCalloutsEvent(enabled: false))
        case .whereIsBeacon: return .guidance(.whereIsBeacon)
        case .stop: return .hush
        case .sleep: return .sleep
        case .wake: return .wake
        case .snooze: return .snooze
        case .useMetric: return .setUnits(.metric)
        case .useImperial: return .setUnits(.imperial)
        case .quit: return .quit
        case .beaconHere: return .guidance(.beaconHere)
        case .muteBeacon: return .guidance(.muteBeacon)
        case .unmuteBeacon: return .guidance(.unmuteBeacon)
        case .removeBeacon: return .guidance(.removeBeacon)
        case .beaconOffDistance: return .guidance(.beaconOffDistance(number(command.slots["number"])))
        case .saveMarker: return .guidance(.saveMarker(name: command.slots["name"]))
        case .stopRoute: return .guidance(.route(.stop))
        case .nextWaypoint: return .guidance(.route(.next))
        case .previousWaypoint: return .guidance(.route(.previous))
        case .routeProgress: return .guidance(.route(.progress))
        case .setBeacon, .takeMeTo, .deleteMarker, .renameMarker, .startRoute:
            if let request = named(intent, command.slots) { return .guidance(request) }
            return .post(UnavailableCommandEvent(words: command.words))
        case .cancel, .facing, .speakFaster, .speakSlower, .beaconStyle, .beaconAngle, .language:
            return .post(UnavailableCommandEvent(words: command.words))
        }
    }

    /// The commands that need a place or a name; nil without it.
    static func named(_ intent: Intent, _ slots: [String: String]) -> GuidanceRequest? {
        func slot(_ key: String) -> String? { slots[key].flatMap { $0.isEmpty ? nil : $0 } }
        switch intent {
        case .setBeacon: return slot("place").map { .setBeacon(place: $0) }
        case .takeMeTo: return slot("place").map { .takeMeTo(place: $0) }
        case .deleteMarker: return slot("name").map { .deleteMarker(name: $0) }
        case .startRoute: return slot("name").map { .startRoute(name: $0) }
        case .renameMarker:
            guard let name = slot("name"), let newName = slot("new_name") else { return nil }
            return .renameMarker(name: name, newName: newName)
        default: return nil
        }
    }

    /// "10", "10 meters", "ten metres" → 10.
    static func number(_ text: String?) -> Double? {
        guard let first = text?.split(separator: " ").first.map(String.init) else { return nil }
        let words = ["zero": 0.0, "five": 5, "ten": 10, "fifteen": 15, "twenty": 20, "twenty five": 25, "thirty": 30,
                     "thirty five": 35, "forty": 40, "forty five": 45, "fifty": 50]
        if let value = Double(first.replacingOccurrences(of: ",", with: ".")) { return value }
        let spoken = (text ?? "").replacingOccurrences(of: "-", with: " ").lowercased()
        return words.filter { spoken.hasPrefix($0.key) }.max { $0.key.count < $1.key.count }?.value
    }
}
