import Foundation
import Speech
import Synchronization
import Testing

/// A transcriber that writes what it is told to, and remembers what it was given.
final class ScriptedTranscriber: Transcriber {
    struct Call: Sendable { var samples: Int; var prompt: String }
    private let state: Mutex<(text: String?, calls: [Call])>

    /// - Parameter text: what it writes; nil to fail.
    init(_ text: String?) { state = Mutex((text, [])) }

    var calls: [Call] { state.withLock { $0.calls } }

    struct Failure: Error, CustomStringConvertible { var description: String { "the model file is damaged" } }

    func transcribe(_ samples: [Float], prompt: String) throws -> Transcript {
        let text = state.withLock { s in
            s.calls.append(Call(samples: samples.count, prompt: prompt))
            return s.text
        }
        guard let text else { throw Failure() }
        return Transcript(text: text, milliseconds: 1)
    }
}

/// A transcriber that writes what it is told to and scores sentences from a table (unknown ones very low), and
/// remembers which sentences it was asked to score.
final class ScoringTranscriber: Transcriber {
    let text: String
    let table: [String: Double]
    private let asked = Mutex<[String]>([])
    init(_ text: String, scores: [String: Double]) { self.text = text; self.table = scores }
    var sentences: [String] { asked.withLock { $0 } }

    func transcribe(_ samples: [Float], prompt: String) throws -> Transcript { Transcript(text: text) }

    func transcribe(_ samples: [Float], prompt: String, scoring candidates: (Transcript) -> [String]) throws -> Transcript {
        var transcript = Transcript(text: text)
        let texts = candidates(transcript)
        asked.withLock { $0 = texts }
        transcript.scored = texts.map { ScoredText(text: $0, logProbability: table[$0] ?? -100, tokens: 5) }
        return transcript
    }
}

/// The second recognizer beside the real PocketSphinx recognizer, with a scripted transcriber.
@Suite("A second opinion on the same utterance", .serialized)
struct SecondOpinionTests {
    /// A recognizer of this suite's own (recognizers are not thread-safe, and other suites run beside this one).
    nonisolated(unsafe) static let recognizer: VoiceRecognizer = RecognizerTests.makeRecognizer()

    static func opinion(_ transcriber: ScriptedTranscriber, recognizer: VoiceRecognizer) throws -> SecondOpinion {
        let dictionary = try #require(SnapperFixture.base)
        let opinion = SecondOpinion(transcriber: transcriber, dictionary: dictionary)
        #expect(opinion.prepare(from: recognizer))
        #expect(!opinion.prepare(from: recognizer), "nothing changed: nothing to rebuild")
        return opinion
    }

    @Test func theTranscriptOfTheSameAudioWithTheLiveVocabularyDecidesWithPocketSphinx() throws {
        let recognizer = Self.recognizer
        let samples = try RecognizerTests.speech("callouts off")
        let result = try recognizer.recognize(samples)
        // Heard cold, PocketSphinx sometimes takes it for "callouts on" itself; the transcript says the other.
        let heard = try #require(result.command?.intent, "PocketSphinx alone: \(result)")
        try #require(["callouts_on", "callouts_off"].contains(heard), "PocketSphinx alone: \(result)")
        let other = heard == "callouts_on" ? "callouts off" : "callouts on"

        let opposite = ScriptedTranscriber(other.prefix(1).uppercased() + other.dropFirst() + ".")
        let report = try Self.opinion(opposite, recognizer: recognizer).decide(samples: samples, first: result, state: .awake)
        #expect(report.decision.outcome == .askAgain, "\(report)")
        #expect(report.decision.command == nil)
        #expect(report.snapped == other)
        #expect(report.snapDistance == 0)
        // The same audio, and a prompt with the command words and the places nearby.
        let call = try #require(opposite.calls.first)
        #expect(call.samples == samples.count)
        #expect(call.prompt.lowercased().contains("go to sleep. wake up."), "\(call.prompt)")
        #expect(call.prompt.contains("Kauppatori") && call.prompt.contains("Fazer Café"), "\(call.prompt)")
        #expect(call.prompt.count <= SecondOpinion.standardPromptLimit, "\(call.prompt.count) characters: \(call.prompt)")

        let same = ScriptedTranscriber(heard.replacingOccurrences(of: "_", with: " "))
        let agreed = try Self.opinion(same, recognizer: recognizer).decide(samples: samples, first: result, state: .awake)
        #expect(agreed.decision.outcome == .agreed)
        #expect(agreed.decision.command?.intent == heard)
    }

    @Test func whisperScoresPocketSphinxsWordsAndTheirOppositeAndTheScoresDecide() throws {
        let recognizer = Self.recognizer
        let samples = try RecognizerTests.speech("callouts off")
        // PocketSphinx's result as if it took "callouts off" (heard cold, it does not always): this test is about
        // what is scored and decided, not about PocketSphinx.
        var result = try recognizer.recognize(samples)
        let taken = try #require(IntentParser(grammar: recognizer.grammar).parse(words: ["callouts", "off"]))
        result.text = "callouts off"
        result.command = taken
        result.heard = taken
        result.rejection = nil
        result.noSpeech = false
        let dictionary = try #require(SnapperFixture.base)
        // The transcript is nonsense far from every command; the scores say PocketSphinx's words are what was said.
        let sure = ScoringTranscriber("Calopsof,", scores: ["Calopsof,": -16, "Callouts off.": -13.5, "Callouts on.": -20.5])
        let opinion = SecondOpinion(transcriber: sure, dictionary: dictionary)
        opinion.prepare(from: recognizer)
        let report = opinion.decide(samples: samples, first: result, state: .awake)
        #expect(Array(sure.sentences.prefix(3)) == ["Calopsof,", "Callouts off.", "Callouts on."], "\(sure.sentences)")
        #expect(report.decision.outcome == .agreed, "\(report)")
        #expect(report.decision.command?.intent == "callouts_off")
        #expect(report.scores?.first?.text == "Callouts off.")
        #expect(report.scores?.firstOpposites.map(\.text) == ["Callouts on."])

        // The same, but Whisper finds the opposite likelier: not taken.
        let unsure = ScoringTranscriber("Calopsof,", scores: ["Calopsof,": -16, "Callouts off.": -13.5, "Callouts on.": -10])
        let other = SecondOpinion(transcriber: unsure, dictionary: dictionary)
        other.prepare(from: recognizer)
        let refused = other.decide(samples: samples, first: result, state: .awake)
        #expect(refused.decision.command == nil, "\(refused)")
    }

