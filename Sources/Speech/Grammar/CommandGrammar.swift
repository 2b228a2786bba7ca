import Foundation

/// The command grammar: every `.gram` file of a folder, checked and joined into one namespace.
///
/// Conventions (see `Grammars/README.md`):
/// - Each **public** rule is a group of commands. A tag at the end of a phrasing names its intent:
///   `public <beacon> = set beacon on <place> {set_beacon} | mute beacon {mute_beacon};`
/// - A reference to a rule named like a slot (`<place>`, `<name>`, `<new_name>`, `<number>`, `<direction>`,
///   `<style>`, `<language>`, `<text>`) fills that slot with the words it matched, or with the tag of the
///   matched alternative inside it (`<direction> = north east {northeast} | …;`).
/// - A rule whose body is `<VOID> {$source}` is filled at run time from a ``SlotSource`` (places near the
///   user, marker names, route names).
public struct CommandGrammar: Sendable {
    /// Slot names of ``RecognizedCommand``.
    public static let slotNames: Set<String> = ["place", "name", "new_name", "number", "direction", "style", "language", "text"]

    /// The slot a rule fills: rules named `<slot>` or `<slot:variant>` (e.g. `<name:marker>`) for a slot name.
    public static func slotName(ofRule rule: String) -> String? {
        let base = rule.split(separator: ":", maxSplits: 1).first.map(String.init) ?? rule
        return slotNames.contains(base) ? base : nil
    }

