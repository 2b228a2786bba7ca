import Foundation
@testable import Speech
import Testing

/// RNNoise, as scripts/setup fetches it (make test sets SOUNDSCAPE_DATA; a plain `swift test` finds it in .data/).
@Suite("RNNoise before recognition")
struct NeuralNoiseSuppressorTests {
    static var libraryPath: String {
        RecognizerTests.configuration().neuralDenoiser
            ?? FileManager.default.currentDirectoryPath + "/.data/rnnoise/librnnoise.so"
    }

    static func library() throws -> NeuralNoiseSuppressor.Library {
        try NeuralNoiseSuppressor.Library(path: libraryPath)
    }

    /// Feeds `input` in chunks of `chunk` samples, then flushes.
    static func run(_ suppressor: NeuralNoiseSuppressor, _ input: [Int16], chunk: Int) -> [Int16] {
        suppressor.cleanAll(input, chunk: chunk)
    }

    @Test func streetLikeNoiseIsRemovedAndSpeechOverItKept() throws {
        let suppressor = try NeuralNoiseSuppressor(library: Self.library())
        let noise = NoiseSuppressorTests.signal(seconds: 1.5, noise: 1_500, tone: 0, seed: 7)
        let speech = try RecognizerTests.speech("where is the beacon")
        let noisySpeech = zip(speech, NoiseSuppressorTests.signal(seconds: Double(speech.count) / 16_000, noise: 1_500, tone: 0, seed: 8))
            .map { Int16(clamping: Int($0) + Int($1)) }
        let input = noise + noisySpeech
        let out = Self.run(suppressor, input, chunk: 777)
        #expect(out.count == input.count)
        // Noise alone, once the network has heard some: at least 12 dB weaker (15 % of the input is mixed back, so
        // about 16.5 dB at most; a little more where what RNNoise lets through cancels some of it).
        let noiseIn = NoiseSuppressorTests.rms(input[8_000..<24_000]), noiseOut = NoiseSuppressorTests.rms(out[8_000..<24_000])
        #expect(20 * log10(noiseOut / noiseIn) < -12, "noise \(noiseIn) → \(noiseOut)")
        #expect(20 * log10(noiseOut / noiseIn) > -19, "noise \(noiseIn) → \(noiseOut)")
        // The speech itself (its loudest half second, clean) keeps its level within 6 dB.
        let start = 24_000 + Self.loudest(speech, window: 8_000)
        let speechIn = NoiseSuppressorTests.rms(speech[(start - 24_000)..<(start - 16_000)])
        let speechOut = NoiseSuppressorTests.rms(out[start..<(start + 8_000)])
        #expect(abs(20 * log10(speechOut / speechIn)) < 6, "speech \(speechIn) → \(speechOut)")
    }

    /// Where the window of `window` samples with the most energy starts.
    static func loudest(_ x: [Int16], window: Int) -> Int {
        var best = 0, bestEnergy = -1.0
        for start in stride(from: 0, to: max(1, x.count - window), by: 160) {
            let e = NoiseSuppressorTests.rms(x[start..<min(x.count, start + window)])
            if e > bestEnergy { (best, bestEnergy) = (start, e) }
        }
        return best
    }

    @Test func withNothingMixedBackTheNoiseGoesFurther() throws {
        let suppressor = try NeuralNoiseSuppressor(library: Self.library(), kept: 0)
        let noise = NoiseSuppressorTests.signal(seconds: 1.5, noise: 1_500, tone: 0, seed: 7)
        let out = Self.run(suppressor, noise, chunk: 777)
        let noiseIn = NoiseSuppressorTests.rms(noise[8_000..<24_000]), noiseOut = NoiseSuppressorTests.rms(out[8_000..<24_000])
        #expect(20 * log10(noiseOut / noiseIn) < -20, "noise \(noiseIn) → \(noiseOut)")
    }

