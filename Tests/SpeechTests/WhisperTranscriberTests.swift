import Foundation
@testable import Speech
import Synchronization
import Testing

/// Whisper through libsoundscape-whisper.so, as scripts/setup builds it (make test sets SOUNDSCAPE_DATA; a plain
/// `swift test` finds it in .data/), on real espeak-ng speech, and the clear errors for missing or damaged files.
@Suite("Whisper second recognizer", .serialized)
struct WhisperTranscriberTests {
    static var directory: String {
        (ProcessInfo.processInfo.environment["SOUNDSCAPE_DATA"] ?? FileManager.default.currentDirectoryPath + "/.data") + "/whisper"
    }
    static var libraryPath: String { directory + "/libsoundscape-whisper.so" }
    static var modelPath: String { directory + "/ggml-tiny.en.bin" }

    /// One model for the suite, as the program keeps one. One thread and a generous time limit: the tests share
    /// two cores with other work, where a second thread mostly waits for the first (docs/measurements.md).
    static let shared: Result<WhisperTranscriber, WhisperError> = Result { () throws(WhisperError) in
        try WhisperTranscriber(library: libraryPath, model: modelPath, configuration: .init(threads: 1, timeLimit: .seconds(60)))
    }

    static func samples(_ text: String, voice: String = "en-us") throws -> [Float] {
        try RecognizerTests.speech(text, voice: voice).map { Float($0) / 32_768 }
    }

