import Foundation

/// The slots of a maneuver announcement grammar. `TUNNEL` and `SIGNPOST` are accepted (a grammar written
/// for driving may mention them) but a pedestrian announcement never fills them.
public enum GrammarSlot: String, Sendable, CaseIterable, Codable {
    case DISTANCE, NOW, TUNNEL, MANOEUVRE1, MANOEUVREADDON, STREETNAME, SIGNPOST
    case THEN, IMMEDIATELY, MANOEUVRE2, MANOEUVREADDON2, STREETNAME2
}

/// A per-language announcement grammar such as
/// `in DISTANCE,|NOW|MANOEUVRE1|MANOEUVREADDON|STREETNAME|, THEN|IMMEDIATELY|MANOEUVRE2|…`.
///
/// Rules: the template is split at `|` into parts, spoken in order. Inside a part, an upper-case word that
/// names a ``GrammarSlot`` is that slot; everything else is literal text. A part is spoken only when every
/// slot it names has a value, so "in " disappears with DISTANCE and ", then" with THEN. Spaces are
/// normalised, no space is left before a comma, and the first letter is capitalised. In sample output a
/// literal word becomes the sample the language file names for it (`literalSamples`); punctuation is dropped.
public struct AnnouncementGrammar: Sendable, Hashable {
    public enum Token: Sendable, Hashable {
        case literal(String)
        case slot(GrammarSlot)
    }

    public let template: String
    public let parts: [[Token]]

    public init(_ template: String) {
        self.template = template
        parts = template.split(separator: "|", omittingEmptySubsequences: false).map { Self.tokenize(String($0)) }
    }

    static func tokenize(_ part: String) -> [Token] {
        var tokens: [Token] = []
        var literal = ""
        var word = ""
        func flushWord() {
            guard !word.isEmpty else { return }
            if let slot = GrammarSlot(rawValue: word) {
                if !literal.isEmpty { tokens.append(.literal(literal)); literal = "" }
                tokens.append(.slot(slot))
            } else {
                literal += word
            }
            word = ""
        }
        for ch in part {
            if ch.isLetter || ch.isNumber {
                word.append(ch)
            } else {
                flushWord()
                literal.append(ch)
            }
        }
        flushWord()
        if !literal.isEmpty { tokens.append(.literal(literal)) }
        return tokens
    }

    /// The slots the grammar uses.
    public var slots: Set<GrammarSlot> {
        Set(parts.flatMap { $0.compactMap { if case .slot(let s) = $0 { s } else { nil } } })
    }

    /// Fills the grammar.
    public func render(_ values: [GrammarSlot: Rendered], literalSamples: [String: String]) -> Rendered {
        var pieces: [String] = []
        var samples: [String] = []
        for part in parts {
            let needed = part.compactMap { if case .slot(let s) = $0 { s } else { nil } }
            guard needed.allSatisfy({ values[$0].map { !$0.text.isEmpty } ?? false }) else { continue }
            var text = ""
            for token in part {
                switch token {
                case .literal(let l):
                    text += l
                    for word in l.split(whereSeparator: { !$0.isLetter && !$0.isNumber }) {
                        samples.append(literalSamples[String(word)] ?? String(word).lowercased())
                    }
                case .slot(let s):
                    text += values[s]!.text
                    samples += values[s]!.samples
                }
            }
            pieces.append(text)
        }
        return Rendered(text: Self.tidy(pieces.joined(separator: " ")), samples: samples)
    }

    static func tidy(_ s: String) -> String {
        var out = s.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        out = out.replacingOccurrences(of: " ,", with: ",")
        while out.contains(",,") { out = out.replacingOccurrences(of: ",,", with: ",") }
        out = out.trimmingCharacters(in: CharacterSet(charactersIn: " ,"))
        guard let first = out.first else { return out }
        return first.uppercased() + out.dropFirst()
    }
}

/// A language's maneuver grammar and phrases (`maneuvers-<lang>.json`).
public struct ManeuverPhrases: Sendable {
    public struct Phrase: Sendable, Hashable, Decodable {
        public var text: String
        /// Sample names; "%1", "%2"… stand for the samples of the arguments.
        public var samples: [String]
    }

    public let language: String
    public let decimalSeparator: String
    public let grammar: AnnouncementGrammar
    public let literalSamples: [String: String]
    public let phrases: [String: Phrase]

    struct File: Decodable {
        var language: String
        var decimalSeparator: String
        var grammar: String
        var literalSamples: [String: String]?
        var phrases: [String: Phrase]
    }

    public init(data: Data) throws {
        let file = try JSONDecoder().decode(File.self, from: data)
        language = file.language
        decimalSeparator = file.decimalSeparator
        grammar = AnnouncementGrammar(file.grammar)
        literalSamples = file.literalSamples ?? [:]
        phrases = file.phrases
    }

    /// The phrase for `key` with its arguments; `future` prefers the `key@future` variant (used for
    /// maneuvers that are still ahead: the preparatory announcement and the chained second maneuver).
    /// A missing key renders as "[key]" so that table tests catch it.
    public func render(_ key: String, future: Bool = false, _ arguments: [Rendered] = []) -> Rendered {
        guard let phrase = (future ? phrases["\(key)@future"] : nil) ?? phrases[key] else {
            return Rendered(text: "[\(key)]", samples: [key])
        }
        let text = fillSlots(phrase.text, arguments.map(\.text))
        var samples: [String] = []
        for s in phrase.samples {
            if s.hasPrefix("%"), let n = Int(s.dropFirst()), n >= 1 {
                if n - 1 < arguments.count { samples += arguments[n - 1].samples }
            } else {
                samples.append(s)
            }
        }
        return Rendered(text: text, samples: samples)
    }
}
