import Foundation
import Synchronization

/// A source of 16 kHz mono 16-bit audio that blocks until `frames` samples are there (a microphone).
public protocol AudioCapture: AnyObject {
    func read(frames: Int) throws -> [Int16]
}

/// Push-to-talk actions from a key, the control socket or the terminal.
public enum PushToTalk: String, Sendable, CaseIterable {
    /// Start listening (key down).
    case press
    /// Stop listening and recognize what was said (key up).
    case release
    /// Press when idle, release when listening (for keys that only send one event).
    case toggle
    /// Stop listening and throw the utterance away.
    case cancel
}

/// What the listener reports.
public enum VoiceEvent: Sendable {
    /// The microphone is open and the listener reads it from now on: commands (and the wake word) can be spoken.
    /// Sent once, after the jobs queued before ``CommandListener/start()`` were done.
    case ready
    /// Listening started (play the listening earcon). `byWakeWord` when the wake word opened it.
    case listening(byWakeWord: Bool)
    /// A command was understood. `latency`: from the end of listening to the result.
    case recognized(RecognizedCommand, latency: Duration)
    /// Nothing usable was heard (play the "not understood" earcon and nothing else).
    case rejected(VoiceResult, latency: Duration)
    /// Listening was cancelled.
    case cancelled
    /// The key was released (or the speech ended) and the utterance is being decided: play the "heard you" earcon now.
    case released
    /// Both recognizers' words and the decision, just before the outcome (with a second recognizer only).
    case checked(TwoRecognizerReport)
    /// The two recognizers disagreed and neither could be taken: ask "Say that again?".
    case askAgain(TwoRecognizerReport, latency: Duration)
    /// Something went wrong (no microphone, a broken grammar edit…); the listener goes on when it can.
    case problem(String)
}

/// Listens to a microphone on its own thread and turns push-to-talk presses (or the wake word followed by
/// speech) into recognized commands. Decoding happens while the user speaks, so after the release only
/// the last few milliseconds of audio remain to decode.
///
/// The recognizer and the optional wake-word spotter belong to the listener's thread; other code reaches
/// them only through ``perform(_:)``, which runs between utterances.
public final class CommandListener: @unchecked Sendable {
    public struct Options: Sendable {
        /// Samples read per step (20 ms at 16 kHz): bounds the reaction time to a key.
        public var chunk = 320
        /// Samples read per step between utterances (100 ms): the thread wakes 10 times a second instead of 50 while
        /// nobody speaks; a press is seen within one step, and the pre-roll still holds what came before it.
        public var idleChunk = 1_600
        /// Audio kept from before the press and fed first (people start talking as they press).
        public var preRoll = 0.25
        /// End the utterance by itself after this much silence (voice-activity endpointing); nil = wait for release.
        public var endpointSilence: Double?
        /// Longest utterance.
        public var maximumUtterance = 8.0
        /// Save every utterance as a WAV file here (for checking a microphone); nil for none.
        public var recordingsDirectory: String?
        public init() {}
    }

    public let events: AsyncStream<VoiceEvent>
    private let continuation: AsyncStream<VoiceEvent>.Continuation
    private let recognizer: VoiceRecognizer
    private let capture: any AudioCapture
    private let wake: WakeWordSpotter?
    private let options: Options
    private let inbox = Mutex<(actions: [PushToTalk], jobs: [@Sendable (VoiceRecognizer) -> Void],
                               mean: (values: [Float], failed: @Sendable (any Error) -> Void)?, running: Bool)>(([], [], nil, false))
    private var thread: Thread?
    private let afterEachUtterance: (@Sendable (VoiceRecognizer) -> Void)?
    /// The neural second recognizer, when there is one, and the thread it decides on (it blocks for the transcription,
    /// which must not hold up the microphone).
    private let secondOpinion: SecondOpinion?
    private let decider = DispatchQueue(label: "voice-second-opinion", qos: .userInitiated)

