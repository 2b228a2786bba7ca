import CSoundscapeWhisper
import Foundation
import Synchronization

/// Why the Whisper recognizer could not start or could not transcribe. The message names the file or value and
/// says how to fix it; ``kind`` tells the cases apart for the program.
public struct WhisperError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        /// libsoundscape-whisper.so is not where it was looked for.
        case libraryMissing
        /// The library is there but cannot be loaded or lacks a function (damaged, or not ours).
        case libraryUnusable
        /// The library was built for another version of this program's C API.
        case libraryVersion
        /// The model file is not where it was looked for.
        case modelMissing
        /// The model file is damaged, cut short or of another format.
        case modelUnusable
        /// A transcription ran past its time limit and was stopped.
        case timedOut
        /// whisper.cpp failed on an utterance.
        case failed
    }

    public var kind: Kind
    /// What is wrong, naming the file or value.
    public var problem: String
    /// What to do about it, when the user can do something.
    public var fix: String?
    /// The problem and the fix in one sentence.
    public var message: String { fix.map { "\(problem); \($0)" } ?? problem }
    public var description: String { message }

    public init(_ kind: Kind, _ problem: String, fix: String? = nil) {
        self.kind = kind
        self.problem = problem
        self.fix = fix
    }

    /// What to do when a file is missing or damaged.
    public static let setupFix = "run `bash scripts/setup` (or `make run`, which runs it) to build it again"
}

/// Whisper tiny.en through whisper.cpp: the free-text second recognizer. The C library (libsoundscape-whisper.so,
/// from native/whisper/) and the model are made by scripts/setup and loaded at run time, so the program builds and
/// runs without them. The model is loaded once; each call decodes greedily, as one segment without timestamps, with
/// an audio context sized to the utterance instead of Whisper's 30 s window, and is bounded in tokens and time.
///
/// One transcription runs at a time: concurrent calls wait for each other (whisper.cpp's context holds one
/// decoder state). Blocking and CPU-bound: call it off the audio thread and off the cooperative pool's hot paths.
public final class WhisperTranscriber: Transcriber, @unchecked Sendable {
    // @unchecked: the library handle and function pointers are set once in init and never change; the model
    // handle is only touched inside `model`'s lock.

    public struct Configuration: Sendable, Equatable {
        /// Threads whisper.cpp computes on when no ``TranscriptionThreads`` chooses them before each utterance. One by
        /// default: ggml's threads wait for each other by spinning, so on a machine whose other core is busy (the
        /// audio, PocketSphinx, another program) two threads took several times longer than one
        /// (docs/measurements.md, "Second recognizer").
        public var threads: Int
        /// Encoder frames (20 ms each) given beyond the utterance's own: without this margin the model, seeing no
        /// silence after the words, tends to repeat them.
        public var contextMargin: Int
        /// Most tokens written: `baseTokens` plus `tokensPerSecond` per second of audio.
        public var baseTokens: Int
        public var tokensPerSecond: Double
        /// A transcription still running after this long is stopped (``WhisperError/Kind/timedOut``).
        public var timeLimit: Duration
        /// Whether the scores start from the prompt as the transcription left it in the decoder's cache (true), or
        /// decode the prompt again (false: a prompt's worth of work more for the same scores, kept to check that).
        public var scoresReusePrompt: Bool
        /// Unfinished sentences the search of the grammar's sentences keeps at each token (``Transcript/searched``):
        /// each costs one step of the decoder.
        public var searchBeam: Int

        public init(threads: Int = 1, contextMargin: Int = 50, baseTokens: Int = 8, tokensPerSecond: Double = 4,
                    timeLimit: Duration = .seconds(3), scoresReusePrompt: Bool = true, searchBeam: Int = 4) {
            self.threads = threads
            self.contextMargin = contextMargin
            self.baseTokens = baseTokens
            self.tokensPerSecond = tokensPerSecond
            self.timeLimit = timeLimit
            self.scoresReusePrompt = scoresReusePrompt
            self.searchBeam = searchBeam
        }
    }

