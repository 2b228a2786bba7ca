import CPocketSphinx
import Foundation

/// One word (or filler, or phone in a phone-loop search) of a decoded utterance.
public struct DecodedSegment: Sendable, Equatable {
    /// The word as the dictionary names it: "around(3)" for an alternative pronunciation, "<sil>",
    /// "[NOISE]", "<s>", "</s>" for fillers.
    public var word: String
    /// First and last 10 ms frame (inclusive).
    public var startFrame: Int
    public var endFrame: Int
    /// Acoustic score (log domain, natural units of the decoder's log base; more negative is worse).
    public var acousticScore: Int32
    public var languageScore: Int32

    public var frameCount: Int { endFrame - startFrame + 1 }
    /// The word without its "(2)" pronunciation number.
    public var baseWord: String {
        if let paren = word.firstIndex(of: "("), word.hasSuffix(")") { return String(word[..<paren]) }
        return word
    }
    public var isFiller: Bool { word.hasPrefix("<") || word.hasPrefix("[") || word.hasPrefix("++") || word == "SIL" }
}

extension PocketSphinxDecoder {
    /// The words of the last utterance with their frames and scores (after ``end()``).
    public func segments() -> [DecodedSegment] {
        var out: [DecodedSegment] = []
        var seg = ps_seg_iter(decoder)
        while let s = seg {
            var sf: Int32 = 0, ef: Int32 = 0, ascr: Int32 = 0, lscr: Int32 = 0, lback: Int32 = 0
            ps_seg_frames(s, &sf, &ef)
            _ = ps_seg_prob(s, &ascr, &lscr, &lback)
            let word = ps_seg_word(s).map { String(cString: $0) } ?? ""
            out.append(DecodedSegment(word: word, startFrame: Int(sf), endFrame: Int(ef), acousticScore: ascr, languageScore: lscr))
            seg = ps_seg_next(s)
        }
        return out
    }

    /// Makes a phone-loop search (every phone, weighted by a phonetic language model) the active one.
    /// Use a decoder of its own made with `-allphone_ci yes`: switching one decoder between a grammar and
    /// the phone loop, or a phone loop without `-allphone_ci`, hangs PocketSphinx 5prealpha.
    public func usePhoneLoop(languageModel: String, name: String = "phones") throws {
        if ps_set_allphone_file(decoder, name, languageModel) < 0 {
            throw RecognitionError(message: "the phone loop did not load from \(languageModel): \(lastLogErrors())")
        }
        if ps_set_search(decoder, name) < 0 { throw RecognitionError(message: "cannot switch to the phone loop") }
    }

    /// Makes keyphrase spotting the active search (a wake word such as "hey soundscape").
    public func useKeyphrase(_ phrase: String, name: String = "wake") throws {
        if ps_set_keyphrase(decoder, name, phrase) < 0 {
            throw RecognitionError(message: "the wake phrase \"\(phrase)\" did not load: \(lastLogErrors())")
        }
        if ps_set_search(decoder, name) < 0 { throw RecognitionError(message: "cannot switch to wake-word spotting") }
    }

    /// Loads a grammar as a search named `name` without switching to it (``switchSearch(to:)``).
    public func addGrammar(jsgf: String, name: String) throws {
        if ps_set_jsgf_string(decoder, name, jsgf) < 0 {
            throw RecognitionError(message: "the grammar did not load: \(lastLogErrors())")
        }
    }

    /// Makes the search `name` the active one; between utterances.
    public func switchSearch(to name: String) throws {
        if ps_set_search(decoder, name) < 0 { throw RecognitionError(message: "cannot switch to the search \"\(name)\"") }
    }

    /// Drops a search that is not the active one.
    public func removeSearch(_ name: String) {
        _ = ps_unset_search(decoder, name)
    }

    /// The best hypothesis so far, while an utterance is still being decoded.
    public func partialHypothesis() -> String {
        var score: Int32 = 0
        return ps_get_hyp(decoder, &score).map { String(cString: $0) } ?? ""
    }

    /// Whether the decoder's voice-activity detector hears speech in the current utterance.
    public var inSpeech: Bool { ps_get_in_speech(decoder) != 0 }

    /// The pronunciation of a dictionary word (CMU phones), or nil.
    public func phones(of word: String) -> String? {
        guard let p = ps_lookup_word(decoder, word) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