    /// - Parameters:
    ///   - afterEachUtterance: run on the listener's thread after each utterance that was decided
    ///     (not cancelled), before anything else is read from the microphone (to keep what the recognizer learned).
    ///   - secondOpinion: a second recognizer to decide together with (nil: PocketSphinx decides alone).
    public init(recognizer: VoiceRecognizer, capture: any AudioCapture, wakeWord: WakeWordSpotter? = nil, options: Options = Options(),
                secondOpinion: SecondOpinion? = nil, afterEachUtterance: (@Sendable (VoiceRecognizer) -> Void)? = nil) {
        self.recognizer = recognizer
        self.capture = capture
        self.wake = wakeWord
        self.options = options
        self.afterEachUtterance = afterEachUtterance
        self.secondOpinion = secondOpinion
        if secondOpinion != nil { recognizer.keepsUtteranceAudio = true }
        (events, continuation) = AsyncStream<VoiceEvent>.makeStream(bufferingPolicy: .bufferingNewest(32))
    }

    /// Push-to-talk from any thread.
    public func send(_ action: PushToTalk) {
        inbox.withLock { $0.actions.append(action) }
    }

    /// Runs `job` on the listener's thread between utterances (new slot phrases, a reloaded grammar).
    public func perform(_ job: @escaping @Sendable (VoiceRecognizer) -> Void) {
        inbox.withLock { $0.jobs.append(job) }
    }

    /// Starts the recognizer and the wake-word spotter from `mean` before the next utterance, as when voice input
    /// moved to another microphone whose cepstral mean was kept (``VoiceRecognizer/adapt(cepstralMean:)``). The
    /// spotter starts listening afresh from it. `failed` is told when the mean does not fit the speech model.
    public func adapt(cepstralMean mean: [Float], failed: @escaping @Sendable (any Error) -> Void) {
        inbox.withLock { $0.mean = (mean, failed) }
    }

    public func start() {
        inbox.withLock { $0.running = true }
        let t = Thread { [self] in loop() }
        t.name = "voice-listener"
        t.qualityOfService = .userInteractive
        thread = t
        t.start()
    }

    /// Stops after the current chunk; the events stream finishes.
    public func stop() {
        inbox.withLock { $0.running = false }
    }

