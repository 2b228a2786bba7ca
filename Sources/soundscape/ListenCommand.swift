import App
import ArgumentParser
import Audio
import Foundation
import Geo
import MapData
import Speech

struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Recognize a spoken command from a WAV file with the same recognizer as live input.",
        discussion: """
            The recognizer is the one `soundscape run` listens with: the grammars in Grammars/, the names of \
            places within a kilometre of --at (from the map database), generated pronunciations and the same \
            rejection of out-of-grammar speech. Example: soundscape listen --file cmd.wav --at 60.1699,24.9410 --json
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "WAV file (16-bit PCM or float, any rate; stereo is mixed down).")
    var file: String

    @Option(help: "Where the user is (LAT,LON): names of places nearby can be recognized.")
    var at: CoordinateArgument?

    @Option(help: "The direction the user faces, degrees from north (with --answer).")
    var heading: Double?

    @Flag(help: "Then answer the recognized command at --at, facing --heading, as `soundscape say` would (printed and spoken).")
    var answer = false

    @Flag(help: "With --answer: print the answer without speaking it.")
    var quiet = false

    @Option(help: "Map database (for place names near --at).")
    var db: String?

    @Option(help: "Grammar folder or .gram file to use instead of Grammars/.")
    var grammar: String?

    @Flag(help: "Print one JSON object: text, intent, slots, confidence — or \"rejected\": true.")
    var json = false

    @Flag(help: "Listen as while the assistant is asleep: only \"wake up\" can be heard (\"wake up\" cannot while it is awake).")
    var asleep = false

    func run() async throws {
        global.bootstrapLogging()
        let audio = try WAVFile.read(file)
        let samples = Self.speechInput(audio)
        let paths = try ProjectPaths.locate()
        let recognizer = try CommandRecognizer(paths: paths, grammarPath: grammar)
        let second = SecondRecognizer.load(paths: paths)
        if let problem = second.problem { printError("Problem: \(problem)") }
        if let at {
            let map = try SpatialDataView(path: db ?? MapPaths.defaultDatabase())
            let here = Coordinate(latitude: at.latitude, longitude: at.longitude)
            try recognizer.recognizer.setPhrases(NearbyPlaceNames.phrases(map: map, near: here), for: "places")
            try recognizer.recognizer.setPhrases(LandmarkNames.phrases(map: map), for: "landmarks")
        }
        try recognizer.recognizer.setListeningState(asleep ? .asleep : .awake)
        let started = ContinuousClock.now
        var result = try recognizer.recognize(samples)
        let decoding = ContinuousClock.now - started
        // The second recognizer on the same audio, and one decision from both.
        var report: TwoRecognizerReport?
        if let opinion = second.secondOpinion {
            opinion.prepare(from: recognizer.recognizer)
            let decided = opinion.decide(samples: samples, first: result, state: asleep ? .asleep : .awake)
            report = decided
            if let problem = decided.problem { printError("Problem: \(problem)") }
            result.command = decided.decision.command
            if decided.decision.command == nil { result.rejection = decided.decision.outcome == .askAgain ? "say that again: \(decided.decision.reason)" : decided.decision.reason }
        }
        if global.verbose {
            // How long decoding took (the grammar's size and the names spliced into it decide it).
            let ms = Double(decoding.components.seconds) * 1000 + Double(decoding.components.attoseconds) / 1e15
            FileHandle.standardError.write(Data("decoded \(String(format: "%.2f", result.duration)) s of speech in \(String(format: "%.0f", ms)) ms\n".utf8))
            // What PocketSphinx's confidence was worked out from.
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let features = (try? encoder.encode(result.features)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            FileHandle.standardError.write(Data("features: \(features)\n".utf8))
        }
        if json {
            printReply(Self.json(result, report: report))   // straight to the output, before any answer
        } else if let command = result.command {
            let slots = command.slots.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            printReply("\(command.words)\t\(command.intent)\(slots.isEmpty ? "" : "\t" + slots)\tconfidence \(String(format: "%.2f", command.confidence))")
        } else {
            printReply("(not understood: \(result.rejection ?? "rejected")\(result.text.isEmpty ? "" : "; heard \"\(result.text)\""))")
        }
        // The same answer `say` gives: the recognized words go through the same grammars and pipeline.
        if answer, let command = result.command, let at {
            var arguments = [command.words, "--at", "\(at.latitude),\(at.longitude)"]
            if let heading { arguments += ["--heading", "\(heading)"] }
            if let db { arguments += ["--db", db] }
            if quiet { arguments.append("--quiet") }
            let say = try SayCommand.parse(arguments)
            try await say.run()
        }
    }

    func validate() throws {
        if answer && at == nil { throw ValidationError("--answer needs --at LAT,LON (where the answer is given)") }
    }

    /// The outcome; with a second recognizer also what each heard, the snap and the decision
    /// (`pocketsphinx`, `transcript`, `snapped`, `snap_distance`, `decision`).
    static func json(_ result: VoiceResult, report: TwoRecognizerReport? = nil) -> String {
        struct First: Encodable { var text: String; var intent: String?; var confidence: Double }
        struct Accepted: Encodable {
            var text: String; var intent: String; var slots: [String: String]; var confidence: Double
            var pocketsphinx: First?; var transcript: String?; var snapped: String?; var snap_distance: Double?; var transcript_log_probability: Double?; var decision: String?
        }
        struct Rejected: Encodable {
            var text: String; var rejected = true; var reason: String; var confidence: Double
            var pocketsphinx: First?; var transcript: String?; var snapped: String?; var snap_distance: Double?; var transcript_log_probability: Double?; var decision: String?
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let confidence = (result.confidence * 1000).rounded() / 1000
        let first = report.map { _ in First(text: result.text, intent: result.heard?.intent, confidence: confidence) }
        let data: Data?
        if let c = result.command {
            data = try? encoder.encode(Accepted(text: c.words, intent: c.intent, slots: c.slots, confidence: (c.confidence * 1000).rounded() / 1000,
                                                pocketsphinx: first, transcript: report?.transcript, snapped: report?.snapped,
                                                snap_distance: report?.snapDistance,
                                                transcript_log_probability: report?.transcriptLogProbability, decision: report?.decision.outcome.rawValue))
        } else {
            data = try? encoder.encode(Rejected(text: result.text, reason: result.rejection ?? "rejected", confidence: confidence,
                                                pocketsphinx: first, transcript: report?.transcript, snapped: report?.snapped,
                                                snap_distance: report?.snapDistance,
                                                transcript_log_probability: report?.transcriptLogProbability, decision: report?.decision.outcome.rawValue))
        }
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Mixes down to mono and converts to the recognizer's 16 kHz, 16-bit input.
    static func speechInput(_ audio: PCMBuffer) -> [Int16] {
        var mono = audio
        if audio.channels > 1 {
            var mixed = [Float](repeating: 0, count: audio.frameCount)
            for i in 0..<audio.frameCount {
                var s: Float = 0
                for c in 0..<audio.channels { s += audio.samples[i * audio.channels + c] }
                mixed[i] = s / Float(audio.channels)
            }
            mono = PCMBuffer(sampleRate: audio.sampleRate, channels: 1, samples: mixed)
        }
        if mono.sampleRate != PocketSphinxDecoder.sampleRate {
            mono = Resampler(from: mono.sampleRate, to: PocketSphinxDecoder.sampleRate).process(mono)
        }
        return mono.int16Samples
    }
}
