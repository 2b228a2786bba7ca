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

    @Test func theLoopGrammarEndsEveryWordInTheFinalStateWithPlainDecimalWeights() throws {
        let words = EverydayWords(entries: [.init(word: "the", probability: 0.04), .init(word: "walrus", probability: 2.5e-9)])
        let fsg = words.fsg()
        let lines = fsg.split(separator: "\n").map(String.init)
        #expect(lines.contains("START_STATE 0") && lines.contains("FINAL_STATE 1"))
        #expect(lines.contains("TRANSITION 0 1 0.04 the"))
        #expect(lines.contains("TRANSITION 0 1 0.0000000025 walrus"), "\(fsg)")
        // Back for the next word by a null transition; no word ends anywhere but in the final state.
        #expect(lines.contains("TRANSITION 1 0 1.0"))
        #expect(lines.filter { $0.hasPrefix("TRANSITION") && !$0.hasPrefix("TRANSITION 0 1 ") }.count == 1)
        #expect(!fsg.contains("e-"))
        // PocketSphinx takes it; a damaged one is refused with the grammar's name.
        let decoder = try PocketSphinxDecoder(model: .debianEnglish)
        try decoder.useGrammar(fsg: fsg, name: "everyday")
        #expect {
            try decoder.useGrammar(fsg: "FSG_BEGIN broken\nNUM_STATES 2\nTRANSITION 0 7 0.5 the\n", name: "broken")
        } throws: { ($0 as? RecognitionError)?.message.contains("\"broken\"") == true }
    }

    /// Every utterance gets a complete path through the loop, so a margin: the first utterance of a fresh
    /// recognizer (its noise suppressor still cold, as in `soundscape listen`) and the ones after it.
    @Test func theLoopHearsSomethingInEveryUtterance() throws {
        let recognizer = try VoiceRecognizer(grammar: ShippedGrammar.load())
        for text in ["the weather is nice today", "where am i", "excuse me sir", "mute beacon", "who is speaking", "play some jazz"] {
            let result = try recognizer.recognize(RecognizerTests.speech(text, voice: "en", rate: 175))
            #expect(!result.everydayText.isEmpty, "\(text): the loop heard nothing")
            #expect(result.text.isEmpty || result.features.everydayMargin != 0, "\(text): no margin, heard \"\(result.text)\"")
        }
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
