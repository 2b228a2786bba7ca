import Audio
import Callouts
import Foundation
import Guidance

/// Every user setting (Soundscape's settings, adapted to Linux), with its default and allowed values.
/// Stored as TOML at `$XDG_CONFIG_HOME/soundscape/config.toml`; every setting can also be changed by voice.
public struct Settings: Sendable, Equatable {
    // speech and sound
    public var units: UnitSystem = .metric
    public var language: String = "en"                  // en | de
    public var voice: String = "en-us"                  // an espeak-ng voice name
    public var speechRate: Int = 175                    // words per minute, 80…450
    public var speechVolume: Int = 75                   // 0…100
    public var beaconVolume: Int = 75                   // 0…100
    public var soundVolume: Int = 75                    // earcons, 0…100
    // beacon
    public var beaconStyle: String = "Chime"            // a built-in style name
    public var beaconOffDistance: Int = 15              // metres, 0…50 (arrival: the beacon goes quiet)
    public var beaconDelayedStart: Int = 0              // metres; 0: the beacon sounds at once
    public var beaconRingingAngle: Int = 15             // degrees, 5…20
    public var beaconMelodies: Bool = false             // start/end melodies
    // callouts
    public var callouts: Bool = true                    // master switch for automatic callouts
    public var placesAndLandmarks: Bool = true
    public var mobility: Bool = true                    // also safety and intersections
    public var beaconDistance: Bool = true              // distance updates to the beacon
    // route guidance
    public var speakStreetNames: Bool = true
    public var decimalSeparator: String = ""            // empty: the language's own
    public var announcementOutput: AnnouncementOutput = .text
    // input and devices
    public var pushToTalkKey: String = "KEY_RIGHTCTRL"  // evdev key name
    public var wakeWord: String = ""                    // empty: off; e.g. "hey soundscape"
    public var audioSink: String = ""                   // PulseAudio sink; empty: default
    public var audioSource: String = ""                 // PulseAudio source; empty: default
    public var hrtf: String = "/usr/share/libmysofa/MIT_KEMAR_normal_pinna.sofa"
    // data
    public var gpsd: String = "127.0.0.1:2947"
    public var mapDatabase: String = ""                 // empty: $XDG_DATA_HOME/soundscape/map.sqlite
    public var tileService: String = ""                 // Soundscape tile service used outside the map; empty: none

    public init() {}
}

/// A setting's name in the file, what values it takes, and how to read and write it.
public struct SettingKey: Sendable {
    public enum Kind: Sendable {
        case choice([String])
        case integer(ClosedRange<Int>, step: Int)
        case boolean
        case text
    }

    public let name: String
    public let kind: Kind
    let get: @Sendable (Settings) -> SettingValue
    let set: @Sendable (inout Settings, SettingValue) -> Void

    /// "one of metric, imperial", "a whole number from 0 to 50 in steps of 5", …
    public var allowed: String {
        switch kind {
        case .choice(let values): return "one of " + values.joined(separator: ", ")
        case .integer(let range, let step):
            return "a whole number from \(range.lowerBound) to \(range.upperBound)" + (step > 1 ? " in steps of \(step)" : "")
        case .boolean: return "true or false"
        case .text: return "text"
        }
    }
}

public enum SettingValue: Sendable, Equatable {
    case text(String)
    case integer(Int)
    case boolean(Bool)
}

extension Settings {
    /// Every key, in the order the file lists them.
    public static let keys: [SettingKey] = [
        choice("units", \.units),
        choice("language", ["en", "de"], \.language),
        text("voice", \.voice),
        integer("speech_rate", 80...450, step: 1, \.speechRate),
        integer("speech_volume", 0...100, step: 1, \.speechVolume),
        integer("beacon_volume", 0...100, step: 1, \.beaconVolume),
        integer("sound_volume", 0...100, step: 1, \.soundVolume),
        choice("beacon_style", BeaconStyle.builtInNames, \.beaconStyle),
        integer("beacon_off_distance", 0...50, step: 1, \.beaconOffDistance),
        integer("beacon_delayed_start", 0...500, step: 1, \.beaconDelayedStart),
        integer("beacon_ringing_angle", 5...20, step: 1, \.beaconRingingAngle),
        boolean("beacon_melodies", \.beaconMelodies),
        boolean("callouts", \.callouts),
        boolean("places_and_landmarks", \.placesAndLandmarks),
        boolean("mobility", \.mobility),
        boolean("beacon_distance", \.beaconDistance),
        boolean("speak_street_names", \.speakStreetNames),
        choice("decimal_separator", ["", ".", ","], \.decimalSeparator),
        choice("announcement_output", \.announcementOutput),
        text("push_to_talk_key", \.pushToTalkKey),
        text("wake_word", \.wakeWord),
        text("audio_sink", \.audioSink),
        text("audio_source", \.audioSource),
        text("hrtf", \.hrtf),
        text("gpsd", \.gpsd),
        text("map_database", \.mapDatabase),
        text("tile_service", \.tileService),
    ]

