import CPocketSphinx
import Foundation

/// The commonest words of everyday English, each with its unigram probability, read from the model's
/// large-vocabulary language model. The recognizer decodes every utterance a second time against a loop of
/// these words, weighed by how common each is, and compares: ordinary speech ("where is the bus stop", "i need
/// to buy some bread") fits that loop much better than any command, a command fits its grammar path about as
/// well as the loop (``ConfidenceFeatures/everydayMargin``).
public struct EverydayWords: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var word: String
        public var probability: Double
        public init(word: String, probability: Double) {
            self.word = word
            self.probability = probability
        }
    }

    /// Most probable first.
    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// The `count` most probable words of the language model at `path` that `isKnown` (has a pronunciation)
    /// accepts; sentence markers and words with other than letters and apostrophes are skipped.
    public static func load(languageModel path: String, count: Int, isKnown: (String) -> Bool) throws -> EverydayWords {
        guard FileManager.default.fileExists(atPath: path) else {
            throw RecognitionError(message: "the language model \(path) is missing (Debian package pocketsphinx-en-us)")
        }
        guard let logMath = logmath_init(1.0001, 0, 0) else { throw RecognitionError(message: "cannot set up log arithmetic") }
        defer { logmath_free(logMath) }
        guard let model = ngram_model_read(nil, path, NGRAM_AUTO, logMath) else {
            throw RecognitionError(message: "cannot read the language model \(path)")
        }
        defer { ngram_model_free(model) }
        let unigrams = Int(ngram_model_get_counts(model)[0])
        var all: [(word: String, score: Int32)] = []
        all.reserveCapacity(unigrams)
        for id in 0..<unigrams {
            guard let c = ngram_word(model, Int32(id)) else { continue }
            let word = String(cString: c)
            guard !word.isEmpty, word.allSatisfy({ $0.isLowercase || $0 == "'" }) else { continue }
            var used: Int32 = 0
            all.append((word, ngram_ng_score(model, Int32(id), nil, 0, &used)))
        }
        all.sort { $0.score != $1.score ? $0.score > $1.score : $0.word < $1.word }
        var entries: [Entry] = []
        for (word, score) in all where entries.count < count && isKnown(word) {
            entries.append(Entry(word: word, probability: logmath_exp(logMath, score)))
        }
        return EverydayWords(entries: entries)
    }

    /// The loop as a PocketSphinx FSG: every word leads from the start state 0 to the final state 1, weighed
    /// by its probability, and a null transition leads back for the next word. Every word's end is thus the
    /// end of a complete path. (Written in JSGF, `(<word>)+`, the words end in an inner state that reaches the
    /// final one only by a null transition, which the search takes at the start of the next frame: after the
    /// last frame there is none, and with the loop's narrow beams a quarter of the utterances ended without a
    /// complete path, and so without a score.)
    public func fsg(name: String = "everyday") -> String {
        var lines = ["FSG_BEGIN \(name)", "NUM_STATES 2", "START_STATE 0", "FINAL_STATE 1"]
        lines.reserveCapacity(entries.count + 6)
        for e in entries { lines.append("TRANSITION 0 1 \(Self.decimal(e.probability)) \(e.word)") }
        lines.append("TRANSITION 1 0 1.0")
        lines.append("FSG_END")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A probability as a plain decimal with six significant digits (no exponent, which not every
    /// PocketSphinx reader takes).
    static func decimal(_ p: Double) -> String {
        let p = max(p, 1e-30)
        var d = String(format: "%.*f", max(0, 6 - Int(log10(p).rounded(.down))), p)
        while d.hasSuffix("0") { d.removeLast() }
        return d
    }
}
