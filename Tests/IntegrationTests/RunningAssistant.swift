import App
import Audio
import Foundation
import Geo
import Testing

/// `soundscape run` as a child process, used as a person would: typed lines on its standard input, or speech
/// into the test microphone while push-to-talk is held on its control socket. What it prints (and, with
/// `logs`, what it logs) is collected in a file in `dir` and read with ``output``.
final class RunningAssistant {
    let process = Process()
    let dir: URL
    /// Its control socket (used when the arguments name it, as ``listening(dir:at:heading:extraArguments:)``'s do).
    let socket: String
    private let input = Pipe()
    private let log: URL
    private let ownsDir: Bool

    /// `arguments` after `soundscape`; `environment` is added to the test's (markers and routes go to a scratch
    /// database unless it says otherwise); with `logs`, the log lines (stderr) go into ``output`` too.
    convenience init(_ arguments: [String], environment: [String: String] = [:], logs: Bool = false) throws {
        try self.init(arguments: arguments, environment: ["SOUNDSCAPE_USER_DB": Soundscape.scratchUserDatabase].merging(environment) { $1 },
                      logs: logs, dir: nil)
    }

    private init(arguments: [String], environment: [String: String], logs: Bool, dir: URL?) throws {
        ownsDir = dir == nil
        self.dir = dir ?? FileManager.default.temporaryDirectory.appendingPathComponent("soundscape-run-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: self.dir, withIntermediateDirectories: true)
        socket = self.dir.appendingPathComponent("control.sock").path
        log = self.dir.appendingPathComponent("run.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = Soundscape.executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = logs ? handle : FileHandle.nullDevice
        process.standardInput = input
        try process.run()
    }

    /// `soundscape run` at `place` facing `heading`, listening to the default source (the test microphone), with
    /// settings and data of its own in `dir` (so no microphone adaptation but what the test puts there, and no
    /// setting changed by voice reaches another test). Returns once the control socket answers, the listener reads
    /// the microphone (with the names of the grammar in place), and `settle` has passed: the default lets most of the
    /// greeting and the first callouts be spoken, for a test that records the speakers; one that only reads what the
    /// assistant prints needs no more than a moment.
    static func listening(dir: URL, at place: Coordinate = VoiceEndToEndTests.here, heading: Double = 90,
                          extraArguments: [String] = [], environment: [String: String] = [:],
                          settle: Duration = .seconds(4)) async throws -> RunningAssistant {
        let socket = dir.appendingPathComponent("control.sock").path
        let run = try RunningAssistant(
            arguments: ["run", "--at", "\(place.latitude),\(place.longitude)", "--heading", "\(heading)",
                        "--db", Soundscape.helsinkiDatabase, "--control-socket", socket, "--verbose"] + extraArguments,
            environment: ["XDG_DATA_HOME": dir.path, "XDG_CONFIG_HOME": dir.path].merging(environment) { $1 }, logs: true, dir: dir)
        var ready = false
        for _ in 0..<300 where !ready {
            ready = (try? ControlSocket.send("status", to: socket)) != nil
            if !ready { try await Task.sleep(for: .milliseconds(100)) }
        }
        if !ready { run.stop() }
        try #require(ready, "the assistant never opened its control socket: \(run.output)")
        try #require(run.waitFor("voice: ready", timeout: 30), "the listener never read the microphone: \(run.output)")
        try await Task.sleep(for: settle)
        return run
    }

    var output: String { String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self) }

    /// Whether the output has `text` yet, asked from another thread (a ``SpeakerRecorder``'s).
    func printed(_ text: String) -> @Sendable () -> Bool {
        { [log] in String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self).contains(text) }
    }

    /// Types `line` and Enter.
    func type(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Types `line` and waits for its answer to satisfy `accept`, typing it again every `every` seconds (a heading
    /// arrives in its own time) until `timeout`; returns the last answer's lines (those printed after it was typed).
    func ask(_ line: String, every: Double = 1.5, timeout: Double = 20, until accept: ([String]) -> Bool) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var answer: [String] = []
        while Date() < deadline {
            let start = output.utf8.count
            type(line)
            let next = Date().addingTimeInterval(every)
            while Date() < next {
                Thread.sleep(forTimeInterval: 0.05)
                let text = output
                answer = String(decoding: Array(text.utf8).dropFirst(start), as: UTF8.self)
                    .split(separator: "\n").map(String.init).filter { !$0.isEmpty }
                if accept(answer) { return answer }
            }
        }
        return answer
    }

    /// Waits until the output has `text` (an event, not a fixed time), at most `timeout` seconds.
    func waitFor(_ text: String, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline && !output.contains(text) { Thread.sleep(forTimeInterval: 0.05) }
        return output.contains(text)
    }

    /// A stream into the test microphone (the harness's `micsink`, whose monitor is the default source).
    static func microphone() throws -> PulseSimpleStream {
        try PulseSimpleStream(direction: .playback, sampleRate: 16_000, channels: 1, device: TestServices.micSink,
                              streamName: "test speaker", latency: 0.05)
    }

    /// `text` spoken by espeak-ng at 16 kHz.
    func speech(_ text: String) throws -> PCMBuffer {
        try WAVFile.read(SpeechRecognitionSmokeTests.utterance(text, in: dir).path)
    }

    /// Holds push-to-talk while `samples` play into the microphone, and a little longer for the last of them to reach
    /// the assistant.
    func pushToTalk(_ samples: [Float], through microphone: PulseSimpleStream) async throws {
        try ControlSocket.send("press", to: socket)
        try microphone.write(samples)
        try microphone.drain()
        try await Task.sleep(for: .milliseconds(400))
        try ControlSocket.send("release", to: socket)
    }

    /// Says `text` with push-to-talk (a stream of its own for each utterance), then waits until the output has
    /// `answer` (an event, not a fixed time: the machine may be busy), for at most 30 s.
    func say(_ text: String, thenWaitFor answer: String) async throws {
        try await pushToTalk(speech(text).samples, through: Self.microphone())
        for _ in 0..<300 where !output.contains(answer) { try await Task.sleep(for: .milliseconds(100)) }
    }

    /// Ends the process (and removes the folder it made).
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        if ownsDir { try? FileManager.default.removeItem(at: dir) }
    }

    /// Types "quit" and returns the exit status.
    func quit() -> Int32 {
        type("quit")
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        if ownsDir { try? FileManager.default.removeItem(at: dir) }
        return process.terminationStatus
    }
}
