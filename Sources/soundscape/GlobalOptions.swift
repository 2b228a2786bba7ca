import App
import ArgumentParser
import Geo
import Foundation
import Logging

/// Options every subcommand takes.
struct GlobalOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Log what each part is doing (to standard error).")
    var verbose = false

    /// Sets up swift-log once: quiet (warnings and errors) by default, debug with --verbose.
    func bootstrapLogging() {
        let level: Logger.Level = verbose ? .debug : .warning
        LoggingBootstrap.once(level: level)
    }
}

enum LoggingBootstrap {
    private static let done = NSLock()
    nonisolated(unsafe) private static var bootstrapped = false

    static func once(level: Logger.Level) {
        done.lock()
        defer { done.unlock() }
        guard !bootstrapped else { return }
        bootstrapped = true
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

/// Parses "LAT,LON" as given to --at.
struct CoordinateArgument: ExpressibleByArgument {
    var latitude: Double
    var longitude: Double

    init?(argument: String) {
        let parts = argument.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]),
              (-90...90).contains(lat), (-180...180).contains(lon) else { return nil }
        latitude = lat
        longitude = lon
    }

    static var defaultCompletionKind: CompletionKind { .default }
}


extension CoordinateArgument {
    var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }
}

extension AppBuilder {
    /// Runs a command's object graph; its failures end the program with their status (the problem has been
    /// said), and a value that cannot be used is a usage error.
    static func commandLine(_ environment: AppEnvironment = .read(),
                            _ body: (AppBuilder) async throws -> Void) async throws {
        do {
            try await body(AppBuilder(environment: environment))
        } catch let exit as AppExit {
            throw ExitCode(exit.code)
        } catch let usage as AppUsageError {
            throw ValidationError(usage.description)
        }
    }
}
