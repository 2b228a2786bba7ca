import Foundation
import Speech

/// FALLBACK ONLY: a small table of exact phrases for typed commands (`run` on the keyboard, `say`), used until
/// the grammar-driven intent parser of the Speech stage is wired in; it will replace this.
public enum TypedCommandFallback {
    static let exact: [String: Intent] = [
        "where am i": .whereAmI, "my location": .whereAmI, "location": .whereAmI, "where am i now": .whereAmI,
        "around me": .aroundMe, "what's around me": .aroundMe, "around": .aroundMe,
        "what's ahead": .aheadOfMe, "ahead of me": .aheadOfMe, "ahead": .aheadOfMe, "what's ahead of me": .aheadOfMe,
        "nearby markers": .nearbyMarkers, "markers": .nearbyMarkers, "my markers nearby": .nearbyMarkers,
        "repeat": .repeatLast, "say again": .repeatLast, "say that again": .repeatLast, "what was that": .repeatLast,
        "stop": .stop, "hush": .stop, "quiet": .stop, "be quiet": .stop,
        "help": .help, "what can i say": .help, "commands": .help,
        "sleep": .sleep, "go to sleep": .sleep,
        "wake up": .wake, "wake": .wake,
        "snooze": .snooze, "wake me when i leave": .snooze, "wake up when i leave": .snooze,
        "callouts on": .calloutsOn, "callouts off": .calloutsOff, "mute callouts": .calloutsOff,
        "gps accuracy": .gpsAccuracy,
        "where is the beacon": .whereIsBeacon, "beacon distance": .whereIsBeacon,
        "mute beacon": .muteBeacon, "unmute beacon": .unmuteBeacon, "remove beacon": .removeBeacon, "clear beacon": .removeBeacon,
        "beacon here": .beaconHere, "mark this place": .saveMarker, "save marker": .saveMarker,
        "stop route": .stopRoute, "end route": .stopRoute, "next waypoint": .nextWaypoint,
        "previous waypoint": .previousWaypoint, "route progress": .routeProgress,
        "use metric": .useMetric, "use imperial": .useImperial,
        "speak faster": .speakFaster, "speak slower": .speakSlower,
        "cancel": .cancel, "undo": .cancel, "redo": .redo,
        "quit": .quit, "exit": .quit, "goodbye": .quit,
    ]

    /// Commands that take a name after fixed words ("set beacon on Stockmann").
    static let prefixes: [(String, Intent, String)] = [
        ("set beacon on ", .setBeacon, "place"), ("set a beacon on ", .setBeacon, "place"), ("set the beacon on ", .setBeacon, "place"),
        ("beacon on ", .setBeacon, "place"), ("guide me to ", .setBeacon, "place"),
        ("take me to ", .takeMeTo, "place"), ("navigate to ", .takeMeTo, "place"), ("route to ", .takeMeTo, "place"),
        ("beacon off distance ", .beaconOffDistance, "number"), ("mute beacon within ", .beaconOffDistance, "number"), ("save marker as ", .saveMarker, "name"), ("delete marker ", .deleteMarker, "name"),
        ("start route ", .startRoute, "name"), ("i am facing ", .facing, "direction"), ("facing ", .facing, "direction"),
        ("language ", .language, "language"), ("beacon style ", .beaconStyle, "style"),
    ]

    /// Lower case, punctuation and extra spaces removed, "what is" → "what's".
    public static func normalize(_ text: String) -> String {
        var s = text.lowercased().trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters))
        s = s.replacingOccurrences(of: "what is", with: "what's").replacingOccurrences(of: "whats ", with: "what's ")
        return s.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The command for typed text, or nil when the table does not have it.
    public static func parse(_ text: String) -> RecognizedCommand? {
        let words = normalize(text)
        if let intent = exact[words] { return RecognizedCommand(intent: intent.rawValue, words: words) }
        for (prefix, intent, slot) in prefixes where words.hasPrefix(prefix) && words.count > prefix.count {
            // The name as typed (case kept): the words after the prefix's words.
            let typed = text.trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters)).split(whereSeparator: \.isWhitespace)
            let value = typed.dropFirst(prefix.split(separator: " ").count).joined(separator: " ")
            return RecognizedCommand(intent: intent.rawValue, slots: [slot: value], words: words)
        }
        return nil
    }
}