    public let libraryPath: String
    public let modelPath: String
    public let configuration: Configuration
    /// What was loaded, e.g. "tiny, English only, q8_0".
    public let modelDescription: String

    private let library: UnsafeMutableRawPointer
    private let transcribeFunction: ssw_transcribe_fn
    private let scoreFunction: ssw_score_fn
    private let setSentencesFunction: ssw_set_sentences_fn
    private let searchFunction: ssw_search_fn
    /// The sentences the library's search chooses among, as last set (its answers are indices into them).
    private let sentences = Mutex<[String]>([])
    private let releaseFunction: ssw_release_fn
    private let setThreadsFunction: ssw_set_threads_fn
    /// Chooses the threads of each transcription; nil: always ``Configuration/threads``.
    public let threadChoice: (any TranscriptionThreads)?
    private let closeFunction: ssw_close_fn
    private let model: Mutex<OpaquePointer?>

    /// Loads the library and the model; every failure is a ``WhisperError`` naming the file and the fix.
    public init(library libraryPath: String, model modelPath: String, configuration: Configuration = Configuration(),
                threads threadChoice: (any TranscriptionThreads)? = nil) throws(WhisperError) {
        guard FileManager.default.fileExists(atPath: libraryPath) else {
            throw WhisperError(.libraryMissing, "the Whisper library \(libraryPath) does not exist", fix: WhisperError.setupFix)
        }
        guard let handle = dlopen(libraryPath, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown error"
            throw WhisperError(.libraryUnusable, "the Whisper library \(libraryPath) cannot be loaded (\(reason))", fix: WhisperError.setupFix)
        }
        func symbol<T>(_ name: String, as type: T.Type) throws(WhisperError) -> T {
            guard let pointer = dlsym(handle, name) else {
                dlclose(handle)
                throw WhisperError(.libraryUnusable, "the Whisper library \(libraryPath) has no function \(name), so it is not "
                                   + "libsoundscape-whisper.so of this program", fix: WhisperError.setupFix)
            }
            return unsafeBitCast(pointer, to: type)
        }
        let version = try symbol("ssw_api_version", as: ssw_api_version_fn.self)()
        guard version == SSW_API_VERSION else {
            dlclose(handle)
            throw WhisperError(.libraryVersion, "the Whisper library \(libraryPath) has C API version \(version), this program needs "
                               + "\(SSW_API_VERSION)", fix: WhisperError.setupFix)
        }
        let open = try symbol("ssw_open", as: ssw_open_fn.self)
        let describe = try symbol("ssw_describe", as: ssw_describe_fn.self)
        let transcribe = try symbol("ssw_transcribe", as: ssw_transcribe_fn.self)
        let score = try symbol("ssw_score", as: ssw_score_fn.self)
        let setSentences = try symbol("ssw_set_sentences", as: ssw_set_sentences_fn.self)
        let search = try symbol("ssw_search", as: ssw_search_fn.self)
        let release = try symbol("ssw_release", as: ssw_release_fn.self)
        let setThreads = try symbol("ssw_set_threads", as: ssw_set_threads_fn.self)
        let close = try symbol("ssw_close", as: ssw_close_fn.self)
        guard FileManager.default.fileExists(atPath: modelPath) else {
            dlclose(handle)
            throw WhisperError(.modelMissing, "the Whisper model \(modelPath) does not exist", fix: WhisperError.setupFix)
        }
        var error = [CChar](repeating: 0, count: 1_024)
        guard let loaded = open(modelPath, Int32(max(1, configuration.threads)), &error, error.count) else {
            dlclose(handle)
            throw WhisperError(.modelUnusable, "the Whisper model \(modelPath) \(Self.string(error))",
                               fix: WhisperError.setupFix)
        }
        var description = [CChar](repeating: 0, count: 256)
        describe(loaded, &description, description.count)
        self.libraryPath = libraryPath
        self.modelPath = modelPath
        self.configuration = configuration
        self.modelDescription = Self.string(description)
        self.library = handle
        self.transcribeFunction = transcribe
        self.scoreFunction = score
        self.setSentencesFunction = setSentences
        self.searchFunction = search
        self.releaseFunction = release
        self.setThreadsFunction = setThreads
        self.threadChoice = threadChoice
        self.closeFunction = close
        self.model = Mutex(loaded)
    }

