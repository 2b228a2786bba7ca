import Foundation
import Speech
import Testing

/// The shared dictionary decoders take their words from, and decoders that load no dictionary of their own.
@Suite("Pronunciation lexicon")
struct PronunciationLexiconTests {
    static let text = """
    ## a comment line
    'bout B AW T
    read R EH D
    read's R IY D Z
    read(2) R IY D
    Read R OY
    around ER AW N D
    around(2) ER AW N
    nophones

    zulu Z UW  L UW\r
    """

    @Test func aWordsLinesAreFoundInFileOrderEvenWhenNotAdjacent() {
        let lexicon = PronunciationLexicon(text: Self.text)
        #expect(lexicon.entries(for: "read") == [.init(name: "read", phones: "R EH D"), .init(name: "read(2)", phones: "R IY D")])
        #expect(lexicon.entries(for: "read's") == [.init(name: "read's", phones: "R IY D Z")])
        #expect(lexicon.entries(for: "'bout").map(\.phones) == ["B AW T"])
        // Whitespace in the phones (a double space, a carriage return) is normalized.
        #expect(lexicon.entries(for: "zulu").map(\.phones) == ["Z UW L UW"])
    }

    @Test func lookupIsExactAsPocketSphinxs() {
        let lexicon = PronunciationLexicon(text: Self.text)
        #expect(lexicon.entries(for: "Read").map(\.phones) == ["R OY"])
        #expect(!lexicon.contains("READ"))
        #expect(!lexicon.contains("rea"))
        #expect(!lexicon.contains("read(2)"))   // a name, not a word
        #expect(!lexicon.contains("nophones"))
        #expect(!lexicon.contains("##"))
        #expect(!lexicon.contains(""))
        #expect(lexicon.fileEntryCount == 8)
    }

    @Test func addedPronunciationsComeAfterTheFilesAndDoNotRepeatANameOrChangeTheOriginal() {
        let base = PronunciationLexicon(text: Self.text)
        let more = base.adding([("around(3)", "AH R AW N D"), ("around(2)", "X X"), ("soundscape", "S AW N D S K EY P")])
        #expect(more.entries(for: "around").map(\.name) == ["around", "around(2)", "around(3)"])
        #expect(more.entries(for: "around")[1].phones == "ER AW N")
        #expect(more.entries(for: "soundscape").map(\.phones) == ["S AW N D S K EY P"])
        #expect(base.entries(for: "around").count == 2)
        #expect(!base.contains("soundscape"))
    }

    /// Every line of the en-us dictionary is found under its word, as a plain reading of the file finds it.
    @Test func theModelsDictionaryReadsAsAPlainParseDoes() throws {
        let path = AcousticModel.debianEnglish.dictionary
        let lexicon = try PronunciationLexicon(contentsOf: path)
        var plain: [String: [PronunciationLexicon.Entry]] = [:]
        var lines = 0
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count >= 2 else { continue }
            lines += 1
            let name = String(parts[0])
            var base = name
            if let p = name.firstIndex(of: "("), name.hasSuffix(")") { base = String(name[..<p]) }
            plain[base, default: []].append(.init(name: name, phones: parts.dropFirst().joined(separator: " ")))
        }
        #expect(lines > 100_000)
        #expect(lexicon.fileEntryCount == lines)
        var checked = 0
        for (word, entries) in plain where checked < 5_000 || entries.count > 1 {
            #expect(lexicon.entries(for: word) == entries, "\(word)")
            checked += 1
        }
        #expect(!lexicon.contains("kauppatorix"))
    }

    /// A decoder without its dictionary knows only the fillers; `learn` gives it a word with all its pronunciations,
    /// the added ones after the file's, which a decoder refuses before the word itself.
    @Test func aDecoderWithoutItsDictionaryLearnsWordsWithAllTheirPronunciations() throws {
        let decoder = try PocketSphinxDecoder(loadsDictionary: false)
        #expect(decoder.knows("<sil>"))
        #expect(!decoder.knows("around"))
        let lexicon = try PronunciationLexicon(contentsOf: AcousticModel.debianEnglish.dictionary)
            .adding([("around(3)", "AH R AW N D")])
        #expect(try decoder.learn("around", from: lexicon))
        #expect(decoder.phones(of: "around") == lexicon.entries(for: "around")[0].phones)
        #expect(decoder.phones(of: "around(3)") == "AH R AW N D")
        #expect(decoder.knows("around(2)"))
        #expect(!decoder.knows("around(4)"))
        #expect(try !decoder.learn("kauppatorix", from: lexicon))
        #expect(!decoder.knows("hello"))
        // A word learned twice is not added twice (PocketSphinx would refuse it).
        #expect(try decoder.learn("around", from: lexicon))
    }
}
