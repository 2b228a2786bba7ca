import Foundation
import ProcessTestSupport
import Testing

/// `soundscape run` started as a user starts it, with a scratch user database, settings file and runtime folder
/// of its own, so that nothing a test does reaches the real ones.
struct SoundscapeRun {
    let child: ChildProcess
    let directory: URL

    static func start(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws -> SoundscapeRun {
        let runtime = directory.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        chmod(runtime.path, 0o700)
        var env = ["SOUNDSCAPE_USER_DB": directory.appendingPathComponent("user.sqlite").path,
                   "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path,
                   "XDG_RUNTIME_DIR": runtime.path]
        env.merge(environment) { $1 }
        let child = try ChildProcess([Harness.soundscape, "run"] + arguments, environment: env)
        return SoundscapeRun(child: child, directory: directory)
    }

    /// Types a command and waits for a new line of output after it (true when one came).
    @discardableResult
    func ask(_ command: String, expecting text: String? = nil, timeout: Double = 20) async -> Bool {
        let before = child.stdout
        child.type(command)
        let answered = await child.waitForOutput(timeout: timeout) { now in
            guard now.count > before.count else { return false }
            let added = String(now.dropFirst(before.count))
            return text.map { added.contains($0) } ?? added.contains("\n")
        }
        if !answered {
            // For the log of a failed run: what the program had said, and whether it was still running.
            print("""
                \(command) → no \(text.map { "\"\($0)\"" } ?? "new line") within \(timeout) s (running: \(child.isRunning)); \
                output since: \(child.stdout.dropFirst(before.count).suffix(3000)); standard error: \(child.stderr.suffix(2000))
                """)
        }
        return answered
    }

    /// Types "quit" and checks that the program ends with status 0 within `timeout` seconds and printed no sign of a crash.
    func quitsCleanly(timeout: Double = 30, sourceLocation: SourceLocation = #_sourceLocation) async {
        child.type("quit")
        let end = await child.wait(timeout: timeout)
        #expect(end.exitCode == 0, "\(end): \(child.stdout)\(child.stderr)", sourceLocation: sourceLocation)
        #expect(Self.crashSigns(child.stdout + child.stderr).isEmpty, "\(child.stderr)", sourceLocation: sourceLocation)
    }

    /// Output that says something crashed: a Swift runtime trap, a signal, a backtrace.
    static func crashSigns(_ text: String) -> [String] {
        ["Fatal error", "Crash", "Segmentation fault", "Illegal instruction", "💣", "Backtrace", "Thread 0 crashed"]
            .filter { text.contains($0) }
    }
}

/// The reply to "where am i" at the test position (north side of the Esplanadi park, facing east).
enum TestPlace {
    static let at = "60.16772,24.94600"
    static let heading = "90"
    static let whereAmI = "Pohjoisesplanadi"

    static var nmeaFixture: String {
        Harness.packageRoot.appendingPathComponent("Tests/Fixtures/rautatientori-walk.nmea").path
    }
}
