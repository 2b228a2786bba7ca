import Foundation

/// The JSON columns of the map database (names, tags, OSM ids), written and read with Foundation's coders.
/// Keys are written sorted, so the same feature always gives the same text.
enum JSONText {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    private static let decoder = JSONDecoder()

    /// `{"k":"v",…}`; a repeated key keeps its first value.
    static func object(_ pairs: [(String, String)]) -> String {
        text(Dictionary(pairs, uniquingKeysWith: { first, _ in first }))
    }

    static func integers(_ values: [Int64]) -> String { text(values) }

    /// A stored object of strings; empty when the text is not one.
    static func decodeStringMap(_ text: String) -> [String: String] {
        (try? decoder.decode([String: String].self, from: Data(text.utf8))) ?? [:]
    }

    /// A stored array of integers; empty when the text is not one.
    static func decodeIntegers(_ text: String) -> [Int64] {
        (try? decoder.decode([Int64].self, from: Data(text.utf8))) ?? []
    }

    private static func text(_ value: some Encodable) -> String {
        // Strings and integers always encode.
        String(decoding: (try? encoder.encode(value)) ?? Data("null".utf8), as: UTF8.self)
    }
}

/// Normalises names for spoken lookup: lower case, diacritics folded ("ä" → "a", "Café" → "cafe"),
/// punctuation turned into spaces, runs of spaces collapsed.
public enum NameNormalizer {
    public static func normalize(_ text: String) -> String {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        var out = ""
        out.reserveCapacity(folded.utf8.count)
        var pendingSpace = false
        for scalar in folded.unicodeScalars {
            var s = scalar
            // A few letters that folding leaves alone.
            switch scalar {
            case "ß": out += pendingSpace && !out.isEmpty ? " ss" : "ss"; pendingSpace = false; continue
            case "ø", "Ø": s = "o"
            case "æ", "Æ": out += pendingSpace && !out.isEmpty ? " ae" : "ae"; pendingSpace = false; continue
            case "đ", "Đ": s = "d"
            case "ł", "Ł": s = "l"
            case "'", "’", "`", "´": continue // "Robert's" → "roberts"
            default: break
            }
            if CharacterSet.alphanumerics.contains(s) {
                if pendingSpace && !out.isEmpty { out += " " }
                pendingSpace = false
                out.unicodeScalars.append(contentsOf: String(s).lowercased().unicodeScalars)
            } else {
                pendingSpace = true
            }
        }
        return out
    }

    public static func tokens(_ normalized: String) -> [Substring] {
        normalized.split(separator: " ")
    }

    /// Levenshtein distance with an early exit once `limit` is exceeded (returns limit + 1 then).
    public static func editDistance(_ a: String, _ b: String, limit: Int = .max) -> Int {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        if abs(x.count - y.count) > limit { return limit + 1 }
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            var rowMin = current[0]
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                rowMin = min(rowMin, current[j])
            }
            if rowMin > limit { return limit + 1 }
            swap(&previous, &current)
        }
        return previous[y.count]
    }
}
