import Foundation

/// One tag test of a kind: `amenity=pharmacy`, `shop=*` (any value), `station!=subway` (any value but that, or none).
public struct TagCondition: Sendable, Hashable, CustomStringConvertible {
    public var key: String
    /// nil: any value.
    public var value: String?
    public var negated: Bool

    public init(key: String, value: String?, negated: Bool = false) {
        self.key = key
        self.value = value
        self.negated = negated
    }

    public func matches(_ tags: [String: String]) -> Bool {
        let present = tags[key]
        if negated { return present == nil || (value != nil && present != value) }
        guard let present else { return false }
        return value == nil || present == value
    }

    public var description: String { "\(key)\(negated ? "!=" : "=")\(value ?? "*")" }
}

/// A kind of place a walker asks for ("pharmacy", "bus stop"): its spoken names and the OSM tags that make a
/// feature one. Read from the kinds table (`Grammars/kinds.txt`, ``KindTable``).
public struct PlaceKind: Sendable, Hashable {
    /// The name replies use: the first singular name ("pharmacy").
    public var name: String
    /// Its plural ("pharmacies"); the name itself when the table gives none.
    public var plural: String
    /// Every spoken name, singular and plural, lower case.
    public var names: [String]
    /// The singular names only ("pharmacy", "chemist").
    public var singularNames: [String]
    /// Alternatives, each a list of tests that must all hold.
    public var matches: [[TagCondition]]
    /// Where the kind is defined (file:line), for messages.
    public var origin: String

    public init(name: String, plural: String, names: [String], singularNames: [String]? = nil, matches: [[TagCondition]],
                origin: String = "") {
        self.name = name
        self.plural = plural
        self.names = names
        self.singularNames = singularNames ?? [name]
        self.matches = matches
        self.origin = origin
    }

    /// Whether a feature's tags make it one of this kind.
    public func matches(_ tags: [String: String]) -> Bool {
        matches.contains { all in all.allSatisfy { $0.matches(tags) } }
    }

    /// "1 pharmacy", "3 pharmacies": the singular for one, else the plural.
    public func counted(_ n: Int) -> String { n == 1 ? name : plural }
}

/// A line of the kinds table that cannot be read: `Grammars/kinds.txt:12: …`.
public struct KindTableError: Error, CustomStringConvertible, Equatable {
    public var path: String
    public var line: Int
    public var message: String
    public var description: String { "\(path):\(line): \(message)" }
}

/// The kinds table: which spoken kind names mean which OSM tags. A plain text file users extend like the
/// grammars (see the header of `Grammars/kinds.txt`): `names = matches`, one kind a line.
public struct KindTable: Sendable {
    public var kinds: [PlaceKind]
    private var byName: [String: Int]

    public static let fileName = "kinds.txt"

    public init(kinds: [PlaceKind]) {
        self.kinds = kinds
        var byName: [String: Int] = [:]
        for (i, kind) in kinds.enumerated() {
            for name in kind.names where byName[name] == nil { byName[name] = i }
        }
        self.byName = byName
    }

    public static let empty = KindTable(kinds: [])

