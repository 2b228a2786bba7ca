import Foundation
import Speech
import Testing

/// PocketSphinx's own confidence on real espeak-ng audio through the real decoders (the recognizer of
/// ``RecognizerTests``, so one decoder serves both suites as live input would), and its arithmetic.
@Suite("Confidence and rejection", .serialized)
struct ConfidenceTests {
    @Test func aClearCommandFitsAsWellAsThePhoneLoopAndIsTakenSurely() throws {
        let recognizer = RecognizerTests.recognizer
        // Warm the live cepstral mean on one utterance first, as a running listener would have.
        _ = try recognizer.recognize(RecognizerTests.speech("where am i"))
        let command = try recognizer.recognize(RecognizerTests.speech("mute the beacon"))
        #expect(command.command?.intent == "mute_beacon", "heard \(command.text), \(command.rejection ?? "accepted"), \(command.features)")
        #expect(command.confidence >= AcousticConfidence.standard.threshold, "\(command.features)")
    }

    @Test func confidenceIsHalfAtTheCenterAndRisesWithTheFit() {
        let confidence = AcousticConfidence(center: -0.5, spread: 0.1)
        var f = ConfidenceFeatures(worstWord: 0, meanWord: -0.5, speechInFillers: 0, wordCount: 2, speechFrames: 80)
        #expect(abs(confidence.confidence(f) - 0.5) < 1e-12)
        f.meanWord = -0.3   // two spreads above the center
        #expect(abs(confidence.confidence(f) - 1 / (1 + exp(-2))) < 1e-12)
        f.meanWord = -0.8
        #expect(confidence.confidence(f) < confidence.threshold)
        #expect(AcousticConfidence.acceptAll.confidence(f) == 1)
    }

    /// Asleep, a command needs 0.8: one accepted awake at 0.62 is refused asleep. A threshold of its own above
    /// the floor is kept.
    @Test func asleepACommandNeedsTheFloor() {
        let confidence = AcousticConfidence(center: -0.5, spread: 0.1)
        let f = ConfidenceFeatures(worstWord: 0, meanWord: -0.45, speechInFillers: 0, wordCount: 2, speechFrames: 80)   // 0.62
        let awake = ListeningState.awake.deciding(confidence), asleep = ListeningState.asleep.deciding(confidence)
        #expect(awake.threshold == 0.5 && asleep.threshold == 0.8)
        #expect(awake.confidence(f) >= awake.threshold)
        #expect(asleep.confidence(f) < asleep.threshold)
        var strict = confidence
        strict.threshold = 0.9
        #expect(ListeningState.asleep.deciding(strict).threshold == 0.9)
    }
}
