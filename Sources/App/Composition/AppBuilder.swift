import Foundation

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
