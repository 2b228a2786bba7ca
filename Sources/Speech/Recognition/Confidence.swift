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
    /// How far the best grammar path is ahead of the best path with another meaning (intent or slots)
    /// (``NBestMargin``), per frame; 0 when there was no lattice or when
    /// it was not measured (see ``nbestMarginMeasured``).
    public var nbestMargin: Double = 0
    /// Whether ``nbestMargin`` was measured. The recognizer skips the N-best search when the other features
    /// already decide (``ConfidenceModel/marginCanChange(_:)``).
    public var nbestMarginMeasured = false
    /// How much better the grammar path scores than a loop of everyday English words (``EverydayWords``)
    /// decoded from the same audio, per frame: about 0 or above for a command, well below for ordinary speech
    /// (which that loop fits and the grammar does not). 0 when there is no everyday loop.
    public var everydayMargin: Double = 0
    /// ``everydayMargin`` times the frames of speech: how much the grammar path is ahead of (or behind) the
    /// everyday loop over the whole of the speech rather than per frame. Evidence adds up over time: a
    /// five-word sentence that fits everyday English a little better in every frame is plainly not a command,
    /// while a one-word command that fits the loop about as well ("help") carries little evidence either way.
    /// In the fit of ``ConfidenceModel/tuned`` it rejects 84 % of the held-out out-of-grammar sentences where the
    /// per-frame margin rejected 67 %, at a little less false rejection of clean commands.
    public var everydayEvidence: Double { everydayMargin * Double(speechFrames) }
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

/// Confidence from ``ConfidenceFeatures``: a logistic model, 1 / (1 + e^−z) with
/// z = bias + Σ weight × feature, and the threshold below which an utterance is rejected.
/// ``tuned`` was fitted by `soundscape bench` on espeak-ng commands against out-of-grammar sentences.
public struct ConfidenceModel: Sendable, Equatable, Codable {
    public var bias: Double
    public var worstWordWeight: Double
    public var meanWordWeight: Double
    public var utteranceWeight: Double
    public var speechInFillersWeight: Double
    public var phoneErrorRateWeight: Double
    public var phoneCountRatioWeight: Double
    public var framesPerPhoneWeight: Double
    public var everydayMarginWeight: Double
    /// Weight of ``ConfidenceFeatures/everydayEvidence``.
    public var everydayEvidenceWeight: Double
    /// Weight of log(1 + ``ConfidenceFeatures/nbestMargin``) (the margin's spread is wide, its log is not).
    public var nbestMarginWeight: Double
    /// The margin counts up to this many score units per frame. With a positive weight its term lies
    /// between 0 and weight × log(1 + cap), so the decision is known without it when the other features put
    /// z above the threshold, or below it by more than that (``marginCanChange(_:)``).
    public var nbestMarginCap: Double
    public var threshold: Double

    public init(bias: Double, worstWordWeight: Double = 0, meanWordWeight: Double = 0, utteranceWeight: Double = 0,
                speechInFillersWeight: Double = 0, phoneErrorRateWeight: Double = 0, phoneCountRatioWeight: Double = 0,
                framesPerPhoneWeight: Double = 0, everydayMarginWeight: Double = 0, everydayEvidenceWeight: Double = 0,
                nbestMarginWeight: Double = 0, nbestMarginCap: Double = .infinity,
                threshold: Double = 0.5) {
        self.bias = bias
        self.worstWordWeight = worstWordWeight
        self.meanWordWeight = meanWordWeight
        self.utteranceWeight = utteranceWeight
        self.speechInFillersWeight = speechInFillersWeight
        self.phoneErrorRateWeight = phoneErrorRateWeight
        self.phoneCountRatioWeight = phoneCountRatioWeight
        self.framesPerPhoneWeight = framesPerPhoneWeight
        self.everydayMarginWeight = everydayMarginWeight
        self.everydayEvidenceWeight = everydayEvidenceWeight
        self.nbestMarginWeight = nbestMarginWeight
        self.nbestMarginCap = nbestMarginCap
        self.threshold = threshold
    }

