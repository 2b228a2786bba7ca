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
    /// A setting changed by voice: applied at once, read back, saved, undoable.
    case setting(SettingCommand)
    /// Take back the last change ("undo", "cancel").
    case undo
    /// Put back what the last "undo" took back ("redo"): a misheard "undo" costs one more command.
    case redo
    /// "I am facing north": degrees from north; nil when the direction was not understood.
    case facing(Double?)
    /// A beacon, marker or route command for the Guidance stage.
    case guidance(GuidanceRequest)
    case quit
    /// Street Preview: start (here, or at a place), end, or move the walker.
    case preview(PreviewRequest)
}

/// What a Street Preview command asks for.
public enum PreviewRequest: Sendable, Equatable {
    /// nil: from the real position.
    case start(place: String?)
    case end
    case move(PreviewCommandEvent.Command)
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
/// | find_kind, search | ``GuidanceRequest``: the numbered list of the nearest of a kind, or of the places a name matches |
/// | choose, choose_next, guide_to_choice | ``GuidanceRequest``: the beacon on, or guidance to, a place of that list |
/// | take_me_to, start_route | ``GuidanceRequest``: plans or loads the route, activates ``RouteGuidanceBehavior`` |
/// | next/previous_waypoint, stop_route, route_progress, route_remaining | ``RouteCommandEvent`` for the route behavior |
/// | save_beacon_marker, add_note, nudge_marker, list_markers | ``GuidanceRequest`` (MarkerStore), read back, undoable |
/// | new_route, add_place_to_route, add_marker_to_route, save_route, reverse_route | ``GuidanceRequest``: the route being made, then RouteStore |
/// | confirm / decline | answers the question a change asked ("There is already a marker called Home…") |
/// | stop | hush (EventProcessor.hush) |
/// | sleep / wake / snooze | EventProcessor.sleep / wake / snooze |
/// | use_metric / use_imperial, speak_faster/slower, speech/beacon/sound volume and louder/quieter, beacon_style, beacon_angle, beacon_off_distance, language, callouts_on/off, places/mobility/beacon_distance on/off | ``SettingCommand``: applied, read back, saved to the settings file |
/// | cancel | undo the last change (``UndoHistory``) |
/// | redo | put back what the last undo took back (``UndoHistory``) |
/// | facing | ``HeadingControl/setManualHeading(_:)`` |
/// | quit | leave the program |
/// | start_preview, end_preview, preview_forward / turn_left / turn_right / turn_around / back | ``PreviewRequest``: the Assistant starts and ends ``PreviewBehavior``; moves are ``PreviewCommandEvent``s |
/// | repeat_previous, list_history | ``RepeatCalloutEvent`` (earlier), ``ListCalloutHistoryEvent`` (SystemGenerator) |
/// | a command without its place or name | ``UnavailableCommandEvent``: "Sorry, … is not available yet" |
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
        case .calloutsOn: return .setting(.callouts(true))
        case .calloutsOff: return .setting(.callouts(false))
        case .whereIsBeacon: return .guidance(.whereIsBeacon)
        case .stop: return .hush
        case .sleep: return .sleep
        case .wake: return .wake
        case .snooze: return .snooze
        case .useMetric: return .setting(.units(.metric))
        case .useImperial: return .setting(.units(.imperial))
        case .quit: return .quit
        case .beaconHere: return .guidance(.beaconHere)
        case .muteBeacon: return .guidance(.muteBeacon)
        case .unmuteBeacon: return .guidance(.unmuteBeacon)
        case .removeBeacon: return .guidance(.removeBeacon)
        case .beaconOffDistance: return .setting(.beaconOffDistance(number(command.slots["number"])))
        case .saveMarker: return .guidance(confirmingHeardName(.saveMarker(name: newName(command.slots, "name")), command.slots, "name"))
        case .stopRoute: return .guidance(.route(.stop))
        case .nextWaypoint: return .guidance(.route(.next))
        case .previousWaypoint: return .guidance(.route(.previous))
        case .routeProgress: return .guidance(.route(.progress))
        case .saveBeaconMarker, .addNote, .nudgeMarker, .listMarkers, .newRoute, .addPlaceToRoute, .addMarkerToRoute,
             .saveRoute, .reverseRoute, .routeRemaining, .confirm, .decline:
            if let request = markersAndRoutes(intent, command.slots) {
                return .guidance(confirmingHeardName(request, command.slots, intent == .newRoute || intent == .saveBeaconMarker ? "name" : ""))
            }
            return .post(UnavailableCommandEvent(words: command.words))
        case .setBeacon, .takeMeTo, .deleteMarker, .renameMarker, .startRoute:
            if let request = named(intent, command.slots) {
                return .guidance(intent == .renameMarker ? confirmingHeardName(request, command.slots, "new_name") : request)
            }
            return .post(UnavailableCommandEvent(words: command.words))
        case .findKind, .search, .choose, .chooseNext, .guideToChoice:
            if let request = found(intent, command.slots) { return .guidance(request) }
            return .post(UnavailableCommandEvent(words: command.words))
        case .cancel: return .undo
        case .redo: return .redo
        case .facing: return .facing(degrees(command.slots["direction"]))
        case .speakFaster: return .setting(.speechRate(faster: true))
        case .speakSlower: return .setting(.speechRate(faster: false))
        case .speechLouder: return .setting(.volume(.speech, louder: true))
        case .speechQuieter: return .setting(.volume(.speech, louder: false))
        case .beaconLouder: return .setting(.volume(.beacon, louder: true))
        case .beaconQuieter: return .setting(.volume(.beacon, louder: false))
        case .soundsLouder: return .setting(.volume(.sounds, louder: true))
        case .soundsQuieter: return .setting(.volume(.sounds, louder: false))
        case .speechVolume: return .setting(.setVolume(.speech, number(command.slots["number"])))
        case .beaconVolume: return .setting(.setVolume(.beacon, number(command.slots["number"])))
        case .soundVolume: return .setting(.setVolume(.sounds, number(command.slots["number"])))
        case .beaconStyle: return .setting(.beaconStyle(command.slots["style"]))
        case .beaconAngle: return .setting(.beaconAngle(number(command.slots["number"])))
        case .language: return .setting(.language(command.slots["language"]))
        case .placesOn: return .setting(.places(true))
        case .placesOff: return .setting(.places(false))
        case .mobilityOn: return .setting(.mobility(true))
        case .mobilityOff: return .setting(.mobility(false))
        case .beaconDistanceOn: return .setting(.beaconDistance(true))
        case .beaconDistanceOff: return .setting(.beaconDistance(false))
        case .startPreview: return .preview(.start(place: command.slots["place"].flatMap { $0.isEmpty ? nil : $0 }))
        case .endPreview: return .preview(.end)
        case .previewForward: return .preview(.move(.forward))
        case .previewTurnLeft: return .preview(.move(.turnLeft))
        case .previewTurnRight: return .preview(.move(.turnRight))
        case .previewTurnAround: return .preview(.move(.turnAround))
        case .previewBack: return .preview(.move(.back))
        case .repeatPrevious: return .post(RepeatCalloutEvent(earlier: true))
        case .listHistory: return .post(ListCalloutHistoryEvent(count: 5))
        }
    }

    /// "north", "north east" / "northeast" / "north-east" / "ne" → 0, 45, …; nil for anything else.
    static func degrees(_ direction: String?) -> Double? {
        guard let direction else { return nil }
        let key = direction.lowercased().filter(\.isLetter)
        let names = ["north": 0.0, "northeast": 45, "east": 90, "southeast": 135, "south": 180, "southwest": 225,
                     "west": 270, "northwest": 315, "n": 0, "ne": 45, "e": 90, "se": 135, "s": 180, "sw": 225, "w": 270, "nw": 315]
        return names[key]
    }

    /// The commands that need a place or a name; nil without it.
    static func named(_ intent: Intent, _ slots: [String: String]) -> GuidanceRequest? {
        func slot(_ key: String) -> String? { slots[key].flatMap { $0.isEmpty ? nil : $0 } }
        switch intent {
        // A place name the transcript heard outside the vocabulary ("text") goes before the nearest name PocketSphinx knew.
        case .setBeacon: return (heardText(slots) ?? slot("place")).map { .setBeacon(place: $0) }
        case .takeMeTo: return (heardText(slots) ?? slot("place")).map { .takeMeTo(place: $0) }
        case .deleteMarker: return slot("name").map { .deleteMarker(name: $0) }
        case .startRoute: return slot("name").map { .startRoute(name: $0) }
        case .renameMarker:
            guard let name = slot("name"), let newName = newName(slots, "new_name") else { return nil }
            return .renameMarker(name: name, newName: newName)
        default: return nil
        }
    }

    /// "Nearest pharmacy", "search kiasma", "number two", "the next one", "take me to number two"; nil without their
    /// kind, words or number.
    static func found(_ intent: Intent, _ slots: [String: String]) -> GuidanceRequest? {
        let place = slots["place"].flatMap { $0.isEmpty ? nil : $0 }
        let number = slots["number"].flatMap { Int($0) }
        switch intent {
        case .findKind: return place.map { .findKind($0) }
        case .search: return place.map { .search($0) }
        case .choose: return number.map { .choose($0) }
        case .chooseNext: return .choose(nil)
        case .guideToChoice: return .guideToChoice(number)
        default: return nil
        }
    }

    /// The transcript's own words for a name ("text" slot, spoken commands only), without the punctuation it wrote.
    static func heardText(_ slots: [String: String]) -> String? {
        guard let text = slots["text"]?.trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters)),
              !text.isEmpty else { return nil }
        return text
    }

    /// A marker or route name taken from the transcript is read back before it is saved ("Save as 'my dentist'? Say
    /// 'yes, save it' or 'no, keep it'"): the request waits for the answer. A name both recognizers heard as one of the listed names (the
    /// grammar's slot `key` has the same words), and every typed name, is taken at once.
    static func confirmingHeardName(_ request: GuidanceRequest, _ slots: [String: String], _ key: String) -> GuidanceRequest {
        guard !key.isEmpty, let text = heardText(slots) else { return request }
        if let listed = slots[key], SlotPhrase.spokenWords(listed) == SlotPhrase.spokenWords(text) { return request }
        return .confirmName(request, name: text)
    }

    /// A name the user gives something new: the free-text recognizer's words (the "text" slot) when it heard
    /// them, else the grammar's slot `key`; nil when neither has words.
    static func newName(_ slots: [String: String], _ key: String) -> String? {
        let listed = (slots[key]?.trimmingCharacters(in: .whitespaces)).flatMap { $0.isEmpty ? nil : $0 }
        if let text = heardText(slots), listed.map({ SlotPhrase.spokenWords($0) != SlotPhrase.spokenWords(text) }) ?? true { return text }
        return listed
    }

    /// The marker and route commands of issue 31; nil when a slot they need is missing.
    static func markersAndRoutes(_ intent: Intent, _ slots: [String: String]) -> GuidanceRequest? {
        func slot(_ key: String) -> String? { slots[key].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 } }
        switch intent {
        case .saveBeaconMarker: return .saveBeaconAsMarker(name: newName(slots, "name"))
        case .addNote: return slot("text").map { .addNote(text: $0, marker: slot("name")) }
        case .nudgeMarker:
            return .nudgeMarker(name: slot("name"), metres: number(slot("number")), bearing: degrees(slot("direction")))
        case .listMarkers: return .listMarkers
        case .newRoute: return newName(slots, "name").map { .newRoute(name: $0) }
        case .addPlaceToRoute: return .addPlaceToRoute
        case .addMarkerToRoute: return slot("name").map { .addMarkerToRoute(name: $0) }
        case .saveRoute: return .saveRoute
        case .reverseRoute: return .reverseRoute
        case .routeRemaining: return .route(.remaining)
        case .confirm: return .answer(yes: true)
        case .decline: return .answer(yes: false)
        default: return nil
        }
    }

    /// "10", "10 meters", "2,5", "twenty five metres" → the number its first words say.
    static func number(_ text: String?) -> Double? {
        let words = (text ?? "").replacingOccurrences(of: "-", with: " ").lowercased().split(separator: " ").map(String.init)
        guard let first = words.first else { return nil }
        if let value = Double(first.replacingOccurrences(of: ",", with: ".")) { return value }
        guard first != "a", first != "and" else { return nil }
        // The longest run of words from the start that is a number ("twenty five" of "twenty five metres").
        return (1...words.count).reversed().lazy.compactMap { NumberWords.value(of: Array(words.prefix($0))) }.first.map(Double.init)
    }
}

/// Which level a volume command changes.
public enum SoundLevel: String, Sendable, Equatable {
    case speech
    case beacon
    /// Earcons and other sounds.
    case sounds
}

/// A setting changed by voice (spec §8, §16).
public enum SettingCommand: Sendable, Equatable {
    /// One step (25 words a minute) faster or slower, within 80…450.
    case speechRate(faster: Bool)
    /// One step (10 percent) louder or quieter, within 0…100.
    case volume(SoundLevel, louder: Bool)
    /// Percent; nil when the number was not understood.
    case setVolume(SoundLevel, Double?)
    /// A built-in style name; nil when not understood.
    case beaconStyle(String?)
    /// Degrees, 5…20.
    case beaconAngle(Double?)
    /// Metres, 0…50.
    case beaconOffDistance(Double?)
    case units(UnitSystem)
    /// A language code ("de"); nil when not understood.
    case language(String?)
    /// All automatic callouts.
    case callouts(Bool)
    case places(Bool)
    case mobility(Bool)
    case beaconDistance(Bool)
}
