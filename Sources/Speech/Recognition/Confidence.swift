import Foundation

/// Measurements of how well the grammar's forced answer fits the audio, compared with an unconstrained
/// phone loop decoded from the same audio. Speech that is in the grammar fits the grammar path about as
/// well as the phone loop; out-of-grammar speech and noise fit it much worse somewhere.
///
/// Scores are natural-log likelihoods per 10 ms frame (PocketSphinx scores × ln 1.0001).
public struct ConfidenceFeatures: Sendable, Equatable, Codable {
    /// Worst word: (grammar word score − phone-loop score over the same frames) / frames. ≤ 0 is typical.
    public var worstWord: Double
    /// The same over all words together.
    public var meanWord: Double
    /// Share of the phone loop's speech frames that the grammar path put in silence or noise fillers.
    public var speechInFillers: Double
    /// Whole utterance: (grammar path score − phone-loop score) / frames, fillers included.
    public var utterance: Double = 0
    /// Edit distance between the phones the grammar's words should have and the phones the phone loop
    /// heard over the same frames, per expected phone.
    public var phoneErrorRate: Double = 0
    /// Phones the grammar path's words should have, against the speech phones the phone loop heard over
    /// the whole utterance: a long sentence forced onto a short command hears many more than expected.
    public var phoneCountRatio: Double = 1
    /// Frames of the grammar's words per expected phone (a short command stretched over long speech).
    public var framesPerPhone: Double = 0
    /// Number of words in the grammar path.
    public var wordCount: Int
    /// Frames of speech the phone loop found.
    public var speechFrames: Int

    public static let logBase = log(1.0001)

    public init(worstWord: Double, meanWord: Double, speechInFillers: Double, wordCount: Int, speechFrames: Int) {
        self.worstWord = worstWord
        self.meanWord = meanWord
        self.speechInFillers = speechInFillers
        self.wordCount = wordCount
        self.speechFrames = speechFrames
    }

    public init(words: [DecodedSegment], phones: [DecodedSegment], frames: Int, pronunciation: (String) -> [String] = { _ in [] }) {
        let real = words.filter { !$0.isFiller && $0.frameCount > 0 }
        let speech = phones.filter { $0.word != "SIL" && !$0.isFiller && $0.frameCount > 0 }
        func loopScore(_ start: Int, _ end: Int) -> Double {
            var total = 0.0
            for p in phones where p.endFrame >= start && p.startFrame <= end && p.frameCount > 0 {
                let overlap = min(end, p.endFrame) - max(start, p.startFrame) + 1
                total += Double(p.acousticScore) * Double(overlap) / Double(p.frameCount)
            }
            return total
        }
        var worst = 0.0, sumDiff = 0.0, sumFrames = 0
        for w in real {
            let diff = (Double(w.acousticScore) - loopScore(w.startFrame, w.endFrame)) * Self.logBase
            worst = min(worst, diff / Double(w.frameCount))
            sumDiff += diff
            sumFrames += w.frameCount
        }
        var inFillers = 0, speechFrames = 0
        for p in speech {
            speechFrames += p.frameCount
            for f in p.startFrame...p.endFrame where !real.contains(where: { f >= $0.startFrame && f <= $0.endFrame }) {
                inFillers += 1
            }
        }
        let total = words.reduce(0.0) { $0 + Double($1.acousticScore) } - phones.reduce(0.0) { $0 + Double($1.acousticScore) }
        self.utterance = frames > 0 ? total * Self.logBase / Double(frames) : -10
        var expected: [String] = []
        for w in real { expected += pronunciation(w.word) }
        let heard = speech.filter { p in
            let mid = (p.startFrame + p.endFrame) / 2
            return real.contains { mid >= $0.startFrame && mid <= $0.endFrame }
        }.map(\.word)
        self.phoneErrorRate = expected.isEmpty ? 1 : Double(Self.editDistance(expected, heard)) / Double(expected.count)
        self.phoneCountRatio = Double(speech.count) / Double(max(1, expected.count))
        self.framesPerPhone = Double(sumFrames) / Double(max(1, expected.count))
        self.worstWord = real.isEmpty ? -10 : worst
        self.meanWord = sumFrames == 0 ? -10 : sumDiff / Double(sumFrames)
        self.speechInFillers = speechFrames == 0 ? 0 : Double(inFillers) / Double(speechFrames)
        self.wordCount = real.count
        self.speechFrames = speechFrames
    }
}

extension ConfidenceFeatures {
    static func editDistance(_ a: [String], _ b: [String]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// PocketSphinx's own confidence in the command it heard: how well the grammar path's words fit the audio
/// against the free phone loop over the same frames (``ConfidenceFeatures/meanWord``), mapped onto 0…1 — 1 when
/// they fit as well as the phone loop, 0.5 at ``center`` — and the threshold below which a command is refused.
///
/// It is one measure, not a model fitted on one synthesizer's voices: telling ordinary speech from commands is the
/// second recognizer's job (how far Whisper's transcript had to be moved onto the grammar, ``RecognizerDecision``).
/// This confidence is PocketSphinx's evidence in that decision, and the whole of its rejection when there is no
/// second recognizer.
public struct AcousticConfidence: Sendable, Equatable, Codable {
    /// The per-frame gap (natural log units) at which the confidence is 0.5.
    public var center: Double
    /// How quickly the confidence falls around ``center`` (the logistic's scale, in the same units).
    public var spread: Double
    /// Commands below this confidence are refused.
    public var threshold: Double

    public init(center: Double, spread: Double, threshold: Double = 0.5) {
        self.center = center
        self.spread = spread
        self.threshold = threshold
    }

    /// Chosen on the espeak-ng tuning voices of `soundscape-bench` (docs/measurements.md, "Simpler recognizer").
    public static let standard = AcousticConfidence(center: -0.0048, spread: 0.0006)

    /// Accepts everything the grammar matched (no rejection).
    public static let acceptAll = AcousticConfidence(center: -.infinity, spread: 1, threshold: 0)

    public func confidence(_ f: ConfidenceFeatures) -> Double {
        guard center.isFinite else { return 1 }
        return 1 / (1 + exp(-(f.meanWord - center) / spread))
    }
}
