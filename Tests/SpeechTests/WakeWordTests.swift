import Foundation
import Synchronization
import Speech
import Testing

/// The wake phrase ("hey soundscape") spotted in a stream of espeak-ng speech, as the listener feeds it: 20 ms
/// chunks to one decoder running between commands.
@Suite("Wake word", .serialized)
struct WakeWordTests {
    /// Feeds `samples` in 20 ms chunks; the time in seconds at which the spotter fired, or nil.
    static func firstDetection(_ spotter: WakeWordSpotter, in samples: [Int16]) throws -> Double? {
        try spotter.begin()
        var i = 0
        while i < samples.count {
            let end = min(i + 320, samples.count)
            if try spotter.process(Array(samples[i..<end])) { return Double(end) / 16_000 }
            i = end
        }
        return nil
    }

    /// A second of a faint noise floor (about −50 dBFS; exact digital silence derails PocketSphinx).
    static let quiet: [Int16] = {
        var seed: UInt64 = 7
        return (0..<16_000).map { _ in
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int16(Int64(seed >> 33) % 199 - 99)
        }
    }()

    /// The cepstral mean a command recognizer reached on this kind of audio: what microphones.json keeps.
    static func keptMean() throws -> [Float] {
        let recognizer = RecognizerTests.recognizer
        _ = try recognizer.recognize(RecognizerTests.speech("where am i", voice: "en-us", rate: 160))
        return recognizer.cepstralMean
    }

    /// The spotter starts from the microphone's kept mean, as `run` starts it: then the phrase said a few
    /// seconds after other speech is heard. (From the model's stock mean, the spotter needs some 15 s of this
    /// audio before its mean has moved far enough to hear the phrase.)
    @Test func aSpotterStartedFromTheKeptMeanHearsThePhraseAndNotOrdinarySpeech() throws {
        let spotter = try WakeWordSpotter()
        let stock = spotter.cepstralMean
        #expect(stock.count == 13)
        let kept = try Self.keptMean()
        #expect(kept != stock)
        try spotter.adapt(cepstralMean: kept)
        #expect(spotter.cepstralMean == kept)
        #expect(throws: RecognitionError.self) { try spotter.adapt(cepstralMean: [40, 1]) }

        let phrase = try RecognizerTests.speech("hey soundscape", voice: "en-us", rate: 160)
        let other = try RecognizerTests.speech("the weather is nice today and the bus is late", voice: "en-us", rate: 160)
        let stream = other + Self.quiet + phrase
        let heard = try #require(try Self.firstDetection(spotter, in: stream), "the wake phrase was not heard")
        let phraseStarts = Double(other.count + Self.quiet.count) / 16_000
        #expect(heard > phraseStarts, "fired at \(heard) s; the phrase starts at \(phraseStarts) s")

        // Commands and chatter, in another voice, do not wake it.
        for text in ["where am i", "what is around me", "hey there how are you", "the sound of the sea", "say that again"] {
            let samples = try RecognizerTests.speech(text, voice: "en-gb-scotland", rate: 170)
            #expect(try Self.firstDetection(spotter, in: Self.quiet + samples) == nil, "\"\(text)\" woke the spotter")
        }
        // And the phrase in that voice, after a sentence, does.
        let sentence = try RecognizerTests.speech("i would like a cup of coffee", voice: "en-gb-scotland", rate: 170)
        let scottish = try RecognizerTests.speech("hey soundscape", voice: "en-gb-scotland", rate: 170)
        let detected = try Self.firstDetection(spotter, in: sentence + Self.quiet + scottish)
        #expect(detected.map { $0 > Double(sentence.count + Self.quiet.count) / 16_000 } == true, "heard at \(String(describing: detected))")
    }

    /// A faint noise floor, read in 20 ms chunks at about the pace of a microphone.
    final class QuietMicrophone: AudioCapture, @unchecked Sendable {
        func read(frames: Int) throws -> [Int16] {
            Thread.sleep(forTimeInterval: 0.005)
            return Array(WakeWordTests.quiet.prefix(frames))
        }
    }

    /// When voice input moves to another microphone, the listener starts the recognizer and the wake-word spotter
    /// from the mean kept for it, between utterances on its own thread; a mean that does not fit is reported.
    @Test func aListenerMovedToAnotherMicrophoneStartsTheRecognizerAndTheSpotterFromItsMean() async throws {
        let recognizer = try VoiceRecognizer(grammar: ShippedGrammar.load())
        let spotter = try WakeWordSpotter()
        let stock = (recognizer.cepstralMean, spotter.cepstralMean)
        let kept = try Self.keptMean()
        #expect(kept != stock.0 && kept != stock.1)
        let listener = CommandListener(recognizer: recognizer, capture: QuietMicrophone(), wakeWord: spotter)
        let problems = Mutex<[String]>([])
        // Two switches before the listener's loop looks: only the later microphone's mean is taken.
        listener.adapt(cepstralMean: [40, 1]) { error in problems.withLock { $0.append("\(error)") } }
        listener.adapt(cepstralMean: kept) { error in problems.withLock { $0.append("\(error)") } }
        listener.start()
        // A job queued after the mean runs in the same turn of the listener's loop or a later one; the loop
        // finishes that turn before it sees the stop.
        let ran = Mutex(false)
        listener.perform { _ in ran.withLock { $0 = true } }
        while !ran.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        listener.stop()
        for await _ in listener.events {}
        #expect(problems.withLock { $0 }.isEmpty)
        #expect(zip(recognizer.cepstralMean, kept).allSatisfy { abs($0 - $1) < 1e-3 }, "\(recognizer.cepstralMean)")
        #expect(zip(spotter.cepstralMean, kept).allSatisfy { abs($0 - $1) < 1e-3 }, "\(spotter.cepstralMean)")

        // A running listener: one that does not fit is reported and changes nothing; the next switch is taken.
        // The spotter's mean follows every step of audio it hears after the switch; 20 ms steps between utterances
        // (not the idle 100 ms) keep that drift, before the check below, inside its tolerance.
        var steps = CommandListener.Options()
        steps.idleChunk = steps.chunk
        let second = CommandListener(recognizer: recognizer, capture: QuietMicrophone(), wakeWord: spotter, options: steps)
        second.start()
        second.adapt(cepstralMean: [40, 1]) { error in problems.withLock { $0.append("\(error)") } }
        while problems.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(problems.withLock { $0 }.first?.contains("13 finite values") == true, "\(problems.withLock { $0 })")
        second.adapt(cepstralMean: stock.0) { error in problems.withLock { $0.append("\(error)") } }
        let ranAgain = Mutex(false)
        second.perform { _ in ranAgain.withLock { $0 = true } }
        while !ranAgain.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        second.stop()
        for await _ in second.events {}
        #expect(problems.withLock { $0.count } == 1)
        #expect(zip(recognizer.cepstralMean, stock.0).allSatisfy { abs($0 - $1) < 1e-3 }, "\(recognizer.cepstralMean)")
        #expect(zip(spotter.cepstralMean, stock.0).allSatisfy { abs($0 - $1) < 1e-3 }, "\(spotter.cepstralMean)")
    }
}
