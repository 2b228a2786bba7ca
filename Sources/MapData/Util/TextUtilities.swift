import Foundation

/// Small JSON writers for the importer's hot path (JSONSerialization is slow on Linux and its key
/// order is not stable).
enum JSONText {
    static func quoted(_ s: String) -> String {
        var out = "\""
        out.reserveCapacity(s.utf8.count + 2)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
        return out
    }

    /// `{"k":"v",…}` with keys in the order given. Built as UTF-8 bytes: the importer writes one per feature.
    static func object(_ pairs: [(String, String)]) -> String {
        if pairs.isEmpty { return "{}" }
        var out: [UInt8] = []
        out.reserveCapacity(pairs.reduce(2) { $0 + $1.0.utf8.count + $1.1.utf8.count + 6 })
        out.append(UInt8(ascii: "{"))
        for (i, pair) in pairs.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            appendQuoted(pair.0, to: &out)
            out.append(UInt8(ascii: ":"))
            appendQuoted(pair.1, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `s` as a JSON string, escaped as `quoted` does.
    static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(b)
            case 0x0A: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
            case 0..<0x20:
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                out.append(UInt8(ascii: "0") + (b >> 4))
                out.append(b & 0xF < 10 ? UInt8(ascii: "0") + (b & 0xF) : UInt8(ascii: "a") + (b & 0xF) - 10)
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    static func integers(_ values: [Int64]) -> String {
        "[" + values.map(String.init).joined(separator: ",") + "]"
    }

    /// Decodes a flat JSON object of strings. The importer writes these itself, so a small scanner
    /// handles them; anything unexpected falls back to JSONSerialization.
    static func decodeStringMap(_ text: String) -> [String: String] {
        if let fast = scanStringMap(text) { return fast }
        guard let data = text.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        var out: [String: String] = [:]
        for (k, v) in object {
            if let s = v as? String { out[k] = s } else { out[k] = "\(v)" }
        }
        return out
    }

    private static func scanStringMap(_ text: String) -> [String: String]? {
        let utf8 = Array(text.utf8)
        let n = utf8.count
        var i = 0
        func skipSpace() { while i < n, utf8[i] == 0x20 || utf8[i] == 0x0A || utf8[i] == 0x0D || utf8[i] == 0x09 { i += 1 } }
        func string() -> String? {
            guard i < n, utf8[i] == 0x22 else { return nil }
            i += 1
            let start = i
            var escaped = false
            while i < n, utf8[i] != 0x22 {
                if utf8[i] == 0x5C { escaped = true; i += 2 } else { i += 1 }
            }
            guard i < n else { return nil }
            let end = i
            i += 1
            if !escaped { return String(decoding: utf8[start..<end], as: UTF8.self) }
            // Rare: decode escapes properly.
            let quoted = "\"" + String(decoding: utf8[start..<end], as: UTF8.self) + "\""
            return (try? JSONSerialization.jsonObject(with: Data(quoted.utf8), options: [.fragmentsAllowed])) as? String
        }
        skipSpace()
        guard i < n, utf8[i] == 0x7B else { return nil }
        i += 1
        var out: [String: String] = [:]
        skipSpace()
        if i < n, utf8[i] == 0x7D { return out }
        while true {
            skipSpace()
            guard let key = string() else { return nil }
            skipSpace()
            guard i < n, utf8[i] == 0x3A else { return nil }
            i += 1
            skipSpace()
            guard let value = string() else { return nil }
            out[key] = value
            skipSpace()
            guard i < n else { return nil }
            if utf8[i] == 0x2C { i += 1; continue }
            if utf8[i] == 0x7D { break }
            return nil
        }
        return out
    }

    /// Parses `[1,-2,3]`.
    static func decodeIntegers(_ text: String) -> [Int64] {
        var out: [Int64] = []
        var value: Int64 = 0
        var negative = false
        var inNumber = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = value &* 10 &+ Int64(byte - UInt8(ascii: "0"))
                inNumber = true
            case UInt8(ascii: "-"):
                negative = true
            default:
                if inNumber { out.append(negative ? -value : value) }
                value = 0
                negative = false
                inNumber = false
            }
        }
        if inNumber { out.append(negative ? -value : value) }
        return out
    }
}

/// Normalises names for spoken lookup: lower case, diacritics folded ("ä" → "a", "Café" → "cafe"),
/// punctuation turned into spaces, runs of spaces collapsed.
public enum NameNormalizer {
    public static func normalize(_ text: String) -> String {
        if let ascii = normalizeASCII(text) { return ascii }
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

    /// The same result for plain ASCII text without Foundation's folding, which costs more than the
    /// rest of an import's name handling; nil when the text has other characters.
    static func normalizeASCII(_ text: String) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for b in text.utf8 {
            guard b < 0x80 else { return nil }
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                if pendingSpace && !out.isEmpty { out.append(UInt8(ascii: " ")) }
                pendingSpace = false
                out.append(b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b + 32 : b)
            case UInt8(ascii: "'"), UInt8(ascii: "`"):
                continue
            default:
                pendingSpace = true
            }
        }
        return String(decoding: out, as: UTF8.self)
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
