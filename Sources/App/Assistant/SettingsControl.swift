import Audio
import Foundation

/// What the assistant may do to the settings: read the ones in force, and put changed ones in force — applied
/// to the running audio at once and saved to the settings file the program was started with.
public protocol SettingsControl: Sendable {
    /// The settings in force now.
    func current() async -> Settings
    /// Puts `settings` in force and saves them. Returns the problem when the file could not be written; the
    /// change applies for this session all the same.
    func apply(_ settings: Settings) async -> String?
}

/// The settings the audio engine can take while it runs: speech voice and rate, and the levels.
public protocol LiveAudioSettings: Sendable {
    func setVoice(_ voice: VoiceSettings)
    func setLevels(_ levels: AudioLevels)
}

extension AudioEngine: LiveAudioSettings {}

/// The settings of a running program: the current values, the file they are saved to (atomically, by
/// ``SettingsStore/save(_:)``), and the audio engine that plays with them.
public actor LiveSettings: SettingsControl {
    /// nil: changes hold for this session only (nothing is saved).
    public nonisolated let store: SettingsStore?
    private var settings: Settings
    private let audio: (any LiveAudioSettings)?

    public init(store: SettingsStore?, settings: Settings, audio: (any LiveAudioSettings)?) {
        self.store = store
        self.settings = settings
        self.audio = audio
    }

    public func current() -> Settings { settings }

    public func apply(_ next: Settings) -> String? {
        let before = settings
        settings = next
        if let audio {
            if before.voice != next.voice || before.speechRate != next.speechRate {
                audio.setVoice(Self.voice(next))
            }
            if before.speechVolume != next.speechVolume || before.beaconVolume != next.beaconVolume
                || before.soundVolume != next.soundVolume {
                audio.setLevels(Self.levels(next))
            }
        }
        guard let store else { return nil }
        do {
            try store.save(next)
            return nil
        } catch {
            return "\(store.path): cannot save the settings (\(Self.reason(error))); the change holds until the program ends"
        }
    }

    /// The voice the settings ask for.
    public static func voice(_ s: Settings) -> VoiceSettings { VoiceSettings(voice: s.voice, rate: s.speechRate) }

    /// The levels the settings ask for (0…1).
    public static func levels(_ s: Settings) -> AudioLevels {
        AudioLevels(speech: Float(s.speechVolume) / 100, beacon: Float(s.beaconVolume) / 100, earcons: Float(s.soundVolume) / 100)
    }

    static func reason(_ error: any Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
           let code = POSIXErrorCode(rawValue: Int32(underlying.code)) {
            return String(cString: strerror(code.rawValue))
        }
        if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
        return ns.localizedDescription
    }
}
