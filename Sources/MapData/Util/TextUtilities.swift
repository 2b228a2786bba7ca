import Foundation

/// The JSON columns of the map database (names, tags, OSM ids): written here as bytes, read with
/// Foundation's decoder. Keys are written sorted, so the same feature always gives the same text.
enum JSONText {
    private static let decoder = JSONDecoder()

    /// `{"k":"v",…}` with keys in byte order; a repeated key keeps its first value. Written without
    /// `JSONEncoder`, whose boxing and per-call setup were a tenth of an import's CPU time (perf, 10×).
    static func object(_ pairs: [(String, String)]) -> String {
        guard !pairs.isEmpty else { return "{}" }
        var sorted = pairs.enumerated().sorted {
            $0.element.0 != $1.element.0 ? $0.element.0.utf8.lexicographicallyPrecedes($1.element.0.utf8) : $0.offset < $1.offset
        }
        var previous: String?
        sorted.removeAll { item in
            defer { previous = item.element.0 }
            return item.element.0 == previous
        }
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(pairs.reduce(2) { $0 + $1.0.utf8.count + $1.1.utf8.count + 6 })
        for (i, item) in sorted.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            appendString(item.element.0, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            appendString(item.element.1, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A JSON string: quotes, backslashes and control characters escaped, everything else as UTF-8.
    private static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Most names and values need no escape: copied whole.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: text.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `[1,-2,…]`: integers are their decimal digits in JSON, so no encoder is needed.
    static func integers(_ values: [Int64]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(2 + values.count * 21)
        var digits = [UInt8](repeating: 0, count: 20)
        for (i, value) in values.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            // The magnitude's digits, last first (Int64.min's magnitude fits a UInt64).
            var magnitude = value.magnitude
            var count = 0
            repeat {
                digits[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for k in stride(from: count - 1, through: 0, by: -1) { bytes.append(digits[k]) }
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A stored object of strings; empty when the text is not one.
    static func decodeStringMap(_ text: String) -> [String: String] {
        (try? decoder.decode([String: String].self, from: Data(text.utf8))) ?? [:]
    }

    /// A stored array of integers; empty when the text is not one.
    static func decodeIntegers(_ text: String) -> [Int64] {
        (try? decoder.decode([Int64].self, from: Data(text.utf8))) ?? []
    }
}

/// Normalises names for spoken lookup: lower case, diacritics folded ("ä" → "a", "Café" → "cafe"),
/// punctuation turned into spaces, runs of spaces collapsed.
public enum NameNormalizer {
    public static func normalize(_ text: String) -> String {
        normalizeASCII(text) ?? normalizeFolding(text)
    }

    /// The general case, through Foundation's folding.
    static func normalizeFolding(_ text: String) -> String {
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

    /// The same result for plain ASCII text without Foundation's folding, which cost more than the rest of an
    /// import's name handling (perf, 10× import); nil when the text has other characters.
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
