import Foundation
import Speech
import Testing

/// The everyday-speech loop: the commonest words of the real en-us language model, and the margin of the
/// grammar path over that loop on real espeak-ng audio.
@Suite("Everyday words", .serialized)
struct EverydayWordsTests {
    static let languageModel = "/usr/share/pocketsphinx/model/en-us/en-us.lm.bin"

    @Test func theCommonestWordsComeFirstWithTheirProbabilities() throws {
        let dictionary = try String(contentsOfFile: AcousticModel.debianEnglish.dictionary, encoding: .utf8)
        let known = Set(dictionary.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) })
        let words = try EverydayWords.load(languageModel: Self.languageModel, count: 300) { known.contains($0) }
        #expect(words.entries.count == 300)
        #expect(words.entries.first?.word == "the", "\(words.entries.prefix(5))")
        #expect(zip(words.entries, words.entries.dropFirst()).allSatisfy { $0.probability >= $1.probability })
        #expect(words.entries.allSatisfy { known.contains($0.word) && $0.probability > 0 && $0.probability < 1 })
        // Sentence markers are not words.
        #expect(!words.entries.contains { $0.word.hasPrefix("<") })
        let total = words.entries.reduce(0) { $0 + $1.probability }
        #expect(total > 0.4 && total < 1, "the 300 commonest words cover \(total) of running English")
    }

    @Test func theLoopGrammarHasPlainDecimalWeights() {
        let words = EverydayWords(entries: [.init(word: "the", probability: 0.04), .init(word: "walrus", probability: 2.5e-9)])
        let jsgf = words.jsgf()
        #expect(jsgf.contains("(<word>)+"))
        #expect(jsgf.contains("/0.04/ the"))
        #expect(jsgf.contains("/0.0000000025/ walrus"), "\(jsgf)")
        #expect(!jsgf.contains("e-"))
    }

    @Test func aMissingLanguageModelIsNamed() {
        #expect {
            _ = try EverydayWords.load(languageModel: "/nonexistent/en.lm.bin", count: 10) { _ in true }
        } throws: { ($0 as? RecognitionError)?.message.contains("/nonexistent/en.lm.bin") == true }
    }

    @Test func ordinarySpeechFitsTheEverydayLoopBetterThanACommandDoes() throws {
        let recognizer = RecognizerTests.recognizer
        #expect(recognizer.everyday != nil)
        _ = try recognizer.recognize(RecognizerTests.speech("where am i"))
        var commands: [Double] = [], sentences: [Double] = []
        for text in ["mute the beacon", "what's around me", "set beacon on Kauppatori"] {
            commands.append(try recognizer.recognize(RecognizerTests.speech(text)).features.everydayMargin)
        }
        for text in ["i need to buy some bread", "the weather is nice today", "my friend lives near the station"] {
            sentences.append(try recognizer.recognize(RecognizerTests.speech(text)).features.everydayMargin)
        }
        // Every command beats every sentence: the grammar fits commands, the loop fits ordinary speech.
        #expect(commands.min()! > sentences.max()!, "commands \(commands), sentences \(sentences)")
    }
}
