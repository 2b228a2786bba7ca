import Foundation

/// A free transcript moved onto the nearest sentence the grammar allows.
public struct Snap: Sendable, Hashable, Codable {
    /// The transcript's words, normalized as typed commands are (lower case, digits spelled out).
    public var heard: [String]
    /// The nearest sentence of the grammar; empty when the transcript was empty or far too long for a command.
    public var sentence: [String]
    /// The command that sentence means.
    public var command: RecognizedCommand?
    /// How far the transcript had to move, by phones: the weighted edit distance between its pronunciation and the
    /// sentence's over the longer of the two (0 = the same sounds, 1 = nothing in common). The out-of-grammar measure.
    public var distance: Double
    /// The same by whole words (0 = the same words).
    public var wordDistance: Double
    /// The transcript's own words where each slot of the sentence was matched, as written: free text for what no
    /// list can hold (the name in "save marker as my dentist").
    public var written: [String: String]

    public init(heard: [String], sentence: [String], command: RecognizedCommand?, distance: Double, wordDistance: Double,
                written: [String: String] = [:]) {
        self.heard = heard
        self.sentence = sentence
        self.command = command
        self.distance = distance
        self.wordDistance = wordDistance
        self.written = written
    }
}

/// Moves a free transcript ("Set the beacon on Kaupa Tori.") to the nearest sentence the live grammar allows,
/// slot values included ("set beacon on kauppatori"), and says how far it had to move.
///
/// The grammar's phrasings are written out as templates of fixed words and slots (optional parts and alternatives
/// expanded, slots kept whole). Each slot's values and each run of fixed words are put in a phone trie, matched
/// against every word-aligned stretch of the transcript once, and the templates then choose the best stretch for
/// each of their parts by dynamic programming: the cost grows with the templates and the slot values, not with
/// their product. Phones matter because a neural recognizer misspells Finnish names; words come in as the edges
/// of the stretches. Build it again when the grammar or its slot phrases change.
public struct GrammarSnapper: Sendable {
    /// Transcripts longer than this are far from every command (the longest phrasing has about eight words).
    public static let longestTranscript = 16
    /// Sentences further than this are not looked for: the transcript is far from every command (distance 1).
    public static let farthest: Float = 0.6

    let grammar: CommandGrammar
    let dictionary: PhoneDictionary
    /// Each template as indices into ``segments``.
    let templates: [[Int]]
    /// Every distinct part of a template: a run of fixed words (one phrase) or a slot (its values).
    let segments: [Segment]
    /// The tries: one for all runs of fixed words, one per slot.
    let tries: [PhoneTrie]
    /// The runs of fixed words again, by their letters: a fixed word must also be written alike, not only sound alike
    /// ("turn on the lights" sounds much like "turn on callouts"), while a name in a slot only has to sound alike.
    let letterTrie: PhoneTrie
    /// How much a letter written differently in a run of fixed words adds to the cost, in phones.
    static let letterWeight: Float = 0.5

    struct Segment: Sendable {
        /// Where its matches are kept: slots with the same values (`<name:label>`, `<new_name>`) share one.
        var group: Int
        /// Its trie in ``tries`` (0, shared by all runs of fixed words, for those).
        var trie: Int
        /// Phrases of this segment (each a word list); a trie terminal names (group, phrase).
        var phrases: [[String]]
        /// The slot it fills ("name", "place"), nil for fixed words.
        var slot: String? = nil
    }
    /// How many groups the tries' terminals name.
    let groups: Int