    public static func key(named name: String) -> SettingKey? { keys.first { $0.name == name } }

    private static func choice(_ name: String, _ values: [String], _ path: any WritableKeyPath<Settings, String> & Sendable) -> SettingKey {
        SettingKey(name: name, kind: .choice(values), get: { .text($0[keyPath: path]) },
                   set: { s, v in if case .text(let t) = v { s[keyPath: path] = t } })
    }
    /// A choice among an enumeration's cases, written as their raw values.
    private static func choice<Value>(_ name: String, _ path: any WritableKeyPath<Settings, Value> & Sendable) -> SettingKey
        where Value: RawRepresentable & CaseIterable & Sendable, Value.RawValue == String {
        SettingKey(name: name, kind: .choice(Value.allCases.map(\.rawValue)), get: { .text($0[keyPath: path].rawValue) },
                   set: { s, v in if case .text(let t) = v, let value = Value(rawValue: t) { s[keyPath: path] = value } })
    }
    private static func text(_ name: String, _ path: any WritableKeyPath<Settings, String> & Sendable) -> SettingKey {
        SettingKey(name: name, kind: .text, get: { .text($0[keyPath: path]) },
                   set: { s, v in if case .text(let t) = v { s[keyPath: path] = t } })
    }
    private static func integer(_ name: String, _ range: ClosedRange<Int>, step: Int, _ path: any WritableKeyPath<Settings, Int> & Sendable) -> SettingKey {
        SettingKey(name: name, kind: .integer(range, step: step), get: { .integer($0[keyPath: path]) },
                   set: { s, v in if case .integer(let i) = v { s[keyPath: path] = i } })
    }
    private static func boolean(_ name: String, _ path: any WritableKeyPath<Settings, Bool> & Sendable) -> SettingKey {
        SettingKey(name: name, kind: .boolean, get: { .boolean($0[keyPath: path]) },
                   set: { s, v in if case .boolean(let b) = v { s[keyPath: path] = b } })
    }

    public func value(of key: SettingKey) -> SettingValue { key.get(self) }

    /// Sets a key after checking the value against what the key allows.
    public mutating func set(_ key: SettingKey, to value: SettingValue) throws(SettingError) {
        try key.validate(value)
        key.set(&self, value)
    }
}

/// A rejected setting: names the key, the value and what would be allowed.
public struct SettingError: Error, CustomStringConvertible, Equatable, Sendable {
    public var key: String
    public var value: String
    public var allowed: String
    public var file: String?
    public var line: Int?

    public var description: String {
        let place = file.map { f in line.map { "\(f):\($0): " } ?? "\(f): " } ?? ""
        return "\(place)\(key) = \(value) is not allowed; \(key) takes \(allowed). Using the previous value."
    }
}

extension SettingKey {
    func validate(_ value: SettingValue) throws(SettingError) {
        func fail(_ shown: String) -> SettingError { SettingError(key: name, value: shown, allowed: allowed) }
        switch (kind, value) {
        case (.choice(let values), .text(let t)):
            guard values.contains(t) else { throw fail("\"\(t)\"") }
        case (.integer(let range, let step), .integer(let i)):
            guard range.contains(i), (i - range.lowerBound) % step == 0 else { throw fail(String(i)) }
        case (.boolean, .boolean), (.text, .text):
            return
        case (_, .text(let t)): throw fail("\"\(t)\"")
        case (_, .integer(let i)): throw fail(String(i))
        case (_, .boolean(let b)): throw fail(String(b))
        }
    }
}

extension Settings {
    /// The same settings with other units, for a command-line override.
    public func with(units: UnitSystem) -> Settings {
        var copy = self
        copy.units = units
        return copy
    }
}