    @Test func theOppositeSentenceSwapsTheUndoingWordWhenTheGrammarHasIt() throws {
        let recognizer = Self.recognizer
        let parser = IntentParser(grammar: recognizer.grammar)
        let mute = try #require(parser.parse(words: ["mute", "the", "beacon"]))
        let found = SecondOpinion.opposites(of: mute, words: ["mute", "the", "beacon"], sentences: [:], parser: parser)
        #expect(found == [["unmute", "the", "beacon"]])
        // No word to swap: the grammar's own sentence of the opposite intent.
        let sleep = RecognizedCommand(intent: "sleep", slots: [:], confidence: 1, words: "go to sleep")
        let wake = SecondOpinion.opposites(of: sleep, words: ["go", "to", "sleep"], sentences: ["wake": ["wake", "up"]], parser: parser)
        #expect(wake == [["wake", "up"]])
        #expect(SecondOpinion.written(["where", "am", "i"]) == "Where am I?")
        #expect(SecondOpinion.written(["callouts", "off"]) == "Callouts off.")
        #expect(SecondOpinion.written(["set", "beacon", "on", "cafe", "engel"], names: ["Cafe Engel"]) == "Set beacon on Cafe Engel.")
        #expect(SecondOpinion.written(["take", "me", "to", "kauppatori"], names: ["Kauppatori", "x"]) == "Take me to Kauppatori.")
    }

    @Test func aFailingTranscriberLeavesPocketSphinxToDecideAndSaysWhy() throws {
        let recognizer = Self.recognizer
        let samples = try RecognizerTests.speech("where am i")
        let result = try recognizer.recognize(samples)
        let report = try Self.opinion(ScriptedTranscriber(nil), recognizer: recognizer).decide(samples: samples, first: result, state: .awake)
        #expect(report.decision.outcome == (result.command == nil ? .rejected : .firstAlone))
        #expect(report.decision.command == result.command)
        #expect(report.problem?.contains("the model file is damaged") == true, "\(report)")

        // A command that undoes another is not taken unchecked.
        let off = try RecognizerTests.speech("callouts off")
        let heard = try recognizer.recognize(off)
        try #require(heard.command?.intent == "callouts_off", "\(heard)")
        let unchecked = try Self.opinion(ScriptedTranscriber(nil), recognizer: recognizer).decide(samples: off, first: heard, state: .awake)
        #expect(unchecked.decision.outcome == .askAgain, "\(unchecked)")
        #expect(unchecked.decision.command == nil)
    }

    /// Audio that is all there at once, then silence; it releases the key itself once the utterance is read.
    final class OneUtterance: AudioCapture, @unchecked Sendable {
        var samples: [Int16]
        var release: (() -> Void)?
        init(_ samples: [Int16]) { self.samples = samples }
        func read(frames: Int) throws -> [Int16] {
            if samples.isEmpty {
                release?()
                release = nil
                Thread.sleep(forTimeInterval: 0.002)
                return [Int16](repeating: 0, count: frames)
            }
            let chunk = Array(samples.prefix(frames))
            samples.removeFirst(chunk.count)
            return chunk + [Int16](repeating: 0, count: frames - chunk.count)
        }
    }

    @Test func theListenerSaysHeardAtOnceThenDecidesWithBothRecognizers() async throws {
        let recognizer = Self.recognizer
        let samples = try RecognizerTests.speech("callouts off")
        let capture = OneUtterance(samples)
        // Whatever PocketSphinx hears, a transcript of another command that undoes one cannot be taken alone.
        let transcriber = ScriptedTranscriber("Mute the beacon.")
        let dictionary = try #require(SnapperFixture.base)
        let listener = CommandListener(recognizer: recognizer, capture: capture,
                                       secondOpinion: SecondOpinion(transcriber: transcriber, dictionary: dictionary))
        capture.release = { listener.send(.release) }
        listener.send(.press)
        listener.start()
        var seen: [String] = []
        for await event in listener.events {
            switch event {
            case .ready: seen.append("ready")
            case .listening: seen.append("listening")
            case .released: seen.append("released")
            case .checked(let report): seen.append("checked \(report.transcript ?? "-")")
            case .askAgain: seen.append("ask again")
            case .recognized(let command, _): seen.append("recognized \(command.intent)")
            case .rejected(let result, _): seen.append("rejected \(result.rejection ?? "")")
            case .cancelled: seen.append("cancelled")
            case .problem(let message): seen.append("problem \(message)")
            }
            if seen.count >= 5 { break }
        }
        // The listener's thread has ended (and left the recognizer) when its events end.
        listener.stop()
        for await _ in listener.events {}
        // Ready comes first, before the press waiting in the inbox is taken.
        #expect(seen == ["ready", "listening", "released", "checked Mute the beacon.", "ask again"], "\(seen)")
        #expect(transcriber.calls.first?.samples ?? 0 >= samples.count, "the transcriber had all of the utterance")
    }
}