    /// - Parameters:
    ///   - grammar: the grammar as listened for, with its slot phrases.
    ///   - dictionary: pronunciations of the grammar's words and of the words transcripts bring.
    ///   - maximumSlotValues: values of one slot written out at most (numbers come to 1,000).
    public init(grammar: CommandGrammar, dictionary: PhoneDictionary, maximumSlotValues: Int = 5_000) {
        self.grammar = grammar
        self.dictionary = dictionary
        let expander = Expander(grammar: grammar, limit: maximumSlotValues)
        var segmentIndex: [String: Int] = [:]
        var segments: [Segment] = []
        var templates: [[Int]] = []
        var literalTrie = PhoneTrie.Builder()
        var letterTrie = PhoneTrie.Builder()
        var slotTries: [PhoneTrie.Builder] = []
        var groupOfValues: [[[String]]: (Int, Int)] = [:]
        var groups = 0
        var seenTemplates = Set<[Int]>()
        for name in grammar.commandRules {
            guard let rule = grammar.rules[name] else { continue }
            for pieces in expander.templates(rule.expression) {
                var template: [Int] = []
                var words: [String] = []
                var ok = true
                func flushWords() {
                    guard !words.isEmpty else { return }
                    let key = "w " + words.joined(separator: " ")
                    if let i = segmentIndex[key] { template.append(i); words = []; return }
                    let i = segments.count
                    segments.append(Segment(group: groups, trie: 0, phrases: [words]))
                    segmentIndex[key] = i
                    for variant in Self.variants(of: words, dictionary) { literalTrie.insert(variant, group: groups, phrase: 0) }
                    letterTrie.insert(Letters.ids(words), group: groups, phrase: 0)
                    groups += 1
                    template.append(i)
                    words = []
                }
                for piece in pieces {
                    switch piece {
                    case .word(let w): words.append(w)
                    case .slot(let slot):
                        flushWords()
                        let key = "s " + slot
                        if let i = segmentIndex[key] {
                            if segments[i].phrases.isEmpty { ok = false }
                            template.append(i)
                            continue
                        }
                        let values = expander.values(ofSlot: slot)
                        let i = segments.count
                        let group: Int, trie: Int
                        if let shared = groupOfValues[values] { (group, trie) = shared } else {
                            group = groups
                            groups += 1
                            trie = slotTries.count + 1
                            groupOfValues[values] = (group, trie)
                            var builder = PhoneTrie.Builder()
                            for (p, value) in values.enumerated() {
                                for variant in Self.variants(of: value, dictionary) { builder.insert(variant, group: group, phrase: p) }
                            }
                            slotTries.append(builder)
                        }
                        segments.append(Segment(group: group, trie: trie, phrases: values, slot: CommandGrammar.slotName(ofRule: slot)))
                        segmentIndex[key] = i
                        if values.isEmpty { ok = false }
                        template.append(i)
                    }
                }
                flushWords()
                if ok && !template.isEmpty && seenTemplates.insert(template).inserted { templates.append(template) }
            }
        }
        self.templates = templates
        self.segments = segments
        self.groups = groups
        self.tries = [literalTrie.build()] + slotTries.map { $0.build() }
        self.letterTrie = letterTrie.build()
    }

    /// Pronunciations of a word list as phone ids: every combination of its words' pronunciations, at most a few.
    static func variants(of words: [String], _ dictionary: PhoneDictionary, limit: Int = 6) -> [[UInt8]] {
        var out: [[UInt8]] = [[]]
        for w in words {
            var prons = dictionary.matchingPronunciations(of: w)
            if prons.isEmpty { prons = [PhoneDictionary.spelledPhones(w)] }
            var next: [[UInt8]] = []
            for base in out {
                for p in prons where next.count < limit { next.append(base + PhoneSet.ids(p)) }
            }
            out = next
        }
        return out
    }

