import Foundation

/// The phone pairs that occur inside words of the pronunciation dictionary. A generated pronunciation
/// with a pair the dictionary never uses (espeak-ng's "S Y" in "suomalainen") can leave PocketSphinx
/// 5prealpha's grammar search without any complete path for other words that share its first phone
/// (measured: "set beacon on school" decoded as nothing). Such pairs are repaired by dropping a phone.
public struct PhoneBigrams: Sendable {
    public let pairs: Set<String>

    public init(pairs: Set<String>) { self.pairs = pairs }

    /// Reads a CMU-format dictionary (`word PH ONES` per line).
    public init(dictionary path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var pairs = Set<String>()
        for line in text.split(separator: "\n") {
            let phones = line.split(separator: " ").dropFirst()
            var previous: Substring?
            for p in phones {
                if let previous { pairs.insert(previous + " " + p) }
                previous = p
            }
        }
        self.pairs = pairs
    }

    public func contains(_ a: String, _ b: String) -> Bool { pairs.contains(a + " " + b) }

    /// The phones with every unknown pair repaired: drop the consonant of the pair (the second phone
    /// when both are consonants or both vowels).
    public func repair(_ phones: [String]) -> [String] {
        var out = phones
        var i = 0
        while i + 1 < out.count {
            if contains(out[i], out[i + 1]) { i += 1; continue }
            let firstIsConsonant = IPAToCMU.isConsonant(out[i]), secondIsConsonant = IPAToCMU.isConsonant(out[i + 1])
            if firstIsConsonant && !secondIsConsonant { out.remove(at: i) } else { out.remove(at: i + 1) }
            if i > 0 { i -= 1 }
        }
        return out
    }
}
