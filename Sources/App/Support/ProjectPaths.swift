import Foundation

/// Where the program finds its own files (grammars, models, sounds) and the user's data.
///
/// The installed layout and the source checkout are both supported: `SOUNDSCAPE_HOME` names the folder that
/// holds `Grammars/`, `Models/` and `Sounds/`; otherwise the folder of the executable and its parents are
/// searched (a `swift build` binary lives in `.build/<config>/`), then the current directory.
public struct ProjectPaths: Sendable, Equatable {
    public var home: URL
    /// Third-party data fetched by scripts/setup (`SOUNDSCAPE_DATA` overrides); nil: `.data` in `home`.
    public var dataOverride: URL?
    /// The RNNoise library `SOUNDSCAPE_ASR_RNNOISE` names ("off": none); nil: the fetched one.
    public var rnnoiseOverride: String?

    public init(home: URL, dataOverride: URL? = nil, rnnoiseOverride: String? = nil) {
        self.home = home
        self.dataOverride = dataOverride
        self.rnnoiseOverride = rnnoiseOverride
    }

    /// Called by ``AppEnvironment/read(_:executable:)``, the one reader of the environment.
    static func locate(environment: [String: String], executable: String) -> ProjectPaths {
        var paths = locateHome(environment: environment, executable: executable)
        paths.dataOverride = environment["SOUNDSCAPE_DATA"].map { URL(fileURLWithPath: $0) }
        paths.rnnoiseOverride = environment["SOUNDSCAPE_ASR_RNNOISE"]
        return paths
    }

    private static func locateHome(environment: [String: String], executable: String) -> ProjectPaths {
        if let explicit = environment["SOUNDSCAPE_HOME"] { return ProjectPaths(home: URL(fileURLWithPath: explicit)) }
        var candidates: [URL] = []
        var dir = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        // Installed (make install): PREFIX/bin/soundscape with PREFIX/share/soundscape beside it.
        candidates.append(dir.deletingLastPathComponent().appendingPathComponent("share/soundscape"))
        for _ in 0..<5 {
            candidates.append(dir)
            dir = dir.deletingLastPathComponent()
        }
        candidates.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        let found = candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("Grammars").path) }
        return ProjectPaths(home: found ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
    }

    public var grammars: URL { home.appendingPathComponent("Grammars") }
    public var models: URL { home.appendingPathComponent("Models") }
    public var sounds: URL { home.appendingPathComponent("Sounds") }
    public var extraDictionary: URL { models.appendingPathComponent("extra.dict") }
    /// Third-party data fetched by scripts/setup (`SOUNDSCAPE_DATA` overrides).
    public func data() -> URL {
        dataOverride ?? home.appendingPathComponent(".data")
    }
    /// The RNNoise library scripts/setup fetched (``NeuralNoiseSuppressor``), or the one
    /// `SOUNDSCAPE_ASR_RNNOISE` names; nil when that says "off" (for comparisons in the bench).
    public func rnnoiseLibrary() -> String? {
        if let chosen = rnnoiseOverride { return chosen == "off" ? nil : chosen }
        return data().appendingPathComponent("rnnoise/librnnoise.so").path
    }
    /// The second recognizer's library and Whisper model, built by scripts/setup (``WhisperTranscriber``).
    public func whisperLibrary() -> URL {
        data().appendingPathComponent("whisper/libsoundscape-whisper.so")
    }
    public func whisperModel() -> URL {
        data().appendingPathComponent("whisper/ggml-tiny.en.bin")
    }
    /// The bundled map extract (central Helsinki).
    public func bundledMapExtract() -> URL {
        data().appendingPathComponent("osm/Helsinki.osm.pbf")
    }
}
