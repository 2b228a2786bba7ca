import App
import Audio
import Foundation
import Geo
import Guidance
import Speech
import Testing

/// Coming back to a marker by voice (issue 31): `soundscape run` walks a simulated walk; at its start "mark this
/// place" is spoken into the virtual microphone, the walk goes on 300 m, and "take me to ⟨that marker's name⟩",
/// heard with the marker's name from the user database in the recognizer's vocabulary, starts guidance back to it.
@Suite("Markers by voice end to end", .serialized)
struct MarkerVoiceEndToEndTests {
    /// On Aleksanterinkatu, where VoiceEndToEndTests stand.
    static let start = VoiceEndToEndTests.here
    /// 300 m on, east-north-east (towards Senaatintori).
    static let end = start.destination(bearing: 75, distance: 300)

    /// A GPX walk: standing at `start` for `hold` seconds, walking at 1.4 m/s to `end`, standing there a little.
    static func walk(hold: Double) -> String { SimulatedWalk.gpx(from: start, to: end, hold: hold) }

    @Test func markThisPlaceWalkAwayAndTakeMeToItsNameStartsGuidanceBack() async throws {
        try TestServices.require()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 40× real time: 18 s at the start, the 300 m in about 5 s.
        let speed = 40.0
        let gpx = dir.appendingPathComponent("walk.gpx")
        try Self.walk(hold: 18 * speed).write(to: gpx, atomically: true, encoding: .utf8)
        let userDB = dir.appendingPathComponent("user.sqlite").path
        let socket = dir.appendingPathComponent("control.sock").path
        let log = dir.appendingPathComponent("run.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)

        let process = Process()
        process.executableURL = Soundscape.executable
        process.arguments = ["run", "--walk", gpx.path, "--speed", String(speed), "--db", Soundscape.helsinkiDatabase,
                             "--user-db", userDB, "--control-socket", socket, "--endpoint", "0.8", "--verbose"]
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": dir.path]) { $1 }
        let handle = try FileHandle(forWritingTo: log)
        process.standardInput = Pipe()
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        defer { if process.isRunning { process.terminate() }; process.waitUntilExit() }
        func output() -> String { String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self) }
        /// Waits until the log has `text` (at most `seconds`).
        func waitFor(_ text: String, seconds: Double) async -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if output().contains(text) { return true }
                try? await Task.sleep(for: .milliseconds(100))
            }
            return output().contains(text)
        }
        var ready = false
        for _ in 0..<150 where !ready {
            ready = (try? ControlSocket.send("status", to: socket)) != nil
            if !ready { try await Task.sleep(for: .milliseconds(100)) }
        }
        try #require(ready, "the assistant never opened its control socket: \(output())")

        /// Presses, speaks and lets the pause after the words end the utterance (`--endpoint`): under load the assistant
        /// reads the microphone late, and a release sent when the words have been played cut their end off.
        func say(_ text: String) async throws {
            let utterance = try WAVFile.read(SpeechRecognitionSmokeTests.utterance(text, in: dir).path)
            // A stream of its own each time: one left idle while the walk goes on starts late.
            let microphone = try PulseSimpleStream(direction: .playback, sampleRate: 16_000, channels: 1, device: TestServices.micSink,
                                                   streamName: "test speaker", latency: 0.05)
            func decided() -> Int { output().split(separator: "\n").filter { $0.contains("voice: heard") || $0.contains("voice: not understood") }.count }
            let before = decided()
            try ControlSocket.send("press", to: socket)
            var rng = SplitMix64(seed: 11)
            try microphone.write(utterance.samples + (0..<24_000).map { _ in Float(rng.gaussian() * 0.003) })
            try microphone.drain()
            // Heard or not understood; a release only if the pause did not end it.
            let deadline = Date().addingTimeInterval(30)
            while decided() == before && Date() < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            if Date() >= deadline { try ControlSocket.send("release", to: socket) }
        }

        // At the start of the walk.
        try await say("mark this place")
        #expect(await waitFor("voice: heard \"mark this place\"", seconds: 30), "\(output())")
        #expect(await waitFor("Marker created, ", seconds: 30), "\(output())")
        let marker = try #require(try UserStore(path: userDB).markers.all().first, "no marker saved: \(output())")
        #expect(marker.coordinate.distance(to: Self.start) < 15, "the marker is not where the walk started: \(marker.coordinate); \(output())")
        #expect(marker.name.hasPrefix("Marker at ") || marker.name.hasPrefix("Marker along "), "\(marker.name)")

        // 300 m on.
        #expect(await waitFor("the simulated walk ended", seconds: 60), "the walk did not end: \(output())")
        let words = SlotPhrase.spokenWords(marker.name).joined(separator: " ")
        try await say("take me to \(words)")
        #expect(await waitFor("voice: heard \"take me to \(words)\"", seconds: 30), "the marker's name was not heard: \(output())")
        let summary = "Walking route to \(marker.name), "
        #expect(await waitFor(summary, seconds: 20), "no guidance back to \(marker.name): \(output())")
        // The route starts where the walk ended: some 300 m from the marker along the streets.
        let line = output().split(separator: "\n").first { $0.contains(summary) }.map(String.init) ?? ""
        let metres = line.components(separatedBy: summary).last.flatMap { Double($0.prefix { $0.isNumber }) } ?? 0
        #expect((250...700).contains(metres), "\(line)")
    }
}
