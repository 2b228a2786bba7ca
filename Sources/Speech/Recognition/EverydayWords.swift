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

    /// The loop as a JSGF grammar: one or more of the words, each weighed by its probability.
    public func jsgf() -> String {
        func weight(_ p: Double) -> String {
            // PocketSphinx reads weights as plain decimals (no exponent); six significant digits.
            let p = max(p, 1e-30)
            var d = String(format: "%.*f", max(0, 6 - Int(log10(p).rounded(.down))), p)
            while d.hasSuffix("0") { d.removeLast() }
            return "/" + d + "/"
        }
        return "#JSGF V1.0;\ngrammar everyday;\npublic <everyday> = (<word>)+;\n<word> = "
            + entries.map { "\(weight($0.probability)) \($0.word)" }.joined(separator: " | ") + ";\n"
    }
}