    /// Lowercase words without punctuation ("Where am I?" → ["where", "am", "i"]).
    static func words(_ text: String) -> [String] {
        text.lowercased().replacingOccurrences(of: "-", with: " ")
            .split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "'") }).map(String.init)
    }

    @Test func twoThreadsOnlyWhileACoreIsFree() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loadavg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pressure = directory.appendingPathComponent("pressure")
        func threads(_ line: String, cores: Int = 2, maximum: Int = 2, waited: Double? = nil) throws -> Int {
            let file = directory.appendingPathComponent("loadavg")
            try line.write(to: file, atomically: true, encoding: .utf8)
            try? FileManager.default.removeItem(at: pressure)
            if let waited {
                try "some avg10=\(waited) avg60=1.00 avg300=1.00 total=123\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
                    .write(to: pressure, atomically: true, encoding: .utf8)
            }
            return SpareCoreThreads(maximum: maximum, cores: cores, loadFile: file.path, pressureFile: pressure.path).threads()
        }
        #expect(try threads("0.21 0.35 0.40 1/412 90210\n") == 2)          // only the caller runs
        #expect(try threads("1.80 1.20 0.90 2/412 90210\n") == 1)          // something else wants the other core
        #expect(try threads("3.10 2.00 1.00 5/412 90210\n") == 1)
        #expect(try threads("1.00 1.00 1.00 2/412 90210\n", cores: 4) == 2)  // two cores free, at most two threads
        #expect(try threads("1.00 1.00 1.00 2/412 90210\n", cores: 4, maximum: 4) == 3)
        #expect(try threads("garbled") == 1)
        #expect(SpareCoreThreads(loadFile: directory.appendingPathComponent("absent").path).threads() == 1)
        // Idle this instant, but tasks waited for a core a third of the last ten seconds: busy in bursts.
        #expect(try threads("0.90 0.80 0.70 1/412 90210\n", waited: 33.5) == 1)
        #expect(try threads("0.90 0.80 0.70 1/412 90210\n", waited: 0.4) == 2)
    }

    @Test func aTranscriberThatChoosesTwoThreadsWritesTheSameWords() throws {
        let samples = try Self.samples("where is the beacon")
        let one = try Self.shared.get().transcribe(samples, prompt: "")
        final class Two: TranscriptionThreads {
            let asked = Mutex(0)
            func threads() -> Int { asked.withLock { $0 += 1 }; return 2 }
        }
        let choice = Two()
        let two = try WhisperTranscriber(library: Self.libraryPath, model: Self.modelPath,
                                         configuration: .init(threads: 1, timeLimit: .seconds(60)), threads: choice)
        // Two threads add up in another order, which can change a word where two were nearly tied; not here.
        #expect(Self.words(try two.transcribe(samples, prompt: "").text) == Self.words(one.text))
        #expect(choice.asked.withLock { $0 } == 1, "asked once before the utterance")
    }

    @Test(arguments: ["where am i", "go to sleep", "where is the beacon", "wake up"])
    func espeakCommandsComeOutWithTheirWords(_ command: String) throws {
        let whisper = try Self.shared.get()
        let transcript = try whisper.transcribe(try Self.samples(command), prompt: "")
        #expect(Self.words(transcript.text) == Self.words(command), "heard \"\(transcript.text)\"")
        let logProbability = try #require(transcript.meanLogProbability)
        #expect(logProbability < 0 && logProbability > -3, "mean log probability \(logProbability)")
        #expect(transcript.milliseconds > 0)
    }

    /// A prompt with the names nearby, in a sentence, lets a Finnish place name come out as it is spelled
    /// (without one, this model writes "Coppet or a").
    @Test func aPromptedPlaceNameIsSpelledAsPrompted() throws {
        let whisper = try Self.shared.get()
        let transcript = try whisper.transcribe(try Self.samples("take me to Kauppatori"),
                                                prompt: "Take me to Kauppatori, Stockmann or Ateneum.")
        #expect(Self.words(transcript.text).contains("kauppatori"), "heard \"\(transcript.text)\"")
    }

    /// Scored against the audio of "callouts off" and "unmute the beacon", the sentence said is likelier than its
    /// opposite, and the transcript's own score is there too; a second utterance is scored against its own audio.
    @Test(arguments: [("callouts off", "Callouts off.", "Callouts on."), ("unmute the beacon", "Unmute the beacon.", "Mute the beacon.")])
    func theSentenceSaidScoresAboveItsOpposite(_ said: String, _ right: String, _ opposite: String) throws {
        let whisper = try Self.shared.get()
        var asked: [String] = []
        let transcript = try whisper.transcribe(try Self.samples(said), prompt: "Callouts off. Unmute the beacon.") { t in
            asked = [t.text, right, opposite]
            return asked
        }
        #expect(transcript.scoringProblem == nil)
        #expect(transcript.scored.map(\.text) == asked)
        let scores = Dictionary(transcript.scored.map { ($0.text, $0) }, uniquingKeysWith: { a, _ in a })
        let r = try #require(scores[right]), o = try #require(scores[opposite])
        #expect(r.logProbability > o.logProbability + 1, "\(transcript.scored)")
        #expect(r.logProbability < 0 && r.tokens >= 3, "\(r)")
    }

    /// The scores start from the prompt the transcription left in the decoder's cache; decoding the prompt again
    /// gives the same scores (to float rounding), so the shortcut changes nothing but the time.
    @Test func scoresFromTheCachedPromptEqualScoresFromAFreshOne() throws {
        let cached = try Self.shared.get()
        let fresh = try WhisperTranscriber(library: Self.libraryPath, model: Self.modelPath,
                                           configuration: .init(threads: 1, timeLimit: .seconds(60), scoresReusePrompt: false))
        let audio = try Self.samples("unmute the beacon")
        let prompt = "Callouts off. Unmute the beacon. Take me to Kauppatori, Stockmann or Ateneum."
        let sentences = { (t: Transcript) in [t.text, "Unmute the beacon.", "Mute the beacon.", "Where am I?"] }
        let a = try cached.transcribe(audio, prompt: prompt, scoring: sentences)
        let b = try fresh.transcribe(audio, prompt: prompt, scoring: sentences)
        #expect(a.scoringProblem == nil && b.scoringProblem == nil)
        #expect(a.text == b.text && a.scored.count == 4 && b.scored.count == 4)
        for (x, y) in zip(a.scored, b.scored) {
            #expect(x.text == y.text && x.tokens == y.tokens)
            #expect(abs(x.logProbability - y.logProbability) < 0.05, "\(x) against \(y)")
            #expect(abs(x.endLogProbability - y.endLogProbability) < 0.05, "\(x) against \(y)")
        }
        // Not every sentence scores alike: the comparison above could fail.
        #expect(Set(a.scored.map { Int($0.logProbability) }).count > 1, "\(a.scored)")
    }

    /// The search of a set of sentences finds the one said, with the score that sentence gets when scored alone, and
    /// says why when no set was given.
    @Test func theSearchFindsTheSentenceSaidWithItsOwnScore() throws {
        let whisper = try WhisperTranscriber(library: Self.libraryPath, model: Self.modelPath,
                                             configuration: .init(threads: 1, timeLimit: .seconds(60)))
        let audio = try Self.samples("what's around me")
        let prompt = "Callouts off. Where am I? Take me to Kauppatori, Stockmann or Ateneum."
        let none = try whisper.transcribe(audio, prompt: prompt, searching: 3) { _ in [] }
        #expect(none.searched.isEmpty && none.searchProblem?.contains("no sentences") == true, "\(String(describing: none.searchProblem))")
        let sentences = ["Callouts on.", "Callouts off.", "Where am I?", "What's ahead?", "What's around me?", "Around me.",
                         "Mute the beacon.", "Repeat.", "Help.", "Set beacon on Kauppatori.", "Nearby markers."]
        try whisper.setSentences(sentences)
        let t = try whisper.transcribe(audio, prompt: prompt, searching: 3) { _ in ["What's around me?", "Where am I?"] }
        #expect(t.searchProblem == nil && t.scoringProblem == nil)
        #expect(t.searched.count == 3, "\(t.searched)")
        #expect(t.searched.first?.scored.text == "What's around me?" && t.searched.first?.index == 4, "\(t.searched)")
        #expect(zip(t.searched, t.searched.dropFirst()).allSatisfy { $0.scored.logProbability >= $1.scored.logProbability })
        #expect(Set(t.searched.map(\.index)).count == 3)
        if let best = t.searched.first, let alone = t.scored.first {
            #expect(abs(best.scored.logProbability - alone.logProbability) < 0.05 && best.scored.tokens == alone.tokens, "\(best) against \(alone)")
            #expect(abs(best.scored.endLogProbability - alone.endLogProbability) < 0.05)
        }
    }

    /// A decode past its time limit is stopped with a typed error, and the next one works.
    @Test func aTranscriptionPastItsLimitStopsAndTheNextWorks() throws {
        let loaded = try Self.shared.get()
        let hurried = try WhisperTranscriber(library: Self.libraryPath, model: Self.modelPath,
                                             configuration: .init(threads: 1, timeLimit: .milliseconds(1)))
        let audio = try Self.samples("where am i")
        let error = #expect(throws: WhisperError.self) { try hurried.transcribe(audio, prompt: "") }
        #expect(error?.kind == .timedOut)
        #expect(Self.words(try loaded.transcribe(audio, prompt: "").text) == ["where", "am", "i"])
    }

    @Test func aMissingLibraryIsATypedErrorNamingItAndTheFix() {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nowhere-\(UUID())/libsoundscape-whisper.so").path
        let error = #expect(throws: WhisperError.self) { try WhisperTranscriber(library: path, model: Self.modelPath) }
        #expect(error?.kind == .libraryMissing)
        #expect(error?.message.contains(path) == true && error?.message.contains("scripts/setup") == true, "\(String(describing: error))")
    }

    @Test func aFileThatIsNoLibraryIsATypedError() throws {
        let path = try Self.temporaryFile(Data("not a shared library".utf8), name: "libsoundscape-whisper.so")
        let error = #expect(throws: WhisperError.self) { try WhisperTranscriber(library: path, model: Self.modelPath) }
        #expect(error?.kind == .libraryUnusable)
        #expect(error?.message.contains(path) == true && error?.message.contains("scripts/setup") == true, "\(String(describing: error))")
    }

    @Test func aMissingModelIsATypedError() {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nowhere-\(UUID())/ggml-tiny.en.bin").path
        let error = #expect(throws: WhisperError.self) { try WhisperTranscriber(library: Self.libraryPath, model: path) }
        #expect(error?.kind == .modelMissing)
        #expect(error?.message.contains(path) == true && error?.message.contains("scripts/setup") == true, "\(String(describing: error))")
    }

    /// The real model cut short inside its last tensor (which whisper.cpp alone would load without a word), and a
    /// file of the wrong kind: each a typed error with the file, what is wrong and the fix.
    @Test(arguments: [("cut", "is cut short"), ("magic", "is not a ggml Whisper model"), ("gguf", "GGUF")])
    func aDamagedModelIsATypedError(_ damage: String, _ words: String) throws {
        let model = try Data(contentsOf: URL(fileURLWithPath: Self.modelPath))
        let damaged: Data = switch damage {
        case "cut": model.prefix(model.count - 1_000)
        case "gguf": Data("GGUF".utf8) + model.dropFirst(4)
        default: Data(repeating: 0x2A, count: 4_096)
        }
        let path = try Self.temporaryFile(damaged, name: "ggml-tiny.en.bin")
        let error = #expect(throws: WhisperError.self) { try WhisperTranscriber(library: Self.libraryPath, model: path) }
        #expect(error?.kind == .modelUnusable)
        let message = error?.message ?? ""
        #expect(message.contains(path) && message.contains(words) && message.contains("scripts/setup"), "\(message)")
    }

    @Test func repeatedPhrasesAreCollapsed() {
        #expect(WhisperTranscriber.collapsingRepeats("Where am I? Where am I? Where am I? Where") == "Where am I?")
        #expect(WhisperTranscriber.collapsingRepeats("loader loader loader") == "loader")
        #expect(WhisperTranscriber.collapsingRepeats("Wake up, Wake up, Wake up,") == "Wake up,")
        #expect(WhisperTranscriber.collapsingRepeats("set beacon on Kauppatori") == "set beacon on Kauppatori")
        #expect(WhisperTranscriber.collapsingRepeats("go to the go to") == "go to the go to")
        #expect(WhisperTranscriber.collapsingRepeats("Take me to Marker at Keskus katu 3a, Take me to Marker at Keskus katu 3a, Take me to Mark")
                == "Take me to Marker at Keskus katu 3a,")
        #expect(WhisperTranscriber.collapsingRepeats("") == "")
    }

    @Test func theAudioContextFollowsTheUtterance() {
        #expect(WhisperTranscriber.audioContext(sampleCount: 32_000, margin: 50) == 150)
        #expect(WhisperTranscriber.audioContext(sampleCount: 16_001, margin: 0) == 51)
        #expect(WhisperTranscriber.audioContext(sampleCount: 16_000 * 60, margin: 50) == 1_500)
    }

    static func temporaryFile(_ data: Data, name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("whisper-tests-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try data.write(to: url)
        return url.path
    }
}
