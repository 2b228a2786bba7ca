import Foundation

/// A CMU-format pronunciation dictionary read once into one byte buffer with a hash index, from which PocketSphinx
/// decoders are given only the words they need: loaded whole by each decoder, the en-us dictionary was most of an
/// idle run's memory (docs/measurements.md, "Footprint (idle run)"). The recognizer and the wake-word spotter share one.
public final class PronunciationLexicon: Sendable {
    /// One pronunciation: its dictionary name (`word`, or `word(2)` for the second) and its CMU phones.
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var phones: String
        public init(name: String, phones: String) {
            self.name = name
            self.phones = phones
        }
    }

    private let table: Table
    /// Pronunciations added after the file's (Models/extra.dict), by base word.
    private let extra: [String: [Entry]]

    /// Reads a dictionary file (`word PH ONES` a line, alternatives as `word(2) …`), then `extra` after it.
    public convenience init(contentsOf path: String, extra: [(word: String, phones: String)] = []) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        self.init(table: Table([UInt8](data)), extra: Self.group(extra))
    }

    /// A dictionary from text in the file's format (for tests and small word lists).
    public convenience init(text: String, extra: [(word: String, phones: String)] = []) {
        self.init(table: Table(Array(text.utf8)), extra: Self.group(extra))
    }

    private init(table: Table, extra: [String: [Entry]]) {
        self.table = table
        self.extra = extra
    }

    /// The same dictionary with more pronunciations after its own (the file is shared, not copied).
    public func adding(_ more: [(word: String, phones: String)]) -> PronunciationLexicon {
        guard !more.isEmpty else { return self }
        var merged = extra
        for (base, list) in Self.group(more) { merged[base, default: []].append(contentsOf: list) }
        return PronunciationLexicon(table: table, extra: merged)
    }

    /// Every pronunciation of `word`, the file's first and in its order, then the added ones; empty when it has none.
    /// Exact (case-sensitive) match, as PocketSphinx looks words up.
    public func entries(for word: String) -> [Entry] {
        var out = table.entries(for: Array(word.utf8))
        for e in extra[word] ?? [] where !out.contains(where: { $0.name == e.name }) { out.append(e) }
        return out
    }

    /// Whether `word` has a pronunciation.
    public func contains(_ word: String) -> Bool { !entries(for: word).isEmpty }

    /// Number of pronunciation lines read from the file.
    public var fileEntryCount: Int { table.count }

    /// The word a dictionary name stands for: `word` for `word(2)`.
    static func baseWord(_ name: String) -> String {
        if let p = name.firstIndex(of: "("), name.hasSuffix(")"), p != name.startIndex { return String(name[..<p]) }
        return name
    }

    private static func group(_ list: [(word: String, phones: String)]) -> [String: [Entry]] {
        var out: [String: [Entry]] = [:]
        for e in list {
            let phones = e.phones.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            guard !phones.isEmpty else { continue }
            out[baseWord(e.word), default: []].append(Entry(name: e.word, phones: phones))
        }
        return out
    }

    /// The file's bytes and an open-addressing hash table of its lines by base word (linear probing, so the lines of
    /// one word are met in file order).
    private final class Table: Sendable {
        let bytes: [UInt8]
        /// Line start + 1 in each slot; 0 for an empty slot.
        let slots: [UInt32]
        let count: Int

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
            var starts: [Int] = []
            var i = 0
            let n = bytes.count
            while i < n {
                var end = i
                while end < n && bytes[end] != 0x0A { end += 1 }
                // Skip blank lines and PocketSphinx's comment lines ("##", ";;").
                let first = i < end ? bytes[i] : 0x20
                let comment = end - i >= 2 && ((first == 0x23 && bytes[i + 1] == 0x23) || (first == 0x3B && bytes[i + 1] == 0x3B))
                if !(first == 0x20 || first == 0x09 || first == 0x0D || comment) && Self.phonesStart(bytes, i, end) != nil {
                    starts.append(i)
                }
                i = end + 1
            }
            // At most three quarters full (half, for the en-us dictionary): 1 MB of slots for it.
            var size = 16
            while size * 3 < starts.count * 4 { size <<= 1 }
            var slots = [UInt32](repeating: 0, count: size)
            for start in starts {
                let (a, b) = Self.baseRange(bytes, start)
                var s = Self.hash(bytes[a..<b]) & (size - 1)
                while slots[s] != 0 { s = (s + 1) & (size - 1) }
                slots[s] = UInt32(start + 1)
            }
            self.slots = slots
            count = starts.count
        }

        func entries(for word: [UInt8]) -> [Entry] {
            guard !word.isEmpty else { return [] }
            let mask = slots.count - 1
            var s = Self.hash(word[...]) & mask
            var out: [Entry] = []
            while slots[s] != 0 {
                let start = Int(slots[s] - 1)
                let (a, b) = Self.baseRange(bytes, start)
                if bytes[a..<b].elementsEqual(word) { out.append(entry(at: start)) }
                s = (s + 1) & mask
            }
            return out
        }

        private func entry(at start: Int) -> Entry {
            var end = start
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            let nameEnd = Self.nameEnd(bytes, start, end)
            let phones = String(decoding: bytes[nameEnd..<end], as: UTF8.self).split(whereSeparator: \.isWhitespace).joined(separator: " ")
            return Entry(name: String(decoding: bytes[start..<nameEnd], as: UTF8.self), phones: phones)
        }

        private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D }

        private static func nameEnd(_ bytes: [UInt8], _ start: Int, _ end: Int) -> Int {
            var i = start
            while i < end && !isSpace(bytes[i]) { i += 1 }
            return i
        }

        /// Where the phones begin, or nil for a line with a name and no phones.
        static func phonesStart(_ bytes: [UInt8], _ start: Int, _ end: Int) -> Int? {
            var i = nameEnd(bytes, start, end)
            while i < end && isSpace(bytes[i]) { i += 1 }
            return i < end ? i : nil
        }

        /// The base word of the line at `start`: its name without a trailing `(n)`.
        static func baseRange(_ bytes: [UInt8], _ start: Int) -> (Int, Int) {
            var end = start
            while end < bytes.count && !isSpace(bytes[end]) && bytes[end] != 0x0A { end += 1 }
            if end - start >= 2, bytes[end - 1] == 0x29 {   // ")"
                var p = end - 2
                while p > start && bytes[p] != 0x28 { p -= 1 }   // "("
                if p > start && bytes[p] == 0x28 { return (start, p) }
            }
            return (start, end)
        }

        /// FNV-1a.
        static func hash(_ word: ArraySlice<UInt8>) -> Int {
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in word { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
            return Int(truncatingIfNeeded: h ^ (h >> 29))
        }
    }
}
