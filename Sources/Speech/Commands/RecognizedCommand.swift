/// A command the user gave, by voice or typed: which intent, with which slot values.
///
/// Intent names and slots are the contract between the grammars (`Grammars/*.gram` tag each phrasing with
/// its intent) and the App's command map, which turns them into user-initiated events. See ``Intent``.
public struct RecognizedCommand: Sendable, Hashable, Codable {
    /// One of ``Intent``'s raw values, e.g. "where_am_i", "set_beacon".
    public var intent: String
    /// Slot values by slot name: "place", "name", "new_name", "number", "direction", "style", "language", "text".
    public var slots: [String: String]
    /// 0…1; how sure the recognizer is (1 for typed commands).
    public var confidence: Double
    /// The words as heard or typed, lower case.
    public var words: String

    public init(intent: String, slots: [String: String] = [:], confidence: Double = 1, words: String) {
        self.intent = intent
        self.slots = slots
        self.confidence = confidence
        self.words = words
    }

    public var knownIntent: Intent? { Intent(rawValue: intent) }
}

/// Every intent the program understands (Soundscape's actions, spoken). Slots are in brackets.
public enum Intent: String, Sendable, CaseIterable, Codable {
    // exploration
    case whereAmI = "where_am_i"
    case aroundMe = "around_me"
    case aheadOfMe = "ahead_of_me"
    case nearbyMarkers = "nearby_markers"
    // system
    case stop                       // hush: stop speech (and mute the beacon)
    case repeatLast = "repeat"
    case help
    case sleep
    case wake
    case snooze                     // "wake me when I leave"
    case calloutsOn = "callouts_on"
    case calloutsOff = "callouts_off"
    case gpsAccuracy = "gps_accuracy"
    case cancel                     // undo the last state change
    case redo                       // put back what the last "undo" took back
    case facing                     // "I am facing north" [direction]
    // beacon
    case setBeacon = "set_beacon"   // [place]
    case beaconHere = "beacon_here"
    case muteBeacon = "mute_beacon"
    case unmuteBeacon = "unmute_beacon"
    case whereIsBeacon = "where_is_beacon"
    case removeBeacon = "remove_beacon"
    case beaconOffDistance = "beacon_off_distance"   // [number] metres
    // markers
    case saveMarker = "save_marker"      // [name]?
    case deleteMarker = "delete_marker"  // [name]
    case renameMarker = "rename_marker"  // [name] [new_name]
    // routes
    case takeMeTo = "take_me_to"         // [place]
    case startRoute = "start_route"      // [name]
    case stopRoute = "stop_route"
    case nextWaypoint = "next_waypoint"
    case previousWaypoint = "previous_waypoint"
    case routeProgress = "route_progress"
    // places by kind and by name, and choosing from the list they answer
    case findKind = "find_kind"          // [place] a kind of Grammars/kinds.txt ("nearest pharmacy")
    case search                          // [place] a name or a kind ("search kiasma")
    case choose                          // [number] of the last list: the beacon goes there
    case chooseNext = "choose_next"      // "the next one"
    case guideToChoice = "guide_to_choice" // [number]? "take me to number two", "take me there"
    // markers and routes by voice (issue 31): new names come from [text] when a free-text recognizer gave one
    case saveBeaconMarker = "save_beacon_marker"    // [name]?
    case addNote = "add_note"                       // [text] [name]?
    case nudgeMarker = "nudge_marker"               // [number] metres [direction] [name]?
    case listMarkers = "list_markers"
    case newRoute = "new_route"                     // [name]
    case addPlaceToRoute = "add_place_to_route"
    case addMarkerToRoute = "add_marker_to_route"   // [name]
    case saveRoute = "save_route"
    case reverseRoute = "reverse_route"
    case routeRemaining = "route_remaining"         // "how far to the end"
    case confirm                                    // "yes, replace it"
    case decline                                    // "no, keep it"
    // settings
    case useMetric = "use_metric"
    case useImperial = "use_imperial"
    case speakFaster = "speak_faster"
    case speakSlower = "speak_slower"
    case beaconStyle = "beacon_style"    // [style]
    case beaconAngle = "beacon_angle"    // [number] degrees
    case language                        // [language]
    case speechLouder = "speech_louder"
    case speechQuieter = "speech_quieter"
    case speechVolume = "speech_volume"  // [number] percent
    case beaconLouder = "beacon_louder"
    case beaconQuieter = "beacon_quieter"
    case beaconVolume = "beacon_volume"  // [number] percent
    case soundsLouder = "sounds_louder"  // earcons
    case soundsQuieter = "sounds_quieter"
    case soundVolume = "sound_volume"    // [number] percent
    case placesOn = "places_on"          // callout categories
    case placesOff = "places_off"
    case mobilityOn = "mobility_on"
    case mobilityOff = "mobility_off"
    case beaconDistanceOn = "beacon_distance_on"
    case beaconDistanceOff = "beacon_distance_off"
    case quit
    // street preview and callout history
    case startPreview = "start_preview"        // [place]?: here without it
    case endPreview = "end_preview"
    case previewForward = "preview_forward"
    case previewTurnLeft = "preview_turn_left"
    case previewTurnRight = "preview_turn_right"
    case previewTurnAround = "preview_turn_around"
    case previewBack = "preview_back"
    case repeatPrevious = "repeat_previous"    // the callout before the last one repeated
    case listHistory = "list_history"          // the last five callouts
}
