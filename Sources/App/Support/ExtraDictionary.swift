import Foundation
import Speech

/// Pronunciations the program adds to the CMU dictionary (Models/extra.dict): `word PHONES` per line.
public enum ExtraDictionary {
    public struct Entry: Sendable, Equatable {
        public var word: String
        public var phones: String
    }

    public struct FormatError: Error, CustomStringConvertible {
        public var path: String
        public var line: Int
        public var text: String
        public var description: String { "\(path):\(line): expected \"word PHONES\", found \"\(text)\"" }
    }

    public static func load(_ path: String) throws -> [Entry] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var entries: [Entry] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { throw FormatError(path: path, line: index + 1, text: line) }
            entries.append(Entry(word: String(parts[0]), phones: parts[1].trimmingCharacters(in: .whitespaces)))
        }
        return entries
    }

    /// The entries as the decoders' `extraWords` take them.
    public static func words(_ path: String) throws -> [(word: String, phones: String)] {
        try load(path).map { (word: $0.word, phones: $0.phones) }
    }

    /// Adds every entry to the decoder's dictionary.
    public static func apply(_ entries: [Entry], to decoder: PocketSphinxDecoder) throws {
        for e in entries { try decoder.addWord(e.word, phones: e.phones) }
    }
}