    /// The nearest sentence to `text`, or a snap with an empty sentence and distance 1 when there is nothing to move
    /// (no words, or more than ``longestTranscript``).
    public func snap(_ text: String) -> Snap {
        let tokens = IntentParser.tokens(text)
        let words = tokens.map(\.word)
        guard !words.isEmpty, words.count <= Self.longestTranscript, !templates.isEmpty else {
            return Snap(heard: words, sentence: [], command: nil, distance: 1, wordDistance: 1)
        }
        // The transcript's phones and where each word starts.
        var phones: [UInt8] = []
        var bounds = [0]
        for w in words {
            phones += PhoneSet.ids(dictionary.phones(of: w))
            bounds.append(phones.count)
        }
        let n = words.count
        let table = MatchTable(groups: groups, boundaries: n + 1)
        // The runs of fixed words, by sound and by spelling, for every stretch at once (a small trie).
        tries[0].match(phones: phones, bounds: bounds, into: table, starts: 0...n)
        var letters: [UInt8] = []
        var letterBounds = [0]
        for w in words {
            letters += Letters.ids([w])
            letterBounds.append(letters.count)
        }
        let spelling = MatchTable(groups: groups, boundaries: n + 1)
        letterTrie.match(phones: letters, bounds: letterBounds, into: spelling, starts: 0...n,
                         substitution: Letters.substitution, symbols: Letters.count)
        table.add(spelling, weight: Self.letterWeight)
        // A lower bound of each template's cost: its fixed words alone (a slot could take any stretch for nothing).
        var f = [Float](repeating: .infinity, count: n + 1)
        var g = f
        var lower = [Float](repeating: 0, count: templates.count)
        for (t, template) in templates.enumerated() {
            for i in 0...n { f[i] = .infinity }
            f[0] = 0
            for segment in template {
                let group = segments[segment].group, slot = segments[segment].trie > 0
                for e in 0...n { g[e] = .infinity }
                for s in 0...n where f[s] < .infinity {
                    for e in s...n {
                        let c = f[s] + (slot ? 0 : table.cost(group, s, e))
                        if c < g[e] { g[e] = c }
                    }
                }
                swap(&f, &g)
            }
            lower[t] = f[n]
        }
        let order = templates.indices.sorted { lower[$0] != lower[$1] ? lower[$0] < lower[$1] : $0 < $1 }
        // Then the templates, most promising first, each slot matched only from the starts a template reaches and only
        // as far as can still beat the best so far: a total cost c is at least c / (m + c) once normalized (the
        // sentence is at most c phones longer than the transcript). Near sentences are looked for first, then further.
        let m = Float(max(phones.count, 1))
        var budgets = [Float](repeating: -.infinity, count: tries.count * (n + 1))
        var best: (cost: Float, choice: [(segment: Int, phrase: Int, from: Int, to: Int)])?
        var back = [[Int]](repeating: [Int](repeating: -1, count: n + 1), count: templates.map(\.count).max() ?? 0)
        func raw(_ normalized: Float) -> Float { normalized * m / max(1 - normalized, 1e-6) }
        for reach in [Float(0.15), 0.4, Self.farthest] {
            var bound = raw(min(reach, best?.cost ?? reach))
            for t in order where lower[t] < bound {
                let template = templates[t]
                for i in 0...n { f[i] = .infinity }
                f[0] = 0
                for (k, segment) in template.enumerated() {
                    let group = segments[segment].group
                    let trie = segments[segment].trie
                    for e in 0...n { g[e] = .infinity; back[k][e] = -1 }
                    for s in 0...n where f[s] < bound {
                        let budget = bound - f[s]
                        if trie > 0 && budgets[trie * (n + 1) + s] < budget {
                            budgets[trie * (n + 1) + s] = budget
                            tries[trie].match(phones: phones, bounds: bounds, into: table, starts: s...s, bound: budget)
                        }
                        for e in s...n {
                            let c = f[s] + table.cost(group, s, e)
                            if c < g[e] { g[e] = c; back[k][e] = s }
                        }
                    }
                    swap(&f, &g)
                }
                let cost = f[n]
                guard cost < bound else { continue }
                var e = n
                var choice: [(Int, Int, Int, Int)] = []
                var length = 0
                for k in stride(from: template.count - 1, through: 0, by: -1) {
                    let s = back[k][e]
                    let segment = template[k]
                    let group = segments[segment].group
                    choice.append((segment, table.phrase(group, s, e), s, e))
                    length += table.length(group, s, e)
                    e = s
                }
                let normalized = cost / max(m, Float(length))
                if best == nil || normalized < best!.cost {
                    best = (normalized, choice.reversed())
                    bound = min(bound, raw(normalized))
                }
            }
            if let best, best.cost <= reach { break }
        }
        guard let best, best.cost <= Self.farthest else { return Snap(heard: words, sentence: [], command: nil, distance: 1, wordDistance: 1) }
        let sentence = best.choice.flatMap { segments[$0.segment].phrases[$0.phrase] }
        let command = IntentParser(grammar: grammar).parse(words: sentence, confidence: 1, openSlots: false)
        // What the transcript said where each slot was matched, as written ("my dentist" for a name no list had).
        var written: [String: String] = [:]
        for part in best.choice {
            guard let slot = segments[part.segment].slot, part.from < part.to else { continue }
            written[slot] = tokens[part.from..<part.to].map(\.original).filter { !$0.isEmpty }.joined(separator: " ")
        }
        return Snap(heard: words, sentence: sentence, command: command, distance: Double(min(1, best.cost)),
                    wordDistance: Self.wordDistance(words, sentence), written: written)
    }

