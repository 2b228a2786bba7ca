import App
import Audio
import Foundation
import Speech
import Testing

/// Whisper's files missing, cut short or of another version: the program runs on PocketSphinx alone, says so once
/// (printed, and spoken as every problem is), `soundscape doctor` names the file and the fix, and nothing crashes.
/// Each fault is made in a data folder of the test's own: every part of the real one (RNNoise, the map extract,
/// the street recording) linked in, and only `whisper/` broken.
@Suite("Whisper's files broken", .serialized)
struct WhisperFaultTests {
    enum Fault: String, CaseIterable, CustomStringConvertible {
        case missingModel, truncatedModel, libraryOfAnotherVersion
        var description: String { rawValue }
    }

    /// A data folder like the real one with `whisper/` broken by `fault`; the text the problem must contain.
    static func dataFolder(with fault: Fault, in dir: URL) throws -> (folder: URL, says: String) {
        let real = TestServices.dataDirectory
        let library = real.appendingPathComponent("whisper/libsoundscape-whisper.so")
        let model = real.appendingPathComponent("whisper/ggml-tiny.en.bin")
        try #require(FileManager.default.fileExists(atPath: model.path) && FileManager.default.fileExists(atPath: library.path),
                     "scripts/setup builds \(library.path) and converts \(model.path)")
        let folder = dir.appendingPathComponent("data")
        let whisper = folder.appendingPathComponent("whisper")
        try FileManager.default.createDirectory(at: whisper, withIntermediateDirectories: true)
        for entry in try FileManager.default.contentsOfDirectory(atPath: real.path) where entry != "whisper" {
            try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent(entry), withDestinationURL: real.appendingPathComponent(entry))
        }
        let brokenLibrary = whisper.appendingPathComponent("libsoundscape-whisper.so")
        let brokenModel = whisper.appendingPathComponent("ggml-tiny.en.bin")
        switch fault {
        case .missingModel:
            try FileManager.default.createSymbolicLink(at: brokenLibrary, withDestinationURL: library)
            return (folder, "\(brokenModel.path) does not exist")
        case .truncatedModel:
            try FileManager.default.createSymbolicLink(at: brokenLibrary, withDestinationURL: library)
            // The first 3 MB: the header and the first tensors are whole, the rest is missing, as after a full disk.
            let handle = try FileHandle(forReadingFrom: model)
            let head = try handle.read(upToCount: 3_000_000) ?? Data()
            try handle.close()
            try head.write(to: brokenModel)
            return (folder, "\(brokenModel.path) is cut short")
        case .libraryOfAnotherVersion:
            try FileManager.default.createSymbolicLink(at: brokenModel, withDestinationURL: model)
            // A library that answers to the API version call with a version this program does not speak.
            let source = dir.appendingPathComponent("old.c")
            try "int ssw_api_version(void) { return 999; }\n".write(to: source, atomically: true, encoding: .utf8)
            let cc = Process()
            cc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            cc.arguments = ["cc", "-shared", "-fPIC", "-o", brokenLibrary.path, source.path]
            try cc.run()
            cc.waitUntilExit()
            try #require(cc.terminationStatus == 0, "cc could not build the test library")
            return (folder, "C API version 999")
        }
    }

    @Test(arguments: Fault.allCases)
    func doctorNamesTheFileAndTheFix(fault: Fault) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (folder, says) = try Self.dataFolder(with: fault, in: dir)
        let gpsd = try TestServices.gpsd()
        let result = try Soundscape.run(["doctor", "--gpsd", gpsd, "--db", Soundscape.helsinkiDatabase],
                                        environment: ["SOUNDSCAPE_DATA": folder.path])
        let line = try #require(result.stdout.split(separator: "\n").first { $0.contains("Whisper") }, "no Whisper line: \(result.stdout)")
        #expect(line.hasPrefix("WARN"), "\(line)")
        #expect(line.contains(says), "\(line)")
        #expect(line.contains("PocketSphinx alone"), "\(line)")
        #expect(line.contains("To fix: ") && line.contains("scripts/setup"), "\(line)")
        // A warning, not a failure: voice commands still work.
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
    }

    @Test(arguments: Fault.allCases)
    func listenDecidesWithPocketSphinxAloneAndSaysWhy(fault: Fault) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (folder, says) = try Self.dataFolder(with: fault, in: dir)
        let wav = try SpeechRecognitionSmokeTests.utterance("where am i", in: dir)
        let result = try Soundscape.run(["listen", "--file", wav.path, "--json"], environment: ["SOUNDSCAPE_DATA": folder.path])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout) \(result.stderr)")
        #expect(json["intent"] as? String == "where_am_i", "\(json) \(result.stderr)")
        #expect(json["transcript"] == nil, "\(json)")
        #expect(Self.count("PocketSphinx alone", in: result.stderr) == 1, "\(result.stderr)")
        #expect(result.stderr.contains(says), "\(result.stderr)")
    }

    /// The running assistant: the problem said once at the start, and a spoken command heard and answered. One
    /// fault is enough here: `run` loads Whisper as `listen` does (`SecondRecognizer.load`), and `listen` is tried
    /// above with every fault; each run of the assistant costs half a minute of real-time audio.
    @Test(arguments: [Fault.truncatedModel])
    func theAssistantRunsOnPocketSphinxAloneAndSaysSoOnce(fault: Fault) async throws {
        try TestServices.require()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (folder, says) = try Self.dataFolder(with: fault, in: dir)
        let utterance = try WAVFile.read(SpeechRecognitionSmokeTests.utterance("where am i", in: dir).path)
        let assistant = try await RunningAssistant.listening(dir: dir, environment: ["SOUNDSCAPE_DATA": folder.path])
        defer { assistant.stop() }
        // The problem is spoken at the start, after the greeting: let it finish before speaking to the assistant.
        _ = assistant.waitFor("PocketSphinx alone", timeout: 30)
        try await Task.sleep(for: .seconds(8))
        let recorder = SpeakerRecorder(seconds: 10, until: assistant.printed("voice: heard"))
        recorder.start()
        try ControlSocket.send("press", to: assistant.socket)
        let microphone = try PulseSimpleStream(direction: .playback, sampleRate: 16_000, channels: 1, device: TestServices.micSink,
                                               streamName: "test speaker", latency: 0.05)
        try microphone.write(utterance.samples)
        try await Task.sleep(for: .milliseconds(400))
        try ControlSocket.send("release", to: assistant.socket)
        let reply = await recorder.finish()
        let output = assistant.output
        #expect(assistant.process.isRunning, "the assistant stopped: \(output)")
        #expect(output.contains("voice: heard \"where am i\""), "the command was not heard: \(output)")
        #expect(reply.rms() > 0.001, "nothing was spoken into the speakers")
        let problems = output.split(separator: "\n").filter { $0.contains("Problem:") && $0.contains("PocketSphinx alone") }
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.contains(says) == true, "\(problems)")
    }

    static func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }
}