    /// Rule names as PocketSphinx sees them (it reads dots as grammar-qualified names): letters, digits, '_'.
    static func decoderRuleName(_ rule: String) -> String {
        "<" + String(rule.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") ? $0 : "_" }) + "_>"
    }

    public private(set) var files: [GrammarFile]
    public private(set) var rules: [String: GrammarRule]
    /// Public rules in file order: the command groups.
    public private(set) var commandRules: [String]
    /// Dynamic rules: rule name → source name (from `<VOID> {$source}`).
    public private(set) var dynamicRules: [String: String]
    /// Words of the static grammar with where each first appears (for dictionary checks).
    public private(set) var words: [String: SourceLocation]
    /// Phrases of each dynamic source, as set by ``setPhrases(_:for:)``.
    public private(set) var phrases: [String: [SlotPhrase]] = [:]

    /// Parses and checks grammar files given as (path, text).
    public init(sources: [(path: String, text: String)]) throws {
        var files: [GrammarFile] = []
        for s in sources { files.append(try JSGFParser.parse(s.text, path: s.path)) }
        self.files = files
        var rules: [String: GrammarRule] = [:]
        var commandRules: [String] = []
        for file in files {
            for rule in file.rules {
                if let earlier = rules[rule.name] {
                    throw GrammarError(rule.location, "<\(rule.name)> is already defined at \(earlier.location)")
                }
                rules[rule.name] = rule
                if rule.isPublic { commandRules.append(rule.name) }
            }
        }
        guard !commandRules.isEmpty else {
            throw GrammarError(SourceLocation(file: sources.first?.path ?? "grammar", line: 1, column: 1),
                               "no public rule: commands are the alternatives of public rules")
        }
        self.rules = rules
        self.commandRules = commandRules
        var dynamic: [String: String] = [:]
        var words: [String: SourceLocation] = [:]
        for file in files {
            for rule in file.rules {
                if case .tagged(.void, let tag) = rule.expression, tag.hasPrefix("$") {
                    dynamic[rule.name] = String(tag.dropFirst())
                    continue
                }
                try Self.check(rule.expression, in: rule, rules: rules, words: &words)
            }
        }
        self.dynamicRules = dynamic
        self.words = words
        for name in commandRules { try Self.checkIntents(rules[name]!, rules: rules) }
        try Self.checkNoRecursion(rules: rules)
    }

    /// Loads every `*.gram` file of a folder, in name order.
    public init(directory: String) throws {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".gram") }.sorted() } catch {
            throw GrammarError(SourceLocation(file: directory, line: 0, column: 0), "cannot read the grammar folder (\(error.localizedDescription))")
        }
        guard !names.isEmpty else {
            throw GrammarError(SourceLocation(file: directory, line: 0, column: 0), "no .gram files in the grammar folder")
        }
        var sources: [(path: String, text: String)] = []
        for name in names {
            let path = (directory as NSString).appendingPathComponent(name)
            do { sources.append((path, try String(contentsOfFile: path, encoding: .utf8))) } catch {
                throw GrammarError(SourceLocation(file: path, line: 0, column: 0), "cannot read (\(error.localizedDescription))")
            }
        }
        try self.init(sources: sources)
    }

    /// The source names the grammar asks for ("places", "markers", "routes").
    public var dynamicSources: Set<String> { Set(dynamicRules.values) }

    /// Replaces the phrases of a dynamic source.
    public mutating func setPhrases(_ list: [SlotPhrase], for source: String) {
        var seen = Set<[String]>()
        phrases[source] = list.filter { !$0.words.isEmpty && seen.insert($0.words).inserted }
    }

    /// The grammar with only the phrasings whose intent `admits`, or nil when none is left. A phrasing that
    /// leads to several intents (through a rule it names) stays when any of them is admitted. The rules, words
    /// and slot phrases stay as they are; only the command groups lose alternatives.
    public func restricted(to admits: (Intent) -> Bool) -> CommandGrammar? {
        var copy = self
        var kept: [String] = []
        for name in commandRules {
            guard var rule = rules[name] else { continue }
            var alternatives = [GrammarExpression.WeightedAlternative(weight: nil, expression: rule.expression)]
            if case .alternatives(let list) = rule.expression { alternatives = list }
            let admitted = alternatives.filter { alternative in
                Self.intentTags(alternative.expression, rules: rules, depth: 0).contains { Intent(rawValue: $0).map(admits) ?? false }
            }
            guard !admitted.isEmpty else { continue }
            if admitted.count < alternatives.count { rule.expression = .alternatives(admitted) }
            copy.rules[name] = rule
            kept.append(name)
        }
        guard !kept.isEmpty else { return nil }
        copy.commandRules = kept
        return copy
    }

    // MARK: checks

    private static func check(_ e: GrammarExpression, in rule: GrammarRule, rules: [String: GrammarRule],
                              words: inout [String: SourceLocation]) throws {
        switch e {
        case .word(let w):
            guard w.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "'" || $0 == "-" || $0 == "." || $0 == "_" }) else {
                throw GrammarError(rule.location, "in <\(rule.name)>: \"\(w)\" is not a word")
            }
            if words[w] == nil { words[w] = rule.location }
        case .rule(let name, let location):
            guard rules[name] != nil else { throw GrammarError(location, "<\(name)> is not defined in any grammar file") }
        case .sequence(let items): for i in items { try check(i, in: rule, rules: rules, words: &words) }
        case .alternatives(let alts): for a in alts { try check(a.expression, in: rule, rules: rules, words: &words) }
        case .optional(let x), .repetition(let x, _): try check(x, in: rule, rules: rules, words: &words)
        case .tagged(let x, let tag):
            if tag.hasPrefix("$") {
                throw GrammarError(rule.location, "in <\(rule.name)>: a {$source} tag must be the whole body: <\(rule.name)> = <VOID> {\(tag)};")
            }
            try check(x, in: rule, rules: rules, words: &words)
        case .null, .void: break
        }
    }

    /// Every phrasing of a public rule must name a known intent.
    private static func checkIntents(_ rule: GrammarRule, rules: [String: GrammarRule]) throws {
        let alts: [GrammarExpression]
        if case .alternatives(let a) = rule.expression { alts = a.map(\.expression) } else { alts = [rule.expression] }
        for (n, alt) in alts.enumerated() {
            let tags = intentTags(alt, rules: rules, depth: 0)
            if tags.isEmpty {
                throw GrammarError(rule.location, "in <\(rule.name)>: phrasing \(n + 1) (\(preview(alt))) has no {intent} tag")
            }
            for tag in tags where Intent(rawValue: tag) == nil {
                throw GrammarError(rule.location, "in <\(rule.name)>: unknown intent {\(tag)} (known: \(Intent.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
        }
    }

    /// Tags reachable outside slot rules.
    private static func intentTags(_ e: GrammarExpression, rules: [String: GrammarRule], depth: Int) -> [String] {
        var memo: [String: [String]] = [:]
        return intentTags(e, rules: rules, depth: depth, memo: &memo)
    }

    /// Each rule's tags are found once (`memo`), without repeats: rules that refer to each other many times over
    /// would otherwise take exponential time (found by the grammar fuzzer, Fuzz/).
    private static func intentTags(_ e: GrammarExpression, rules: [String: GrammarRule], depth: Int,
                                   memo: inout [String: [String]]) -> [String] {
        guard depth < 20 else { return [] }
        func unique(_ tags: [String]) -> [String] { var seen = Set<String>(); return tags.filter { seen.insert($0).inserted } }
        switch e {
        case .tagged(_, let t): return [t]
        case .sequence(let items): return unique(items.flatMap { intentTags($0, rules: rules, depth: depth, memo: &memo) })
        case .alternatives(let alts): return unique(alts.flatMap { intentTags($0.expression, rules: rules, depth: depth, memo: &memo) })
        case .optional(let x), .repetition(let x, _): return intentTags(x, rules: rules, depth: depth, memo: &memo)
        case .rule(let name, _):
            guard slotName(ofRule: name) == nil, let r = rules[name] else { return [] }
            if let known = memo[name] { return known }
            memo[name] = []  // a rule that leads back to itself adds nothing on the way round
            let tags = unique(intentTags(r.expression, rules: rules, depth: depth + 1, memo: &memo))
            memo[name] = tags
            return tags
        default: return []
        }
    }

    static func preview(_ e: GrammarExpression) -> String {
        switch e {
        case .word(let w): return w
        case .rule(let r, _): return "<\(r)>"
        case .sequence(let items): return items.map(preview).joined(separator: " ")
        case .alternatives(let alts): return "(" + alts.map { preview($0.expression) }.joined(separator: " | ") + ")"
        case .optional(let x): return "[" + preview(x) + "]"
        case .repetition(let x, let once): return preview(x) + (once ? "+" : "*")
        case .tagged(let x, let t): return preview(x) + " {\(t)}"
        case .null: return "<NULL>"
        case .void: return "<VOID>"
        }
    }

    private static func checkNoRecursion(rules: [String: GrammarRule]) throws {
        var state: [String: Int] = [:]   // 1 visiting, 2 done
        func refs(_ e: GrammarExpression) -> [(String, SourceLocation)] {
            switch e {
            case .rule(let n, let l): return [(n, l)]
            case .sequence(let items): return items.flatMap(refs)
            case .alternatives(let alts): return alts.flatMap { refs($0.expression) }
            case .optional(let x), .repetition(let x, _), .tagged(let x, _): return refs(x)
            default: return []
            }
        }
        func visit(_ name: String) throws {
            if state[name] == 2 { return }
            state[name] = 1
            for (r, location) in refs(rules[name]!.expression) {
                if state[r] == 1 { throw GrammarError(location, "<\(r)> refers back to itself through <\(name)>: recursive rules are not supported") }
                try visit(r)
            }
            state[name] = 2
        }
        for name in rules.keys.sorted() { try visit(name) }
    }

    // MARK: JSGF for PocketSphinx

    /// The grammar as one JSGF text for the decoder: tags removed, dynamic rules filled with their phrases,
    /// one public rule `<soundscape_command>` over the commands of every group, those that end alike sharing
    /// their ending (``sharedEndings(of:in:)``).
    ///
    /// Parts that cannot be spoken (a dynamic rule with no phrases yet, `<VOID>`) are cut out here:
    /// PocketSphinx 5prealpha builds a broken search from a grammar that still mentions them.
    ///
    /// - Parameter sharingEndings: false for the command groups as written (`<beacon> | <exploration> | …`),
    ///   which tests compare with.
    public func decoderJSGF(sharingEndings: Bool = true) -> String {
        let speakable = speakableRules()
        let commands = commandRules.filter { speakable[$0] != nil }
        var lines = ["#JSGF V1.0;", "grammar soundscape;",
                     "public <soundscape_command> = "
                        + (sharingEndings ? Self.sharedEndings(of: commands, in: speakable)
                                          : commands.map(Self.decoderRuleName).joined(separator: " | ")) + ";"]
        for name in rules.keys.sorted() {
            guard let expression = speakable[name] else { continue }
            lines.append("\(Self.decoderRuleName(name)) = \(Self.jsgf(expression));")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The alternatives of the command rules `commands` as one JSGF alternative list, in which the commands
    /// that end in the same rule (and whatever follows it) right after the same word are grouped in front of
    /// one copy of that ending: "(guide me to | take me to | walk me to | navigate to) <place>". A rule that
    /// only names another (`<name_label> = <marker_label>;`) counts as that one.
    ///
    /// PocketSphinx turns a grammar into a graph in which every mention of a rule is a copy of it, and searches
    /// every node of it in every frame; grouping mentions the nearby places fewer times, so the search is smaller.
    /// The language and every sentence's score stay the same: each alternative keeps its weight on its first word
    /// or rule, and the groups have none. The groups stop at the word before the slot, because PocketSphinx models
    /// a word's first sound for all the words that can precede it together (docs/measurements.md has the figures).
    static func sharedEndings(of commands: [String], in rules: [String: GrammarExpression]) -> String {
        func untagged(_ e: GrammarExpression) -> GrammarExpression {
            if case .tagged(let x, _) = e { return untagged(x) }
            return e
        }
        func target(_ name: String) -> String {
            var name = name, seen: Set<String> = []
            while seen.insert(name).inserted, let e = rules[name], case .rule(let next, _) = untagged(e) { name = next }
            return name
        }
        struct Branch { var weight: Double?; var head: [GrammarExpression]; var ending: String }
        var groups: [String: [Branch]] = [:]
        var order: [String] = []
        for name in commands {
            guard let rule = rules[name] else { continue }
            var alternatives = [GrammarExpression.WeightedAlternative(weight: nil, expression: rule)]
            if case .alternatives(let list) = untagged(rule) { alternatives = list }
            for alternative in alternatives {
                let expression = untagged(alternative.expression)
                var items = [expression]
                if case .sequence(let list) = expression { items = list.map(untagged) }
                let last = items.lastIndex { if case .rule = $0 { return true }; return false }
                var head = items, ending = "", key = "\u{1}\(order.count)"   // without a rule: a group of its own
                if let last, case .rule(let slot, let location) = items[last] {
                    head = Array(items[..<last])
                    ending = jsgf(.sequence([.rule(target(slot), location)] + items[(last + 1)...]))
                    // Only after the same word: PocketSphinx models the first sound of the slot's words for
                    // every word that can come before them together, less exactly than for one.
                    key = (head.last.map { jsgf($0) } ?? "") + "\u{2}" + ending
                }
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append(Branch(weight: alternative.weight, head: head, ending: ending))
            }
        }
        func weighted(_ b: Branch) -> String {
            (b.weight.map { "/\($0)/ " } ?? "") + (b.head.isEmpty ? "<NULL>" : jsgf(.sequence(b.head)))
        }
        return order.map { key in
            let branches = groups[key]!, ending = branches[0].ending
            if ending.isEmpty { return weighted(branches[0]) }
            if branches.count == 1 {   // as written: the weight stays on the first word or rule
                let b = branches[0]
                return (b.weight.map { "/\($0)/ " } ?? "") + (b.head.isEmpty ? "" : jsgf(.sequence(b.head)) + " ") + ending
            }
            return "(" + branches.map(weighted).joined(separator: " | ") + ") " + ending
        }.joined(separator: " | ")
    }

    /// Every rule that can produce words, with its unspeakable parts removed (dynamic rules filled in).
    func speakableRules() -> [String: GrammarExpression] {
        var result: [String: GrammarExpression] = [:]
        var void = Set<String>()
        func resolve(_ name: String) -> GrammarExpression? {
            if let done = result[name] { return done }
            if void.contains(name) { return nil }
            void.insert(name)   // also guards against cycles
            let e: GrammarExpression?
            if let source = dynamicRules[name] {
                let list = phrases[source] ?? []
                e = list.isEmpty ? nil : .alternatives(list.map {
                    .init(weight: nil, expression: .sequence($0.words.map(GrammarExpression.word)))
                })
            } else if let rule = rules[name] {
                e = prune(rule.expression)
            } else {
                e = nil
            }
            if let e { result[name] = e; void.remove(name) }
            return e
        }
        func prune(_ e: GrammarExpression) -> GrammarExpression? {
            switch e {
            case .word, .null: return e
            case .void: return nil
            case .rule(let name, _): return resolve(name) == nil ? nil : e
            case .sequence(let items):
                var out: [GrammarExpression] = []
                for i in items { guard let p = prune(i) else { return nil }; out.append(p) }
                return .sequence(out)
            case .alternatives(let alts):
                let kept = alts.compactMap { a in prune(a.expression).map { GrammarExpression.WeightedAlternative(weight: a.weight, expression: $0) } }
                return kept.isEmpty ? nil : .alternatives(kept)
            case .optional(let x): return prune(x).map { .optional($0) } ?? .null
            case .repetition(let x, let once): return prune(x).map { .repetition($0, atLeastOnce: once) } ?? (once ? nil : .null)
            case .tagged(let x, let t): return prune(x).map { .tagged($0, t) }
            }
        }
        for name in rules.keys.sorted() { _ = resolve(name) }
        return result
    }

    static func jsgf(_ e: GrammarExpression) -> String {
        switch e {
        case .word(let w): return w
        case .rule(let r, _): return decoderRuleName(r)
        case .sequence(let items): return items.map { item -> String in
            if case .alternatives = item { return "(" + jsgf(item) + ")" }
            return jsgf(item)
        }.joined(separator: " ")
        case .alternatives(let alts):
            return alts.map { a in (a.weight.map { "/\($0)/ " } ?? "") + jsgf(a.expression) }.joined(separator: " | ")
        case .optional(let x): return "[" + jsgf(x) + "]"
        case .repetition(let x, let once): return "(" + jsgf(x) + ")" + (once ? "+" : "*")
        case .tagged(let x, _):
            if case .alternatives = x { return "(" + jsgf(x) + ")" }
            return jsgf(x)
        case .null: return "<NULL>"
        case .void: return "<VOID>"
        }
    }

    /// Every word the decoder needs: the static words and the words of the current dynamic phrases.
    public var allWords: Set<String> {
        var set = Set(words.keys)
        for list in phrases.values { for p in list { set.formUnion(p.words) } }
        return set
    }
}

/// A phrase that fills a dynamic rule: the words to listen for and the value the slot gets when they
/// are heard (e.g. words `["cafe", "engel"]`, value "Café Engel").
public struct SlotPhrase: Sendable, Hashable {
    public var words: [String]
    public var value: String

    public init(words: [String], value: String) {
        self.words = words
        self.value = value
    }

    /// Words for a name as it would be spoken: lower case, accents and punctuation removed, digits spelled out.
    public static func spokenWords(_ name: String) -> [String] {
        let folded = name.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: Locale(identifier: "en_US_POSIX"))
            .lowercased()
        var words: [String] = []
        var current = ""
        func flush() {
            guard !current.isEmpty else { return }
            if let n = Int(current), n >= 0, n < 10_000 { words += NumberWords.words(for: n) } else { words.append(current) }
            current = ""
        }
        for ch in folded {
            if ch.isASCII && (ch.isLetter || ch.isNumber) {
                if let last = current.last, last.isNumber != ch.isNumber { flush() }
                current.append(ch)
            } else if ch == "'" || ch == "’" {
                continue
            } else {
                flush()
            }
        }
        flush()
        return words
    }

    public init(name: String) {
        self.init(words: Self.spokenWords(name), value: name)
    }
}