    /// Every sentence of the grammar, each with the slot values in it: every template written out with every value of
    /// its slots, but a template that would give more than `limit` sentences (a number slot, two name slots) is left
    /// out whole. For the transcriber's search of the grammar's sentences.
    public func sentences(limit: Int = 400) -> [(words: [String], values: [[String]])] {
        var out: [(words: [String], values: [[String]])] = []
        for template in templates {
            var total = 1
            for segment in template {
                total *= max(1, segments[segment].phrases.count)
                if total > limit { break }
            }
            guard total <= limit else { continue }
            var partial: [(words: [String], values: [[String]])] = [([], [])]
            for segment in template {
                let part = segments[segment]
                partial = partial.flatMap { sentence in
                    part.phrases.map { phrase in
                        (sentence.words + phrase, part.trie > 0 ? sentence.values + [phrase] : sentence.values)
                    }
                }
            }
            out += partial
        }
        return out
    }

    /// Word edit distance over the longer word list.
    static func wordDistance(_ a: [String], _ b: [String]) -> Double {
        guard !a.isEmpty || !b.isEmpty else { return 0 }
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return Double(a.isEmpty ? b.count : row[b.count]) / Double(max(a.count, b.count))
    }
}

// MARK: - templates

/// Writes a grammar's phrasings out as sequences of words and slots.
struct Expander {
    enum Piece: Hashable { case word(String), slot(String) }

    let grammar: CommandGrammar
    let limit: Int

    /// A phrasing's templates: optional parts and alternatives expanded, slot rules (and rules filled at run time) kept.
    func templates(_ e: GrammarExpression) -> [[Piece]] {
        expand(e, depth: 0) { name in
            CommandGrammar.slotName(ofRule: name) != nil || grammar.dynamicRules[name] != nil ? [[.slot(name)]] : nil
        }
    }

    /// Every word sequence a slot rule can match, up to ``limit``.
    func values(ofSlot name: String) -> [[String]] {
        let fill: (String) -> [[Piece]]? = { rule in
            guard let source = grammar.dynamicRules[rule] else { return nil }
            return (grammar.phrases[source] ?? []).map { $0.words.map(Piece.word) }
        }
        let all: [[Piece]]
        if let filled = fill(name) { all = filled } else if let rule = grammar.rules[name] {
            all = expand(rule.expression, depth: 1, stop: fill)
        } else {
            all = []
        }
        var seen = Set<[String]>()
        return all.compactMap { pieces -> [String]? in
            let words = pieces.compactMap { if case .word(let w) = $0 { return w } else { return nil } }
            return !words.isEmpty && seen.insert(words).inserted ? words : nil
        }
    }

    private func expand(_ e: GrammarExpression, depth: Int, stop: (String) -> [[Piece]]?) -> [[Piece]] {
        guard depth < 20 else { return [] }
        switch e {
        case .word(let w): return [[.word(w)]]
        case .null: return [[]]
        case .void: return []
        case .tagged(let x, _): return expand(x, depth: depth, stop: stop)
        case .optional(let x): return expand(x, depth: depth, stop: stop) + [[]]
        case .repetition(let x, let once): return expand(x, depth: depth, stop: stop) + (once ? [] : [[]])
        case .alternatives(let alts):
            var out: [[Piece]] = []
            for a in alts where out.count < limit { out += expand(a.expression, depth: depth, stop: stop) }
            return Array(out.prefix(limit))
        case .sequence(let items):
            var out: [[Piece]] = [[]]
            for item in items {
                let parts = expand(item, depth: depth, stop: stop)
                var next: [[Piece]] = []
                outer: for a in out {
                    for b in parts {
                        next.append(a + b)
                        if next.count >= limit { break outer }
                    }
                }
                out = next
                if out.isEmpty { return [] }
            }
            return out
        case .rule(let name, _):
            if let stopped = stop(name) { return stopped }
            guard let rule = grammar.rules[name] else { return [] }
            return expand(rule.expression, depth: depth + 1, stop: stop)
        }
    }
}

