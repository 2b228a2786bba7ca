import Foundation

/// A language's phrases, loaded from `Resources/<language>.json`. Sentences are whole templates with
/// positional slots (`%1$@`, `%2$@`, …) so that a translation may reorder them; code never glues
/// sentence fragments together.
public struct StringTable: Sendable {
    public let language: String
    private let strings: [String: String]

    public struct MissingLanguage: Error, CustomStringConvertible {
        public var language: String
        public var description: String { "no phrase table for language \"\(language)\" (have: \(StringTable.availableLanguages.joined(separator: ", ")))" }
    }

    public static var availableLanguages: [String] {
        let folder = Bundle.module.resourceURL ?? Bundle.module.bundleURL
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    public init(language: String) throws {
        guard let url = Bundle.module.url(forResource: language, withExtension: "json") else { throw MissingLanguage(language: language) }
        struct File: Decodable { var language: String; var strings: [String: String] }
        let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: url))
        self.language = file.language
        self.strings = file.strings
    }

    public init(language: String, strings: [String: String]) {
        self.language = language
        self.strings = strings
    }

    public var keys: Set<String> { Set(strings.keys) }

    /// The phrase for `key` with its slots filled. A missing key shows itself in brackets, so it is heard
    /// and caught by the table-completeness tests rather than crashing on the street.
    public func callAsFunction(_ key: String, _ arguments: String...) -> String {
        format(key, arguments)
    }

    public func format(_ key: String, _ arguments: [String]) -> String {
        guard let template = strings[key] else { return "[\(key)]" }
        var out = ""
        var i = template.startIndex
        while i < template.endIndex {
            let ch = template[i]
            if ch == "%", let (index, next) = Self.slot(in: template, at: i) {
                out += index < arguments.count ? arguments[index] : ""
                i = next
            } else {
                out.append(ch)
                i = template.index(after: i)
            }
        }
        return out
    }

    /// Parses `%N$@` at `i`; returns the zero-based slot and the index after it.
    private static func slot(in s: String, at i: String.Index) -> (Int, String.Index)? {
        var j = s.index(after: i)
        var digits = ""
        while j < s.endIndex, s[j].isNumber { digits.append(s[j]); j = s.index(after: j) }
        guard !digits.isEmpty, j < s.endIndex, s[j] == "$" else { return nil }
        j = s.index(after: j)
        guard j < s.endIndex, s[j] == "@", let n = Int(digits), n >= 1 else { return nil }
        return (n - 1, s.index(after: j))
    }
}
