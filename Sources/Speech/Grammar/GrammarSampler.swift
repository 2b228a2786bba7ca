/// Writes example sentences from the grammar: one per phrasing (alternative of a public rule), with
/// optional parts and slot values chosen by a seeded generator. Used to build the evaluation corpus and
/// the help text, so both follow the grammar files as they are.
public struct GrammarSampler {
    public let grammar: CommandGrammar
    private var state: UInt64

    public init(grammar: CommandGrammar, seed: UInt64) {
        self.grammar = grammar
        self.state = seed
    }

    /// One sentence per phrasing of every public rule, in grammar order.
    public mutating func phrasings() -> [[String]] {
        var out: [[String]] = []
        for name in grammar.commandRules {
            guard let rule = grammar.rules[name] else { continue }
            if case .alternatives(let alts) = rule.expression {
                for a in alts { if let s = sample(a.expression) { out.append(s) } }
            } else if let s = sample(rule.expression) {
                out.append(s)
            }
        }
        return out
    }

    /// A random sentence of an expression, or nil when it can only reach `<VOID>` (an empty dynamic rule).
    public mutating func sample(_ e: GrammarExpression, depth: Int = 0) -> [String]? {
        guard depth < 30 else { return nil }
        switch e {
        case .word(let w): return [w]
        case .null: return []
        case .void: return nil
        case .sequence(let items):
            var out: [String] = []
            for i in items {
                guard let s = sample(i, depth: depth) else { return nil }
                out += s
            }
            return out
        case .alternatives(let alts):
            // Try alternatives from a random start, so an empty dynamic rule falls back to another one.
            let start = Int(next() % UInt64(alts.count))
            for k in 0..<alts.count {
                if let s = sample(alts[(start + k) % alts.count].expression, depth: depth) { return s }
            }
            return nil
        case .optional(let x):
            return next() % 3 == 0 ? (sample(x, depth: depth) ?? []) : []
        case .repetition(let x, _):
            return sample(x, depth: depth)
        case .tagged(let x, _):
            return sample(x, depth: depth)
        case .rule(let name, _):
            if let source = grammar.dynamicRules[name] {
                let list = grammar.phrases[source] ?? []
                guard !list.isEmpty else { return nil }
                return list[Int(next() % UInt64(list.count))].words
            }
            guard let rule = grammar.rules[name] else { return nil }
            return sample(rule.expression, depth: depth + 1)
        }
    }

    private mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