    deinit {
        model.withLock { loaded in
            if let loaded { closeFunction(loaded) }
            loaded = nil
        }
        dlclose(library)
    }

    /// Encoder frames for `sampleCount` samples at 16 kHz: 50 a second (10 ms mel frames, halved by the encoder),
    /// plus `margin`, at most Whisper's 1,500.
    public static func audioContext(sampleCount: Int, margin: Int) -> Int {
        min(1_500, Int((Double(sampleCount) / 16_000 * 50).rounded(.up)) + max(0, margin))
    }

    public func transcribe(_ samples: [Float], prompt: String) throws -> Transcript {
        try transcribe(samples, prompt: prompt, scoring: { _ in [] })
    }

    /// Transcribes, then scores the candidates against the same audio while its encoding is still at hand, then
    /// frees the decoder's state (whisper.cpp's buffers for one utterance, about 100 MB once touched; making it again
    /// costs a few milliseconds). A scoring that fails or runs out of time leaves the transcript without scores and
    /// says why in ``Transcript/scoringProblem``.
    public func transcribe(_ samples: [Float], prompt: String, scoring candidates: (Transcript) -> [String]) throws -> Transcript {
        try transcribe(samples, prompt: prompt, searching: 0, scoring: candidates)
    }

    /// Gives the library the sentences to search among (tokenized there, once): a few milliseconds per thousand.
    public func setSentences(_ texts: [String]) throws {
        let problem: String? = model.withLock { loaded in
            guard let loaded else { return "the model is closed" }
            return setSentences(texts, model: loaded)
        }
        if let problem {
            throw WhisperError(.failed, "Whisper could not take \(texts.count) sentences to search: \(problem)")
        }
    }

    /// Hands `texts` to the library; call with the model's lock held. Nil, or why it failed.
    private func setSentences(_ texts: [String], model loaded: OpaquePointer) -> String? {
        var error = [CChar](repeating: 0, count: 1_024)
        let spaced = texts.map { " " + $0 }
        var pointers = spaced.map { strdup($0).map { UnsafePointer($0) } }
        defer { for pointer in pointers { free(UnsafeMutablePointer(mutating: pointer)) } }
        let result = pointers.withUnsafeMutableBufferPointer { list in
            setSentencesFunction(loaded, list.baseAddress, Int32(texts.count), &error, error.count)
        }
        guard result == SSW_OK else { return Self.string(error) }
        sentences.withLock { $0 = texts }
        return nil
    }

