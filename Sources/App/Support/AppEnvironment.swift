import Foundation

/// The one place that reads the process environment. It is read once, when a command starts; what it names
/// (the program's files, the user's data, the settings file, the control socket) is handed down as values.
///
/// `SOUNDSCAPE_HOME` and `SOUNDSCAPE_DATA` name the program's and the fetched files (``ProjectPaths``);
/// `XDG_DATA_HOME`, `XDG_CONFIG_HOME` and `XDG_RUNTIME_DIR` the user's; `SOUNDSCAPE_USER_DB` another user
/// database (tests); `DBUS_SYSTEM_BUS_ADDRESS` the bus with the compass; `SOUNDSCAPE_VOICE_RECORDINGS` a folder
/// for the utterances heard.
public struct AppEnvironment: Sendable, Equatable {
    /// The program's grammars, models, sounds and fetched data.
    public var paths: ProjectPaths
    /// `$XDG_DATA_HOME/soundscape`, falling back to `~/.local/share/soundscape`: where the program keeps its data.
    public var dataDirectory: String
    /// `$XDG_CONFIG_HOME/soundscape/config.toml`, else `~/.config/soundscape/config.toml`.
    public var settingsFile: String
    /// `$XDG_RUNTIME_DIR/soundscape/control.sock` (falls back to /tmp/soundscape-UID).
    public var controlSocket: String
    /// `$SOUNDSCAPE_USER_DB`, else `user.sqlite` in the data directory.
    public var userDatabase: String
    /// The D-Bus system bus, when the environment names one.
    public var systemBus: String?
    /// `$XDG_CACHE_HOME/soundscape`, falling back to `~/.cache/soundscape`: what setup and the bench fetch or make.
    public var cacheDirectory: String
    /// `$SOUNDSCAPE_VOICE_RECORDINGS`: a folder where `run` keeps each utterance as a WAV file (checking a microphone).
    public var voiceRecordings: String?

    /// The map database: `map.sqlite` in the data directory.
    public var mapDatabase: String { (dataDirectory as NSString).appendingPathComponent("map.sqlite") }
    /// Where each microphone's adaptation is kept: `microphones.json` in the data directory.
    public var microphoneAdaptation: String { (dataDirectory as NSString).appendingPathComponent("microphones.json") }

    public init(paths: ProjectPaths, dataDirectory: String, settingsFile: String, controlSocket: String,
                userDatabase: String? = nil, systemBus: String? = nil, voiceRecordings: String? = nil,
                cacheDirectory: String? = nil) {
        self.paths = paths
        self.dataDirectory = dataDirectory
        self.settingsFile = settingsFile
        self.controlSocket = controlSocket
        self.userDatabase = userDatabase ?? (dataDirectory as NSString).appendingPathComponent("user.sqlite")
        self.systemBus = systemBus
        self.voiceRecordings = voiceRecordings
        self.cacheDirectory = cacheDirectory ?? (NSHomeDirectory() as NSString).appendingPathComponent(".cache/soundscape")
    }

    /// The environment variable naming the user database (tests; `--user-db` wins).
    public static let userDatabaseVariable = "SOUNDSCAPE_USER_DB"

    /// Reads the environment (the process's unless given).
    public static func read(_ environment: [String: String] = ProcessInfo.processInfo.environment,
                            executable: String = CommandLine.arguments.first ?? "") -> AppEnvironment {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let home = value("HOME") ?? NSHomeDirectory()
        let dataBase = value("XDG_DATA_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (home as NSString).appendingPathComponent(".local/share")
        let configBase = value("XDG_CONFIG_HOME") ?? home + "/.config"
        let cacheBase = value("XDG_CACHE_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.cache"
        let runtime = value("XDG_RUNTIME_DIR") ?? "/tmp/soundscape-\(getuid())"
        return AppEnvironment(paths: ProjectPaths.locate(environment: environment, executable: executable),
                              dataDirectory: (dataBase as NSString).appendingPathComponent("soundscape"),
                              settingsFile: configBase + "/soundscape/config.toml",
                              controlSocket: (runtime as NSString).appendingPathComponent("soundscape/control.sock"),
                              userDatabase: value(userDatabaseVariable),
                              systemBus: value("DBUS_SYSTEM_BUS_ADDRESS"),
                              voiceRecordings: value("SOUNDSCAPE_VOICE_RECORDINGS"),
                              cacheDirectory: (cacheBase as NSString).appendingPathComponent("soundscape"))
    }
}