// MARK: - phones

/// The acoustic model's 39 phones as small ids, and how much it costs to hear one for another.
enum PhoneSet {
    static let names = ["AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G", "HH", "IH", "IY",
                        "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T", "TH", "UH", "UW", "V", "W",
                        "Y", "Z", "ZH"]
    static let index: [String: UInt8] = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, UInt8($0)) })
    static var count: Int { names.count }

    static func ids(_ phones: [String]) -> [UInt8] { phones.compactMap { index[$0] } }

    private static let vowels: Set<String> = ["AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW"]
    private static let classes: [Set<String>] = [
        ["B", "D", "G", "K", "P", "T"],
        ["F", "V", "TH", "DH", "S", "Z", "SH", "ZH", "HH", "CH", "JH"],
        ["M", "N", "NG"],
        ["L", "R", "W", "Y"],
    ]
    private static let voicing: Set<Set<String>> = [["P", "B"], ["T", "D"], ["K", "G"], ["F", "V"], ["S", "Z"], ["TH", "DH"],
                                                    ["SH", "ZH"], ["CH", "JH"], ["M", "N"], ["N", "NG"]]

    /// Substitution costs, `count × count`: 0 for the same phone, 0.4 for a voicing pair (or nasals), 0.5 between
    /// vowels, 0.6 within a manner of articulation, 1 otherwise. Inserting or dropping a phone costs 1.
    static let substitution: [Float] = {
        var m = [Float](repeating: 1, count: names.count * names.count)
        for (i, a) in names.enumerated() {
            for (j, b) in names.enumerated() {
                let cost: Float
                if a == b { cost = 0 } else if voicing.contains([a, b]) { cost = 0.4 } else if vowels.contains(a) && vowels.contains(b) {
                    cost = 0.5
                } else if classes.contains(where: { $0.contains(a) && $0.contains(b) }) { cost = 0.6 } else { cost = 1 }
                m[i * names.count + j] = cost
            }
        }
        return m
    }()
}

/// Letters as small ids, for comparing the spelling of fixed words (apostrophes and spaces left out).
enum Letters {
    static let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
    static let index: [Character: UInt8] = Dictionary(uniqueKeysWithValues: alphabet.enumerated().map { ($1, UInt8($0)) })
    static var count: Int { alphabet.count }
    static func ids(_ words: [String]) -> [UInt8] { words.flatMap { $0.compactMap { index[$0] } } }
    static let substitution: [Float] = (0..<(alphabet.count * alphabet.count)).map { $0 / alphabet.count == $0 % alphabet.count ? 0 : 1 }
}

/// The best match of each segment over each stretch of the transcript's words (from boundary s to e).
final class MatchTable {
    let boundaries: Int
    private var costs: [Float]
    private var phrases: [Int32]
    private var lengths: [Int32]

    init(groups: Int, boundaries: Int) {
        self.boundaries = boundaries
        let size = max(groups, 1) * boundaries * boundaries
        costs = [Float](repeating: .infinity, count: size)
        phrases = [Int32](repeating: -1, count: size)
        lengths = [Int32](repeating: 0, count: size)
    }

    @inline(__always) private func slot(_ group: Int, _ s: Int, _ e: Int) -> Int { (group * boundaries + s) * boundaries + e }
    func cost(_ group: Int, _ s: Int, _ e: Int) -> Float { costs[slot(group, s, e)] }
    func phrase(_ group: Int, _ s: Int, _ e: Int) -> Int { Int(phrases[slot(group, s, e)]) }
    func length(_ group: Int, _ s: Int, _ e: Int) -> Int { Int(lengths[slot(group, s, e)]) }

    /// Adds `other`'s costs, times `weight`, where it has any (the runs of fixed words).
    func add(_ other: MatchTable, weight: Float) {
        for i in costs.indices where other.costs[i] < .infinity { costs[i] += weight * other.costs[i] }
    }

    @inline(__always) func offer(_ group: Int, _ s: Int, _ e: Int, cost: Float, phrase: Int32, length: Int32) {
        let i = slot(group, s, e)
        if cost < costs[i] { costs[i] = cost; phrases[i] = phrase; lengths[i] = length }
    }
}

