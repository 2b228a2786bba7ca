import Foundation

/// Pronunciations as CMU phones, read once and shared between threads: the snapper (``GrammarSnapper``) compares a
/// free transcript with the grammar's sentences by these. Words it lacks are read letter by letter
/// (``spelledPhones(_:)``), which suits the misspelled Finnish names a neural recognizer writes ("Kaupatori").
public final class PhoneDictionary: Sendable {
    private let entries: [String: [[String]]]
    /// Words whose pronunciations were made for them (names, by espeak-ng), all of which count; of the others only
    /// the first is used, the same one a transcript's word gets.
    private let made: Set<String>

    public init(_ entries: [String: [[String]]] = [:], made: Set<String> = []) {
        self.entries = entries
        self.made = made
    }

    /// Reads a CMU-format dictionary (`word PH ONES`, alternatives as `word(2) …`), then `extra` (Models/extra.dict).
    public convenience init(contentsOf path: String, extra: [(word: String, phones: String)] = []) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var entries: [String: [[String]]] = [:]
        entries.reserveCapacity(140_000)
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count >= 2 else { continue }
            var word = parts[0]
            if let p = word.firstIndex(of: "("), word.hasSuffix(")") { word = word[..<p] }
            entries[String(word), default: []].append(parts.dropFirst().map { Self.stripStress($0) })
        }
        for e in extra {
            let phones = e.phones.split(separator: " ").map { Self.stripStress($0) }
            if !(entries[e.word] ?? []).contains(phones) { entries[e.word, default: []].append(phones) }
        }
        self.init(entries)
    }

    private static func stripStress(_ s: Substring) -> String {
        String(s.filter { !$0.isNumber })
    }

    /// A copy with more pronunciations (generated ones for place names), after those already known for a word.
    public func adding(_ more: [String: [String]]) -> PhoneDictionary {
        guard !more.isEmpty else { return self }
        var copy = entries
        var made = self.made
        for (word, list) in more {
            made.insert(word)
            for pron in list {
                let phones = pron.split(separator: " ").map { Self.stripStress($0) }
                if !phones.isEmpty && !(copy[word] ?? []).contains(phones) { copy[word, default: []].append(phones) }
            }
        }
        return PhoneDictionary(copy, made: made)
    }

    /// The pronunciations a grammar word is matched by: all of a name's, the first of an ordinary word's.
    func matchingPronunciations(of word: String) -> [[String]] {
        guard let list = entries[word] else { return [] }
        return made.contains(word) ? list : [list[0]]
    }

    /// Every pronunciation known for a word (most likely first); empty when the word is not in the dictionary.
    public func pronunciations(of word: String) -> [[String]] { entries[word] ?? [] }

    /// The word's first pronunciation, or its spelling read letter by letter when it has none.
    public func phones(of word: String) -> [String] {
        entries[word]?.first ?? Self.spelledPhones(word)
    }

    /// A reading of a word from its letters, one phone a letter or letter pair, as Finnish is written (which is how
    /// a misspelled Finnish name is best read): doubled letters count once, "ng" is NG, "ch" CH, "sh" SH, "th" TH.
    public static func spelledPhones(_ word: String) -> [String] {
        let letters = Array(word.folding(options: [.caseInsensitive], locale: Locale(identifier: "en_US_POSIX")).lowercased())
        var out: [String] = []
        var i = 0
        func push(_ phones: String...) { for p in phones where out.last != p { out.append(p) } }
        while i < letters.count {
            let c = letters[i]
            let next = i + 1 < letters.count ? letters[i + 1] : nil
            if let next, ["ng", "ch", "sh", "th", "ph"].contains(String([c, next])) {
                switch next {
                case "g": push("NG")
                case "h" where c == "c": push("CH")
                case "h" where c == "s": push("SH")
                case "h" where c == "t": push("TH")
                default: push("F")
                }
                i += 2
                continue
            }
            switch c {
            case "a": push("AA")
            case "e": push("EH")
            case "i": push("IY")
            case "o": push("OW")
            case "u": push("UW")
            case "y": push(out.isEmpty ? "Y" : "IY")
            case "ä", "æ": push("AE")
            case "ö", "ø": push("ER")
            case "å": push("OW")
            case "ü": push("UW")
            case "b": push("B")
            case "c": push(next.map { "eiy".contains($0) } == true ? "S" : "K")
            case "d": push("D")
            case "f": push("F")
            case "g": push("G")
            case "h": push("HH")
            case "j": push("Y")
            case "k", "q": push("K")
            case "l": push("L")
            case "m": push("M")
            case "n": push("N")
            case "p": push("P")
            case "r": push("R")
            case "s": push("S")
            case "t": push("T")
            case "v": push("V")
            case "w": push("W")
            case "x": push("K", "S")
            case "z": push("Z")
            default: break
            }
            i += 1
        }
        return out
    }
}
