import Audio
import Foundation
import Geo
import MapData
import Speech

/// What `soundscape listen` was asked for.
public struct ListenOptions: Sendable {
    /// WAV file (16-bit PCM or float, any rate; stereo is mixed down).
    public var file: String
    /// Where the user is: names of places nearby can be recognized.
    public var at: Coordinate?
    /// The direction the user faces, degrees from north (with `answer`).
    public var heading: Double?
    /// Then answer the recognized command at `at`, as `say` would.
    public var answer = false
    public var quiet = false
    public var db: String?
    /// Grammar folder or .gram file instead of Grammars/.
    public var grammar: String?
    public var json = false
    /// Listen as while the assistant is asleep.
    public var asleep = false
    /// Print how long decoding took and what the rejection was decided on.
    public var verbose = false

    public init(file: String) { self.file = file }
}

extension AppBuilder {
    /// `soundscape listen`: recognizes a spoken command from a WAV file with the same recognizer as live input.
    public func listen(_ options: ListenOptions) async throws {
        let audio = try WAVFile.read(options.file)
        let samples = audio.monoInt16Samples(at: PocketSphinxDecoder.sampleRate)
        let paths = environment.paths
        let recognizer = try CommandRecognizer(paths: paths, grammarPath: options.grammar)
        let second = SecondRecognizer.load(paths: paths)
        if let problem = second.problem { printError("Problem: \(problem)") }
        if let here = options.at {
            let mapPath = options.db ?? environment.mapDatabase
            // Outside the imported area the place names nearby come from the configured tile service, if any.
            let settings = self.settings(file: nil).loaded.settings
            if let tiles = try OutsideMapTiles(service: settings.tileService, databasePath: mapPath), !tiles.covers(here) {
                if let notice = await tiles.takeNotice() { printError(notice) }
                if let problem = await tiles.update(here).problem { printError("Problem: \(problem)") }
            }
            let map = try SpatialDataView(path: mapPath)
            try recognizer.recognizer.setPhrases(NearbyPlaceNames.phrases(map: map, near: here), for: "places")
            try recognizer.recognizer.setPhrases(LandmarkNames.phrases(map: map), for: "landmarks")
        }
        try recognizer.recognizer.setListeningState(options.asleep ? .asleep : .awake)
        let started = ContinuousClock.now
        var result = try recognizer.recognize(samples)
        let decoding = ContinuousClock.now - started
        // The second recognizer on the same audio, and one decision from both.
        var report: TwoRecognizerReport?
        if let opinion = second.secondOpinion {
            opinion.prepare(from: recognizer.recognizer)
            if options.verbose { FileHandle.standardError.write(Data("Whisper's prompt: \(opinion.prompt)\n".utf8)) }
            let decided = opinion.decide(samples: samples, first: result, state: options.asleep ? .asleep : .awake)
            report = decided
            if let problem = decided.problem { printError("Problem: \(problem)") }
            result.command = decided.decision.command
            if decided.decision.command == nil { result.rejection = decided.decision.outcome == .askAgain ? "say that again: \(decided.decision.reason)" : decided.decision.reason }
        }
        if options.verbose {
            // How long decoding took (the grammar's size and the names spliced into it decide it).
            let ms = Double(decoding.components.seconds) * 1000 + Double(decoding.components.attoseconds) / 1e15
            FileHandle.standardError.write(Data("decoded \(String(format: "%.2f", result.duration)) s of speech in \(String(format: "%.0f", ms)) ms\n".utf8))
            // What PocketSphinx's confidence was worked out from.
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let features = (try? encoder.encode(result.features)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            FileHandle.standardError.write(Data("features: \(features)\n".utf8))
        }
        if options.json {
            printReply(ListenReport.json(result, report: report))   // straight to the output, before any answer
        } else if let command = result.command {
            let slots = command.slots.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            printReply("\(command.words)\t\(command.intent)\(slots.isEmpty ? "" : "\t" + slots)\tconfidence \(String(format: "%.2f", command.confidence))")
        } else {
            printReply("(not understood: \(result.rejection ?? "rejected")\(result.text.isEmpty ? "" : "; heard \"\(result.text)\""))")
        }
        // The same answer `say` gives: the recognized words go through the same grammars and pipeline.
        if options.answer, let command = result.command, let at = options.at {
            var say = SayOptions(command: command.words, at: at)
            say.heading = options.heading
            say.db = options.db
            say.quiet = options.quiet
            try await self.say(say)
        }
    }
}

/// What `listen` prints, and the audio it decodes.
public enum ListenReport {
    /// The outcome; with a second recognizer also what each heard, the snap and the decision
    /// (`pocketsphinx`, `transcript`, `snapped`, `snap_distance`, `decision` and its `decision_reason`), and Whisper's
    /// log probability of each sentence it scored (`whisper_scores`).
    static func json(_ result: VoiceResult, report: TwoRecognizerReport? = nil) -> String {
        struct First: Encodable { var text: String; var intent: String?; var confidence: Double }
        struct Accepted: Encodable {
            var text: String; var intent: String; var slots: [String: String]; var confidence: Double
            var pocketsphinx: First?; var transcript: String?; var snapped: String?; var snap_distance: Double?; var transcript_log_probability: Double?; var decision: String?
            var decision_reason: String?; var whisper_scores: [String: Double]?
        }
        struct Rejected: Encodable {
            var text: String; var rejected = true; var reason: String; var confidence: Double
            var pocketsphinx: First?; var transcript: String?; var snapped: String?; var snap_distance: Double?; var transcript_log_probability: Double?; var decision: String?
            var decision_reason: String?; var whisper_scores: [String: Double]?
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let confidence = (result.confidence * 1000).rounded() / 1000
        let first = report.map { _ in First(text: result.text, intent: result.heard?.intent, confidence: confidence) }
        let scores = report?.scores.map { s in
            var all = [s.transcript, s.first, s.snapped].compactMap { $0 } + s.firstOpposites
            all.sort { $0.logProbability > $1.logProbability }
            return Dictionary(all.map { ($0.text, ($0.logProbability * 100).rounded() / 100) }, uniquingKeysWith: { a, _ in a })
        }
        let data: Data?
        if let c = result.command {
            data = try? encoder.encode(Accepted(text: c.words, intent: c.intent, slots: c.slots, confidence: (c.confidence * 1000).rounded() / 1000,
                                                pocketsphinx: first, transcript: report?.transcript, snapped: report?.snapped,
                                                snap_distance: report?.snapDistance,
                                                transcript_log_probability: report?.transcriptLogProbability, decision: report?.decision.outcome.rawValue,
                                                decision_reason: report?.decision.reason, whisper_scores: scores))
        } else {
            data = try? encoder.encode(Rejected(text: result.text, reason: result.rejection ?? "rejected", confidence: confidence,
                                                pocketsphinx: first, transcript: report?.transcript, snapped: report?.snapped,
                                                snap_distance: report?.snapDistance,
                                                transcript_log_probability: report?.transcriptLogProbability, decision: report?.decision.outcome.rawValue,
                                                decision_reason: report?.decision.reason, whisper_scores: scores))
        }
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