    /// Reads the table; a line it cannot read throws a ``KindTableError`` naming the file and line.
    public static func load(path: String) throws -> KindTable {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw KindTableError(path: path, line: 0, message: "cannot read the kinds table (\(error.localizedDescription))")
        }
        return try parse(text, path: path)
    }

    public static func parse(_ text: String, path: String) throws -> KindTable {
        var kinds: [PlaceKind] = []
        var seen: [String: Int] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = index + 1
            func fail(_ message: String) -> KindTableError { KindTableError(path: path, line: lineNumber, message: message) }
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            guard let equals = trimmed.range(of: " = ") ?? trimmed.range(of: "=") else {
                throw fail("no \"=\" between the names and the tags; write e.g. \"pharmacy / pharmacies = amenity=pharmacy\"")
            }
            let namesText = trimmed[..<equals.lowerBound].trimmingCharacters(in: .whitespaces)
            let matchText = trimmed[equals.upperBound...].trimmingCharacters(in: .whitespaces)
            var names: [String] = []
            var singulars: [String] = []
            var singular: String?
            var plural: String?
            for entry in namesText.split(separator: ",") {
                let forms = entry.split(separator: "/", omittingEmptySubsequences: false)
                    .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
                guard (1...2).contains(forms.count), forms.allSatisfy({ !$0.isEmpty }) else {
                    throw fail("\"\(entry.trimmingCharacters(in: .whitespaces))\" is not a name or \"singular / plural\"")
                }
                for form in forms {
                    guard form.allSatisfy({ ($0.isLetter && $0.isLowercase) || $0 == " " || $0 == "'" }) else {
                        throw fail("the name \"\(form)\" must be lower-case words (letters, spaces, apostrophes)")
                    }
                    if let earlier = seen[form] {
                        throw fail("the name \"\(form)\" is already a kind on line \(earlier)")
                    }
                    seen[form] = lineNumber
                    names.append(form)
                }
                singulars.append(forms[0])
                if singular == nil {
                    singular = forms[0]
                    plural = forms.count == 2 ? forms[1] : forms[0]
                }
            }
            guard let singular, let plural else { throw fail("no name before \"=\"") }
            var alternatives: [[TagCondition]] = []
            for alternative in matchText.split(separator: "|", omittingEmptySubsequences: false) {
                var all: [TagCondition] = []
                for test in alternative.split(separator: "&", omittingEmptySubsequences: false) {
                    let t = test.trimmingCharacters(in: .whitespaces)
                    guard let eq = t.firstIndex(of: "=") else {
                        throw fail("\"\(t)\" is not a tag test; write key=value, key=* or key!=value")
                    }
                    var key = String(t[..<eq]).trimmingCharacters(in: .whitespaces)
                    let negated = key.hasSuffix("!")
                    if negated { key = String(key.dropLast()).trimmingCharacters(in: .whitespaces) }
                    let value = String(t[t.index(after: eq)...]).trimmingCharacters(in: .whitespaces)
                    guard !key.isEmpty, key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_:.-".contains($0)) }) else {
                        throw fail("\"\(key)\" is not an OpenStreetMap key (letters, digits, _ : . -)")
                    }
                    guard !value.isEmpty, !value.contains("\"") else {
                        throw fail("the tag \(key) has no value; write \(key)=* for any value")
                    }
                    if negated && value == "*" { throw fail("\(key)!=* cannot match anything useful; leave the test out") }
                    all.append(TagCondition(key: key, value: value == "*" ? nil : value, negated: negated))
                }
                guard all.contains(where: { !$0.negated }) else {
                    throw fail("each alternative needs at least one tag that must be there (key=value or key=*)")
                }
                alternatives.append(all)
            }
            kinds.append(PlaceKind(name: singular, plural: plural, names: names, singularNames: singulars, matches: alternatives,
                                   origin: "\(path):\(lineNumber)"))
        }
        return KindTable(kinds: kinds)
    }

    /// The kind a spoken name means ("pharmacies", "the bus stop", "a cafe"); nil when none.
    public func kind(named spoken: String) -> PlaceKind? {
        let words = Self.stripArticle(NameNormalizer.normalize(spoken))
        return byName[words].map { kinds[$0] } ?? byName[NameNormalizer.normalize(words)].map { kinds[$0] }
    }

    /// The kinds whose names are closest to a spoken one (for "I know cafés, bakeries…"), best first.
    public func closest(to spoken: String, limit: Int = 3) -> [PlaceKind] {
        let query = Self.stripArticle(NameNormalizer.normalize(spoken))
        guard !query.isEmpty else { return Array(kinds.prefix(limit)) }
        let queryTokens = Set(query.split(separator: " ").map(String.init))
        var best: [Int: Double] = [:]
        for (i, kind) in kinds.enumerated() {
            for name in kind.names {
                let normalized = NameNormalizer.normalize(name)
                let d = Double(NameNormalizer.editDistance(query, normalized, limit: 12))
                var score = d / Double(max(query.count, normalized.count, 1))
                // A shared word ("coffee" in "coffee bar") or a shared beginning makes a kind a good offer.
                let tokens = normalized.split(separator: " ").map(String.init)
                if tokens.contains(where: queryTokens.contains) { score -= 0.5 }
                if normalized.prefix(3) == query.prefix(3) { score -= 0.2 }
                best[i] = min(best[i] ?? .infinity, score)
            }
        }
        let ranked = best.sorted { $0.value < $1.value || ($0.value == $1.value && $0.key < $1.key) }
        // Nothing alike ("spaceport"): the first kinds of the table, as examples of what can be asked for.
        guard let first = ranked.first, first.value < 0.5 else { return Array(kinds.prefix(limit)) }
        return ranked.prefix(limit).map { kinds[$0.key] }
    }

    /// Drops a leading "the", "a", "an" or "some" from normalized words.
    public static func stripArticle(_ normalized: String) -> String {
        for article in ["the ", "a ", "an ", "some "] where normalized.hasPrefix(article) {
            return String(normalized.dropFirst(article.count))
        }
        return normalized
    }
}
