import Audio
import Foundation
import MapData
import Speech

/// Makes the object graph of `soundscape run`, `say`, `listen` and `demo`: the map, the settings, the audio
/// output, guidance, the recognizer and the assistant. The command-line target only parses options into the
/// option values below and calls it.
public struct AppBuilder: Sendable {
    /// Where everything is, read from the environment once.
    public let environment: AppEnvironment

    public init(environment: AppEnvironment) { self.environment = environment }
}

/// The program should end with this status; what went wrong has already been said.
public struct AppExit: Error, Sendable {
    public var code: Int32
    public init(code: Int32) { self.code = code }
}

/// A value given on the command line cannot be used (a walk with no positions); the command line reports it as
/// a usage error.
public struct AppUsageError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

// The parts `run`, `say` and `demo` make alike.
extension AppBuilder {
    /// The settings file (`file`, else the environment's) and what it holds, with the problems found in it.
    func settings(file: String?) -> (store: SettingsStore, loaded: SettingsStore.Loaded) {
        let store = SettingsStore(path: file ?? environment.settingsFile)
        return (store, store.load())
    }

    /// Guidance with the user database (`userDb`, else the environment's) and the kinds of place beside the grammars.
    func guidance(map: SpatialDataView, mapPath: String, language: String, settings: Settings, userDb: String?,
                  engine: AudioEngine?, restoreBeacon: Bool = true,
                  problem: @escaping (String) -> Void = { printReply("Problem: \($0)") }) async -> GuidanceSetup {
        await GuidanceSetup(map: map, mapPath: mapPath, language: language, settings: settings,
                            userDatabase: userDb ?? environment.userDatabase, engine: engine, restoreBeacon: restoreBeacon,
                            kinds: kinds(), problem: problem)
    }

    /// The kinds of place a walker can ask for, beside the grammars (none when the table does not load).
    func kinds() -> KindTable {
        (try? KindTable.beside(grammars: environment.paths.grammars.path)) ?? .empty
    }

    /// The typed-command parser built from the grammars; nil, with the reason, when they do not load.
    func intentParser() -> (IntentParser?, String?) {
        Assistant.intentParser(grammars: environment.paths.grammars.path)
    }
}