    private func loop() {
        var listening = false
        var byWake = false
        var preRoll: [Int16] = []
        let preRollCount = Int(options.preRoll * 16_000)
        var vad = EnergyEndpointer()
        var heard = 0
        var utterance: [Int16] = []
        var utteranceNumber = 0
        var wakeActive = false
        var announcedReady = false
        if let wake { wakeActive = (try? wake.begin()) != nil }
        defer { continuation.finish() }

        func startListening(wakeWord: Bool) {
            do {
                try recognizer.begin()
                try recognizer.process(preRoll[...])
                listening = true
                byWake = wakeWord
                heard = preRoll.count
                if options.recordingsDirectory != nil { utterance = preRoll }
                vad = EnergyEndpointer()
                preRoll.removeAll(keepingCapacity: true)
                continuation.yield(.listening(byWakeWord: wakeWord))
            } catch {
                continuation.yield(.problem("cannot start listening: \(error)"))
            }
        }
        func finishListening(cancel: Bool) {
            listening = false
            if let dir = options.recordingsDirectory {
                utteranceNumber += 1
                try? WAVWriter.write(utterance, to: (dir as NSString).appendingPathComponent("utterance-\(utteranceNumber).wav"))
                utterance.removeAll()
            }
            let released = ContinuousClock.now
            do {
                let result = try recognizer.finish()
                let latency = ContinuousClock.now - released
                if cancel {
                    continuation.yield(.cancelled)
                } else if let secondOpinion {
                    continuation.yield(.released)
                    decide(result, with: secondOpinion, released: released)
                } else if let command = result.command {
                    continuation.yield(.recognized(command, latency: latency))
                } else {
                    continuation.yield(.rejected(result, latency: latency))
                }
                if !cancel { afterEachUtterance?(recognizer) }
            } catch {
                continuation.yield(.problem("recognition failed: \(error)"))
            }
            if let wake { wakeActive = (try? wake.begin()) != nil }
        }

        while true {
            let (running, actions, jobs, mean) = inbox.withLock { s in
                let a = s.actions
                s.actions.removeAll()
                var j: [@Sendable (VoiceRecognizer) -> Void] = []
                var m: (values: [Float], failed: @Sendable (any Error) -> Void)?
                if !listening { j = s.jobs; s.jobs.removeAll(); m = s.mean; s.mean = nil }
                return (s.running, a, j, m)
            }
            guard running else { break }
            for job in jobs { job(recognizer) }
            if !listening { secondOpinion?.prepare(from: recognizer) }
            if let mean {
                do {
                    try recognizer.adapt(cepstralMean: mean.values)
                    if let wake {
                        try wake.adapt(cepstralMean: mean.values)
                        wakeActive = (try? wake.begin()) != nil
                    }
                } catch {
                    mean.failed(error)
                }
            }
            if !announcedReady {
                announcedReady = true
                continuation.yield(.ready)
            }
            for action in actions {
                switch action {
                case .press: if !listening { startListening(wakeWord: false) }
                case .release: if listening { finishListening(cancel: false) }
                case .toggle: if listening { finishListening(cancel: false) } else { startListening(wakeWord: false) }
                case .cancel: if listening { finishListening(cancel: true) }
                }
            }
            let chunk: [Int16]
            do { chunk = try capture.read(frames: listening ? options.chunk : max(options.chunk, options.idleChunk)) } catch {
                continuation.yield(.problem("the microphone stopped: \(error)"))
                break
            }
            if listening {
                do { try recognizer.process(chunk[...]) } catch { continuation.yield(.problem("decoding failed: \(error)")) }
                heard += chunk.count
                if options.recordingsDirectory != nil { utterance += chunk }
                // After the wake word there is no key to release: the end of speech ends the utterance.
                let silence = options.endpointSilence ?? (byWake ? 0.8 : nil)
                let endOfSpeech = silence.map { vad.push(chunk, silenceToEnd: $0) } ?? false
                if endOfSpeech || Double(heard) / 16_000 >= options.maximumUtterance {
                    finishListening(cancel: false)
                }
            } else {
                preRoll.append(contentsOf: chunk)
                if preRoll.count > preRollCount { preRoll.removeFirst(preRoll.count - preRollCount) }
                if let wake, wakeActive, (try? wake.process(chunk)) == true {
                    wakeActive = (try? wake.begin()) != nil
                    preRoll.removeAll()
                    startListening(wakeWord: true)
                }
            }
        }
    }
}

extension CommandListener {
    /// Runs the second recognizer on the utterance just decided by PocketSphinx, off the listener's thread, and
    /// reports the outcome.
    private func decide(_ result: VoiceResult, with second: SecondOpinion, released: ContinuousClock.Instant) {
        let samples = recognizer.utteranceAudio
        let state = recognizer.listeningState
        let continuation = self.continuation
        decider.async {
            let report = second.decide(samples: samples, first: result, state: state)
            let latency = ContinuousClock.now - released
            continuation.yield(.checked(report))
            if let command = report.decision.command {
                continuation.yield(.recognized(command, latency: latency))
            } else if report.decision.outcome == .askAgain {
                continuation.yield(.askAgain(report, latency: latency))
            } else {
                var rejected = result
                rejected.command = nil
                rejected.rejection = report.decision.reason
                continuation.yield(.rejected(rejected, latency: latency))
            }
        }
    }
}

/// End-of-utterance detection by energy: speech is 12 dB above the quietest recent level; the utterance
/// ends after `silenceToEnd` seconds without speech once some speech was heard.
public struct EnergyEndpointer: Sendable {
    var floor = -60.0
    var heardSpeech = false
    var silent = 0.0

    public init() {}

    /// Returns true when the utterance has ended.
    public mutating func push(_ chunk: [Int16], silenceToEnd: Double) -> Bool {
        guard !chunk.isEmpty else { return false }
        var sum = 0.0
        for s in chunk { sum += Double(s) * Double(s) }
        let db = 10 * log10(max(sum / Double(chunk.count), 1e-3) / (32768.0 * 32768.0))
        floor = db < floor ? db : floor + 0.05   // drifts up slowly, drops at once
        let seconds = Double(chunk.count) / 16_000
        if db > floor + 12 {
            heardSpeech = true
            silent = 0
        } else {
            silent += seconds
        }
        return heardSpeech && silent >= silenceToEnd
    }
}