    @Test(arguments: [1, 160, 777, 4_096])
    func asManySamplesComeOutAsWentInUtteranceAfterUtterance(_ chunk: Int) throws {
        let suppressor = try NeuralNoiseSuppressor(library: Self.library())
        for (seconds, seed) in [(0.37, UInt64(1)), (1.0, 2), (0.004, 3)] {
            let input = NoiseSuppressorTests.signal(seconds: seconds, noise: 500, tone: 3_000, seed: seed)
            #expect(Self.run(suppressor, input, chunk: chunk).count == input.count, "\(seconds) s in chunks of \(chunk)")
        }
        #expect(suppressor.flush().isEmpty)
    }

    /// The output is the input 20 ms later (RNNoise holds back two of its frames).
    @Test func theOutputIsTheInputTwentyMillisecondsLater() throws {
        let suppressor = try NeuralNoiseSuppressor(library: Self.library())
        // Speech, so that the network lets it through.
        let speech = try RecognizerTests.speech("stop")
        let out = Self.run(suppressor, speech, chunk: 320)
        var best = 0, bestScore = -Double.infinity
        for lag in -480...480 {
            var score = 0.0
            for i in stride(from: max(0, -lag), to: min(speech.count, speech.count - lag), by: 2) {
                score += Double(speech[i]) * Double(out[i + lag])
            }
            if score > bestScore { (best, bestScore) = (lag, score) }
        }
        #expect(abs(best - 320) <= 4, "the output lags by \(best) samples")
    }

    @Test func aMissingOrForeignLibraryIsNamed() throws {
        #expect(throws: RecognitionError.self) { try NeuralNoiseSuppressor.Library(path: "/nonexistent/librnnoise.so") }
        do {
            _ = try NeuralNoiseSuppressor.Library(path: "/nonexistent/librnnoise.so")
        } catch {
            #expect("\(error)".contains("/nonexistent/librnnoise.so") && "\(error)".contains("does not exist"), "\(error)")
        }
        let libm = ["/lib/x86_64-linux-gnu/libm.so.6", "/lib/aarch64-linux-gnu/libm.so.6", "/usr/lib/libm.so.6"]
            .first { FileManager.default.fileExists(atPath: $0) }
        let foreign = try #require(libm)
        do {
            _ = try NeuralNoiseSuppressor.Library(path: foreign)
            Issue.record("\(foreign) was taken for RNNoise")
        } catch {
            #expect("\(error)".contains(foreign) && "\(error)".contains("rnnoise_create"), "\(error)")
        }
    }

    @Test func aRecognizerWhoseLibraryIsMissingSaysSoAndStillRecognizes() throws {
        var configuration = VoiceRecognizer.Configuration()
        configuration.neuralDenoiser = "/nonexistent/librnnoise.so"
        let recognizer = try VoiceRecognizer(grammar: ShippedGrammar.load(), configuration: configuration)
        #expect(recognizer.neuralDenoiserProblem?.contains("/nonexistent/librnnoise.so") == true,
                "\(recognizer.neuralDenoiserProblem ?? "no problem reported")")
        let result = try recognizer.recognize(RecognizerTests.speech("where am i"))
        #expect(result.command?.intent == "where_am_i", "heard \(result.text), \(result.rejection ?? "accepted")")
    }

    @Test func theRecognizerUsesItWhenConfigured() throws {
        var configuration = VoiceRecognizer.Configuration()
        configuration.neuralDenoiser = Self.libraryPath
        let recognizer = try VoiceRecognizer(grammar: ShippedGrammar.load(), configuration: configuration)
        #expect(recognizer.neuralDenoiserProblem == nil)
        #expect(recognizer.neural != nil)
        let result = try recognizer.recognize(RecognizerTests.speech("mute the beacon"))
        #expect(result.command?.intent == "mute_beacon", "heard \(result.text), \(result.rejection ?? "accepted")")
    }
}