    /// Transcribes; then, when `searching` is above 0 and sentences were set, searches them for the likeliest
    /// (``Transcript/searched``); then scores the candidates against the same audio while its encoding is still at
    /// hand; then frees the decoder's state.
    public func transcribe(_ samples: [Float], prompt: String, searching: Int, scoring candidates: (Transcript) -> [String]) throws -> Transcript {
        let started = ContinuousClock.now
        guard !samples.isEmpty else { return Transcript(text: "", meanLogProbability: nil, milliseconds: 0) }
        let seconds = Double(samples.count) / 16_000
        let context = Self.audioContext(sampleCount: samples.count, margin: configuration.contextMargin)
        let tokens = configuration.baseTokens + Int((seconds * configuration.tokensPerSecond).rounded(.up))
        func milliseconds(_ duration: Duration) -> Int32 {
            let parts = duration.components
            return max(1, Int32(clamping: parts.seconds * 1_000 + parts.attoseconds / 1_000_000_000_000_000))
        }
        var text = [CChar](repeating: 0, count: 4_096)
        var error = [CChar](repeating: 0, count: 1_024)
        var logProbability = 0.0
        var transcript: Transcript?
        let result: Int32 = model.withLock { loaded in
            guard let loaded else { return SSW_ERROR }
            defer { releaseFunction(loaded) }
            setThreadsFunction(loaded, Int32(max(1, threadChoice?.threads() ?? configuration.threads)))
            let result = samples.withUnsafeBufferPointer { buffer in
                transcribeFunction(loaded, buffer.baseAddress, Int32(buffer.count), prompt.isEmpty ? nil : prompt,
                                   Int32(context), Int32(tokens), milliseconds(configuration.timeLimit), &text, text.count,
                                   &logProbability, &error, error.count)
            }
            guard result == SSW_OK else { return result }
            let words = Self.collapsingRepeats(Self.string(text))
            var written = Transcript(text: words, meanLogProbability: words.isEmpty ? nil : logProbability)
            if searching > 0 {
                let left = configuration.timeLimit - (ContinuousClock.now - started)
                if left <= .zero {
                    written.searchProblem = "no time was left to search the grammar's sentences within \(configuration.timeLimit)"
                } else {
                    written.searched = search(searching, model: loaded, limit: milliseconds(left), problem: &written.searchProblem)
                }
            }
            let texts = candidates(written)
            if !texts.isEmpty {
                let left = configuration.timeLimit - (ContinuousClock.now - started)
                if left <= .zero {
                    written.scoringProblem = "no time was left to score \(texts.count) sentences within \(configuration.timeLimit)"
                } else {
                    written.scored = score(texts, model: loaded, limit: milliseconds(left), problem: &written.scoringProblem)
                }
            }
            transcript = written
            return SSW_OK
        }
        let elapsed = Double((ContinuousClock.now - started) / .microseconds(1)) / 1_000
        switch result {
        case SSW_OK:
            var done = transcript ?? Transcript(text: "")
            done.milliseconds = elapsed
            return done
        case SSW_TIMED_OUT:
            throw WhisperError(.timedOut, "Whisper took longer than \(configuration.timeLimit) on an utterance of "
                               + String(format: "%.1f s", seconds) + " and was stopped (\(Self.string(error)))")
        default:
            throw WhisperError(.failed, "Whisper could not transcribe an utterance of " + String(format: "%.1f s", seconds)
                               + " with \(modelPath): \(Self.string(error))")
        }
    }

    /// The `count` likeliest of the sentences set, best first; call with the model's lock held.
    private func search(_ count: Int, model loaded: OpaquePointer, limit: Int32, problem: inout String?) -> [SearchedSentence] {
        let texts = sentences.withLock { $0 }
        guard !texts.isEmpty else {
            problem = "no sentences were set to search among"
            return []
        }
        var indices = [Int32](repeating: 0, count: count)
        var scores = [Double](repeating: 0, count: count)
        var ends = [Double](repeating: 0, count: count)
        var counts = [Int32](repeating: 0, count: count)
        var found: Int32 = 0
        var error = [CChar](repeating: 0, count: 1_024)
        let result = searchFunction(loaded, Int32(max(1, configuration.searchBeam)), Int32(count), limit, &indices, &scores, &ends,
                                    &counts, &found, &error, error.count)
        guard result == SSW_OK else {
            problem = "Whisper could not search \(texts.count) sentences: \(Self.string(error))"
            return []
        }
        return (0..<Int(found)).compactMap { i in
            let index = Int(indices[i])
            guard texts.indices.contains(index) else { return nil }
            return SearchedSentence(index: index, scored: ScoredText(text: texts[index], logProbability: scores[i],
                                                                     endLogProbability: ends[i], tokens: Int(counts[i])))
        }
    }

    /// Scores `texts` (each given a leading space, as Whisper's transcripts begin) against the utterance just
    /// transcribed; call with the model's lock held.
    private func score(_ texts: [String], model loaded: OpaquePointer, limit: Int32, problem: inout String?) -> [ScoredText] {
        var scores = [Double](repeating: 0, count: texts.count)
        var ends = [Double](repeating: 0, count: texts.count)
        var counts = [Int32](repeating: 0, count: texts.count)
        var error = [CChar](repeating: 0, count: 1_024)
        let spaced = texts.map { " " + $0 }
        var pointers = spaced.map { strdup($0).map { UnsafePointer($0) } }
        defer { for pointer in pointers { free(UnsafeMutablePointer(mutating: pointer)) } }
        let result = pointers.withUnsafeMutableBufferPointer { list in
            scoreFunction(loaded, list.baseAddress, Int32(texts.count), configuration.scoresReusePrompt ? 0 : SSW_SCORE_FRESH_PREFIX,
                          limit, &scores, &ends, &counts, &error, error.count)
        }
        guard result == SSW_OK else {
            problem = "Whisper could not score \(texts.count) sentences: \(Self.string(error))"
            return []
        }
        return texts.indices.map { ScoredText(text: texts[$0], logProbability: scores[$0], endLogProbability: ends[$0], tokens: Int(counts[$0])) }
    }