    /// Fitted by logistic regression (the two classes weighted equally, L2 0.001 on standardized features) on
    /// the TUNING split of the `soundscape bench` corpus (``VoiceCorpus``: voices 0, 2, 4 of its six, commands
    /// recognized word for word in every condition, clean and at 20, 10 and 5 dB SNR, through RNNoise and the
    /// spectral noise suppressor, against the even-numbered out-of-grammar sentences, clean and at 10 dB, that the grammar
    /// turned into a command). Its threshold and that of ``tunedWithoutMargin`` (both 0.5 then, folded into the
    /// biases; the latter's was raised to 0.7 later, see there) were chosen together, as the recognizer uses
    /// the two models (an utterance whose N-best search overruns its budget is decided by the other): the pair that rejects the most tuning out-of-grammar
    /// sentences while rejecting at most 2 % of the tuning split's clean commands, misheard ones included
    /// (`BUDGET=35 scripts/fit-confidence.py DUMP worstWord,…,everydayEvidence,logMargin 2`).
    ///
    /// On the dump it was fitted on (the bench's 120 phrasings × 6 voices × 4 conditions through RNNoise, run on
    /// the AVX2 kernels, and speexdsp, with the 1,200-word everyday loop and the awake search, which has no "wake
    /// up" (``ListeningState``); 190 out-of-grammar sentences, 20 of them short remarks such as "okay" and "no
    /// thanks"), the pair gets held-out 95.3 % of clean commands right and rejects 2.2 % of them, gets 96.9 % right
    /// at 20 dB, 95.3 % at 10 dB and 90.0 % at 5 dB, and rejects 94.7 % of the out-of-grammar sentences. The fit
    /// before it, on the grammar with "wake up", rejected 94.4 %, and 91.6 % with a 400-word loop. The fit
    /// before those, made on RNNoise's own arithmetic, refused 2.5 % of the held-out clean commands once the
    /// kernels were in use (their output is 48 dB from the library's): the model follows the audio it is given.
    /// Before RNNoise the fit rejected 84.2 % of the out-of-grammar sentences, and 17 % of the commands at
    /// 5 dB. A fit with the per-frame ``ConfidenceFeatures/everydayMargin`` in place of
    /// ``ConfidenceFeatures/everydayEvidence`` rejected far less out-of-grammar speech (67.4 % against 84.2 %).
    /// The bench reports the figures on the held-out split (voices 1, 3, 5; odd sentences).
    /// Refit with `SOUNDSCAPE_ASR_DUMP=file soundscape bench --only speech` (alone on the machine: the dumped
    /// latencies decide which utterances overrun the budget) and scripts/fit-confidence.py.
    public static let tuned = ConfidenceModel(
        bias: 7.3664, worstWordWeight: 232.555, meanWordWeight: 576.749, utteranceWeight: -628.413,
        speechInFillersWeight: -10.1023, phoneErrorRateWeight: -3.61099, phoneCountRatioWeight: -0.0216403,
        framesPerPhoneWeight: -0.107948, everydayEvidenceWeight: 30.542, nbestMarginWeight: 0.508967, nbestMarginCap: 60,
        threshold: 0.5)

    /// The same fit without the N-best margin, for utterances whose margin search ran past its time budget
    /// (``VoiceRecognizer/marginBudget``). Rejecting those outright instead rejected 2.8 % of clean held-out
    /// commands (most with a place name: 150 names make a big lattice).
    ///
    /// It stands in for ``tuned`` when the rivals could not be weighed, so its threshold is the one at which it
    /// decides as ``tuned`` would have with the margin: on the tuning split of a `make bench` dump with every
    /// margin measured, of the 22 utterances whose search would have overrun 35 ms, it agreed with ``tuned`` on
    /// 14 at 0.5, 16 at 0.6, 18 at 0.7, 17 at 0.75 and 14 at 0.8. At 0.5 it let through long out-of-grammar
    /// sentences that the margin would have refused. Held out (34 such utterances) it agrees on 29 at 0.7
    /// against 15 at 0.5. On that dump's held-out split, taking its latencies for the searches' times, the
    /// out-of-grammar rejection goes from 93.2 to 95.8 %, at the same clean accuracy and refusals (96.4 %, 1.7 %),
    /// with 3 commands of 360 fewer right at 5 dB (90.3 → 89.4 %), 2 at 20 dB and 1 at 10 dB. A refit with
    /// `BUDGET=35 scripts/fit-confidence.py` chooses the fallback's threshold the same way.
    public static let tunedWithoutMargin = ConfidenceModel(
        bias: 8.97453, worstWordWeight: 267.975, meanWordWeight: 575.125, utteranceWeight: -682.158,
        speechInFillersWeight: -10.7977, phoneErrorRateWeight: -3.59795, phoneCountRatioWeight: 0.0634344,
        framesPerPhoneWeight: -0.0800358, everydayEvidenceWeight: 32.0953, threshold: 0.7)

    /// Accepts everything the grammar matched (no rejection).
    public static let acceptAll = ConfidenceModel(bias: 10, threshold: 0)

    public func z(_ f: ConfidenceFeatures) -> Double {
        bias + worstWordWeight * f.worstWord + meanWordWeight * f.meanWord + utteranceWeight * f.utterance
            + speechInFillersWeight * f.speechInFillers + phoneErrorRateWeight * f.phoneErrorRate
            + phoneCountRatioWeight * f.phoneCountRatio + framesPerPhoneWeight * f.framesPerPhone
            + everydayMarginWeight * f.everydayMargin + everydayEvidenceWeight * f.everydayEvidence
            + nbestMarginWeight * log1p(min(max(0, f.nbestMargin), nbestMarginCap))
    }

    /// Whether measuring the N-best margin could change the accept/reject decision for features whose
    /// other measurements are known (their ``ConfidenceFeatures/nbestMargin`` is ignored).
    public func marginCanChange(_ f: ConfidenceFeatures) -> Bool {
        guard nbestMarginWeight != 0 else { return false }
        var without = f
        without.nbestMargin = 0
        let z0 = z(without)
        let zThreshold = log(threshold / (1 - threshold))
        let span = abs(nbestMarginWeight) * log1p(max(0, nbestMarginCap))
        // The margin term lies in [0, span] (weight > 0) or [−span, 0] (weight < 0).
        let low = nbestMarginWeight > 0 ? z0 : z0 - span, high = nbestMarginWeight > 0 ? z0 + span : z0
        return low < zThreshold && high >= zThreshold
    }

    public func confidence(_ f: ConfidenceFeatures) -> Double { 1 / (1 + exp(-z(f))) }
}