/// Phrases as paths of phones, nodes in depth-first order so that one pass over the array visits each node after its
/// parent with the parent's dynamic-programming column still in place.
struct PhoneTrie: Sendable {
    var phone: [UInt8] = []
    var depth: [Int32] = []
    /// The first node after this node's subtree (to skip it).
    var subtreeEnd: [Int32] = []
    /// Terminals: for node i, `terminals[terminalStart[i]..<terminalStart[i + 1]]`.
    var terminalStart: [Int32] = []
    var terminals: [(group: Int32, phrase: Int32)] = []
    var maxDepth = 0

    struct Builder {
        final class Node {
            var children: [UInt8: Node] = [:]
            var ends: [(Int32, Int32)] = []
        }
        let root = Node()

        mutating func insert(_ phones: [UInt8], group: Int, phrase: Int) {
            var node = root
            for p in phones {
                if let next = node.children[p] { node = next } else {
                    let next = Node()
                    node.children[p] = next
                    node = next
                }
            }
            if !node.ends.contains(where: { $0 == (Int32(group), Int32(phrase)) }) { node.ends.append((Int32(group), Int32(phrase))) }
        }

        func build() -> PhoneTrie {
            var trie = PhoneTrie()
            func visit(_ node: Node, phone: UInt8, depth: Int) {
                let i = trie.phone.count
                trie.phone.append(phone)
                trie.depth.append(Int32(depth))
                trie.subtreeEnd.append(0)
                trie.terminalStart.append(Int32(trie.terminals.count))
                for end in node.ends { trie.terminals.append((end.0, end.1)) }
                trie.maxDepth = max(trie.maxDepth, depth)
                for key in node.children.keys.sorted() { visit(node.children[key]!, phone: key, depth: depth + 1) }
                trie.subtreeEnd[i] = Int32(trie.phone.count)
            }
            visit(root, phone: 0, depth: 0)
            trie.terminalStart.append(Int32(trie.terminals.count))
            return trie
        }
    }

    /// For every start boundary, the edit distance of every phrase to every stretch of the transcript from there.
    /// - Parameters:
    ///   - starts: the start boundaries to match from.
    ///   - bound: costs this high are of no use: a subtree whose column is all at or above it is skipped.
    func match(phones: [UInt8], bounds: [Int], into table: MatchTable, starts: ClosedRange<Int>, bound: Float = .infinity,
               substitution sub: [Float] = PhoneSet.substitution, symbols count: Int = PhoneSet.count) {
        guard !phone.isEmpty else { return }
        let n = bounds.count - 1
        let m = phones.count
        let width = m + 1
        var columns = [Float](repeating: 0, count: (maxDepth + 1) * width)
        phones.withUnsafeBufferPointer { t in
            sub.withUnsafeBufferPointer { sub in
                columns.withUnsafeMutableBufferPointer { col in
                    for s in starts {
                        let start = bounds[s]
                        let span = m - start   // transcript phones from this start
                        for j in 0...span { col[j] = Float(j) }
                        var node = 0
                        while node < phone.count {
                            let d = Int(depth[node])
                            if d > 0 {
                                let row = d * width, parent = (d - 1) * width
                                let p = Int(phone[node]) * count
                                col[row] = col[parent] + 1
                                var least = col[row]
                                var j = 1
                                while j <= span {
                                    let diagonal = col[parent + j - 1] + sub[p + Int(t[start + j - 1])]
                                    let up = col[parent + j] + 1
                                    let left = col[row + j - 1] + 1
                                    let v = min(diagonal, min(up, left))
                                    col[row + j] = v
                                    if v < least { least = v }
                                    j += 1
                                }
                                // Every phrase below costs at least this much over any stretch.
                                if least >= bound {
                                    node = Int(subtreeEnd[node])
                                    continue
                                }
                            }
                            let first = Int(terminalStart[node]), last = Int(terminalStart[node + 1])
                            if first < last {
                                let row = d * width
                                for k in first..<last {
                                    let (group, phrase) = terminals[k]
                                    for e in s...n {
                                        table.offer(Int(group), s, e, cost: col[row + bounds[e] - start], phrase: phrase, length: Int32(d))
                                    }
                                }
                            }
                            node += 1
                        }
                    }
                }
            }
        }
    }
}
