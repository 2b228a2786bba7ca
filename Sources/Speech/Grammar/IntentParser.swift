import Foundation

/// Turns words into a ``RecognizedCommand`` by matching them against the command grammar: the same
/// grammar, tags and slot rules the recognizer listens with. `soundscape say`, typed commands and the
/// recognizer's hypotheses all go through it, so a new phrasing added to a `.gram` file works everywhere.
public struct IntentParser: Sendable {
    public var grammar: CommandGrammar

    public init(grammar: CommandGrammar) {
        self.grammar = grammar
    }

    /// Parses typed or recognized text.
    /// - Parameter openSlots: let dynamic rules (nearby places, markers, routes) accept any words, as typed
    ///   commands need (the App resolves the name); the recognizer passes false: it can only have heard
    ///   the phrases it listened for.
    public func parse(_ text: String, confidence: Double = 1, openSlots: Bool = true) -> RecognizedCommand? {
        let tokens = Self.tokens(text)
        return parse(words: tokens.map(\.word), originals: tokens.map(\.original), confidence: confidence, openSlots: openSlots)
    }

    public func parse(words: [String], originals: [String]? = nil, confidence: Double = 1, openSlots: Bool = false) -> RecognizedCommand? {
        guard !words.isEmpty else { return nil }
        let matcher = Matcher(grammar: grammar, words: words, originals: originals ?? words, openSlots: openSlots)
        for name in grammar.commandRules {
            for partial in matcher.match(.rule(name, SourceLocation(file: "", line: 0, column: 0)), at: 0, inSlot: false)
            where partial.end == words.count {
                guard let intent = partial.tags.last(where: { Intent(rawValue: $0) != nil }) else { continue }
                return RecognizedCommand(intent: intent, slots: partial.slots, confidence: confidence,
                                         words: words.joined(separator: " "))
            }
        }
        return nil
    }

    /// Normalized words (lower case, accents folded, apostrophes kept, digits spelled out) with the text they came from.
    public static func tokens(_ text: String) -> [(word: String, original: String)] {
        var out: [(String, String)] = []
        for raw in text.split(whereSeparator: { $0.isWhitespace }) {
            var piece = ""
            var original = ""
            func flush() {
                defer { piece = ""; original = "" }
                let trimmed = piece.trimmingCharacters(in: CharacterSet(charactersIn: "'"))
                guard !trimmed.isEmpty else { return }
                if let n = Int(trimmed), n >= 0, n < 1_000_000 {
                    for (i, w) in NumberWords.words(for: n).enumerated() { out.append((w, i == 0 ? original : "")) }
                } else {
                    out.append((trimmed, original.trimmingCharacters(in: .punctuationCharacters)))
                }
            }
            for ch in raw {
                let folded = String(ch).folding(options: [.diacriticInsensitive, .caseInsensitive], locale: Locale(identifier: "en_US_POSIX")).lowercased()
                if ch == "'" || ch == "’" {
                    piece.append("'"); original.append(ch)
                } else if ch.isLetter || ch.isNumber {
                    if let last = piece.last, last.isNumber != (folded.first?.isNumber ?? false), last != "'" { flush() }
                    piece += folded; original.append(ch)
                } else {
                    flush()
                }
            }
            flush()
        }
        return out
    }
}

/// Backtracking matcher over the grammar's expressions. Utterances are a few words, so listing every
/// way a prefix can match is cheap.
struct Matcher {
    struct Partial {
        var end: Int
        var tags: [String] = []
        var slots: [String: String] = [:]
    }

    let grammar: CommandGrammar
    let words: [String]
    let originals: [String]
    let openSlots: Bool
    static let maxPartials = 512

    func match(_ e: GrammarExpression, at pos: Int, inSlot: Bool) -> [Partial] {
        switch e {
        case .word(let w):
            return pos < words.count && words[pos] == w ? [Partial(end: pos + 1)] : []
        case .null:
            return [Partial(end: pos)]
        case .void:
            return []
        case .sequence(let items):
            var frontier = [Partial(end: pos)]
            for item in items {
                var next: [Partial] = []
                for p in frontier {
                    for q in match(item, at: p.end, inSlot: inSlot) {
                        next.append(Partial(end: q.end, tags: p.tags + q.tags, slots: p.slots.merging(q.slots) { $1 }))
                        if next.count >= Self.maxPartials { break }
                    }
                }
                frontier = next
                if frontier.isEmpty { return [] }
            }
            return frontier
        case .alternatives(let alts):
            return alts.flatMap { match($0.expression, at: pos, inSlot: inSlot) }
        case .optional(let x):
            return match(x, at: pos, inSlot: inSlot) + [Partial(end: pos)]
        case .repetition(let x, let atLeastOnce):
            var results: [Partial] = atLeastOnce ? [] : [Partial(end: pos)]
            var frontier = [Partial(end: pos)]
            while !frontier.isEmpty && results.count < Self.maxPartials {
                var next: [Partial] = []
                for p in frontier {
                    for q in match(x, at: p.end, inSlot: inSlot) where q.end > p.end {
                        next.append(Partial(end: q.end, tags: p.tags + q.tags, slots: p.slots.merging(q.slots) { $1 }))
                    }
                }
                results += next
                frontier = next
            }
            return results.reversed()
        case .tagged(let x, let tag):
            return match(x, at: pos, inSlot: inSlot).map { var p = $0; p.tags.append(tag); return p }
        case .rule(let name, _):
            let slot = inSlot ? nil : CommandGrammar.slotName(ofRule: name)
            let isSlot = slot != nil
            var inner: [Partial]
            if let source = grammar.dynamicRules[name] {
                inner = []
                for phrase in grammar.phrases[source] ?? [] {
                    let end = pos + phrase.words.count
                    if end <= words.count && Array(words[pos..<end]) == phrase.words {
                        inner.append(Partial(end: end, tags: [phrase.value]))
                    }
                }
                if openSlots && pos < words.count {
                    for end in stride(from: min(words.count, pos + 8), through: pos + 1, by: -1) {
                        let value = originals[pos..<end].filter { !$0.isEmpty }.joined(separator: " ")
                        inner.append(Partial(end: end, tags: [value]))
                    }
                }
            } else if let rule = grammar.rules[name] {
                inner = match(rule.expression, at: pos, inSlot: inSlot || isSlot)
            } else {
                inner = []
            }
            guard isSlot else { return inner }
            return inner.map { p in
                // A typed name keeps the case it was typed in ("Meeting Point"); recognized words are lower case anyway.
                var value = p.tags.last ?? originals[pos..<p.end].filter { !$0.isEmpty }.joined(separator: " ")
                if slot == "number", Int(value) == nil, let n = NumberWords.value(of: value.split(separator: " ").map(String.init)) {
                    value = String(n)
                }
                return Partial(end: p.end, tags: [], slots: [slot!: value])
            }
        }
    }
}