/// Keyphrase spotting ("hey soundscape") on a decoder of its own.
public final class WakeWordSpotter {
    public let phrase: String
    let decoder: PocketSphinxDecoder
    var active = false

    /// - Parameters:
    ///   - threshold, phoneLoopProbability: PocketSphinx's `-kws_threshold` and `-kws_plp`; synthetic and
    ///     clear speech need a much lower phone-loop probability than the default 0.1. Chosen with
    ///     `soundscape-bench --only wake --wake-settings threshold,probability`, phone-loop probability
    ///     1e-7: at threshold 1e-25 the phrase was heard 180 times of 180 and ordinary speech woke the spotter
    ///     7 times an hour; at 1e-30, 180 and 8.8; at 1e-20, 179 and 3.5, but a voice change (the test) was
    ///     missed; at 1e-15, 173 and 1.8. (The false wakes are 1–4 in the bench's 34 minutes: a later run of
    ///     1e-25 on audio that differed only in the resampler's history gave 179 and 1.8.)
    ///   - lexicon: the model's dictionary already read (the recognizer's ``VoiceRecognizer/lexicon``); nil reads it.
    public init(phrase: String = "hey soundscape", model: AcousticModel = .debianEnglish,
                extraWords: [(word: String, phones: String)] = [], pronouncer: (any Pronouncer)? = EspeakPronouncer(),
                threshold: Double = 1e-25, phoneLoopProbability: Double = 1e-7, lexicon: PronunciationLexicon? = nil) throws {
        self.phrase = phrase.lowercased()
        // Only the phrase's words, from the dictionary shared with the recognizer (or read here), not all of it.
        decoder = try PocketSphinxDecoder(model: model, options: ["-kws_threshold", "\(threshold)", "-kws_plp", "\(phoneLoopProbability)"],
                                          loadsDictionary: false)
        let dictionary = try lexicon?.adding(extraWords) ?? PronunciationLexicon(contentsOf: model.dictionary, extra: extraWords)
        let words = self.phrase.split(separator: " ").map(String.init)
        let missing = try words.filter { try !decoder.learn($0, from: dictionary) }
        if !missing.isEmpty, let pronouncer {
            for (w, prons) in pronouncer.pronunciations(for: missing) { if let p = prons.first { try decoder.addWord(w, phones: p, update: false) } }
        }
        try decoder.useKeyphrase(self.phrase)
    }

    /// Starts the spotter at a cepstral mean kept from an earlier run on the same microphone (see
    /// ``VoiceRecognizer/adapt(cepstralMean:)``), so that the first wake word is not heard through the model's
    /// stock mean. Call before ``begin()``.
    public func adapt(cepstralMean mean: [Float]) throws {
        try decoder.setCepstralMean(mean)
    }

    /// The spotter's current cepstral mean.
    public var cepstralMean: [Float] { decoder.cepstralMean }

    public func begin() throws {
        if active { _ = try? decoder.end() }
        try decoder.begin()
        active = true
    }

    /// Feeds audio; true when the phrase was just heard.
    public func process(_ chunk: [Int16]) throws -> Bool {
        try decoder.process(chunk[...])
        if !decoder.partialHypothesis().trimmingCharacters(in: .whitespaces).isEmpty {
            _ = try? decoder.end()
            active = false
            return true
        }
        return false
    }
}

/// 16 kHz mono 16-bit WAV files, for saved utterances.
enum WAVWriter {
    static func write(_ samples: [Int16], to path: String, sampleRate: Int = 16_000) throws {
        var data = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); u32(UInt32(36 + samples.count * 2)); data.append(contentsOf: Array("WAVE".utf8))
        data.append(contentsOf: Array("fmt ".utf8)); u32(16); u16(1); u16(1); u32(UInt32(sampleRate)); u32(UInt32(sampleRate * 2)); u16(2); u16(16)
        data.append(contentsOf: Array("data".utf8)); u32(UInt32(samples.count * 2))
        samples.withUnsafeBytes { data.append(contentsOf: $0) }
        try data.write(to: URL(fileURLWithPath: path))
    }
}