    /// Whisper, given a short window, sometimes writes the same words again and again ("Where am I? Where am I?
    /// Where"). When the whole text repeats one phrase at least twice (the last time perhaps cut off), only the
    /// phrase is kept. Words are compared without case and punctuation.
    public static func collapsingRepeats(_ text: String) -> String {
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        let keys = words.map { $0.lowercased().filter { $0.isLetter || $0.isNumber } }
        let n = words.count
        guard n >= 2 else { return text.trimmingCharacters(in: .whitespaces) }
        // The last word may be cut short where the decode was stopped ("…, Take me to Mark").
        for period in 1...(n / 2) where (0..<(n - period)).allSatisfy({
            keys[$0] == keys[$0 + period] || ($0 + period == n - 1 && !keys[$0 + period].isEmpty && keys[$0].hasPrefix(keys[$0 + period]))
        }) {
            return words[0..<period].joined(separator: " ")
        }
        return words.joined(separator: " ")
    }

    private static func string(_ buffer: [CChar]) -> String {
        buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}

/// Chooses how many threads the next transcription computes on, just before it starts.
public protocol TranscriptionThreads: Sendable {
    func threads() -> Int
}

/// Two threads (up to `maximum`) only while the machine has a core to spare, else one. ggml's threads wait for each
/// other by spinning: beside one busy loop on a 2-core machine two threads took 814 ms (p50) and 4.7 s (p95) a
/// transcription against 229 and 292 ms on one, while with a core free two took 135 ms against 219
/// (docs/measurements.md, "Two threads while a core is free"). Each core beyond the tasks running or ready to run
/// at the moment of the call (/proc/loadavg's fourth field, this thread included) counts as spare, unless tasks
/// waited for a core `pressureLimit` per cent or more of the last ten seconds (/proc/pressure/cpu, where the kernel
/// has it): a machine busy in bursts (a compiler, a browser) looks idle between them.
public struct SpareCoreThreads: TranscriptionThreads {
    public let maximum: Int
    public let cores: Int
    public let loadFile: String
    public let pressureFile: String
    public let pressureLimit: Double

    public init(maximum: Int = 2, cores: Int = ProcessInfo.processInfo.activeProcessorCount, loadFile: String = "/proc/loadavg",
                pressureFile: String = "/proc/pressure/cpu", pressureLimit: Double = 10) {
        self.maximum = max(1, maximum)
        self.cores = max(1, cores)
        self.loadFile = loadFile
        self.pressureFile = pressureFile
        self.pressureLimit = pressureLimit
    }

    /// One more thread for each core nothing else is ready to run on, up to ``maximum``; one when the count cannot
    /// be read or tasks have recently waited for a core.
    public func threads() -> Int {
        guard let runnable = Self.runnable(loadFile) else { return 1 }
        if let waited = Self.recentPressure(pressureFile), waited >= pressureLimit { return 1 }
        return max(1, min(maximum, 1 + cores - max(1, runnable)))
    }

    /// The fourth field's first number ("1/412": one task running or ready, of 412).
    static func runnable(_ path: String) -> Int? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count >= 4, let slash = fields[3].firstIndex(of: "/") else { return nil }
        return Int(fields[3][..<slash])
    }

    /// The per cent of the last ten seconds some task waited for a core ("some avg10=2.31 …"); nil without the file.
    static func recentPressure(_ path: String) -> Double? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("some ") }),
              let field = line.split(separator: " ").first(where: { $0.hasPrefix("avg10=") }) else { return nil }
        return Double(field.dropFirst("avg10=".count))
    }
}
