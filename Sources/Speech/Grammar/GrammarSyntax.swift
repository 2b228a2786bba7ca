import Foundation

/// Where something is in a grammar file (1-based line and column).
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file):\(line):\(column)" }
}

/// A problem in a grammar file, reported as `file:line:column: message` like a compiler does.
public struct GrammarError: Error, CustomStringConvertible, Sendable, Equatable {
    public var location: SourceLocation
    public var message: String

    public init(_ location: SourceLocation, _ message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { "\(location): \(message)" }
}

/// The right-hand side of a JSGF rule.
///
/// Tags (`{…}`) are kept as ``tagged(_:_:)``: a tag written at the end of an alternative applies to the
/// whole alternative, a tag in the middle of one to the item just before it.
public indirect enum GrammarExpression: Sendable, Hashable {
    case word(String)
    case rule(String, SourceLocation)
    case sequence([GrammarExpression])
    case alternatives([WeightedAlternative])
    case optional(GrammarExpression)
    case repetition(GrammarExpression, atLeastOnce: Bool)
    case tagged(GrammarExpression, String)
    /// `<NULL>`: matches nothing (always passes).
    case null
    /// `<VOID>`: can never be spoken.
    case void

    public struct WeightedAlternative: Sendable, Hashable {
        public var weight: Double?
        public var expression: GrammarExpression
    }
}

/// One `[public] <name> = … ;` definition.
public struct GrammarRule: Sendable, Hashable {
    public var name: String
    public var isPublic: Bool
    public var expression: GrammarExpression
    public var location: SourceLocation
}

/// A parsed `.gram` file.
public struct GrammarFile: Sendable, Hashable {
    public var path: String
    public var grammarName: String?
    public var rules: [GrammarRule]
}

/// A small JSGF (Java Speech Grammar Format 1.0) parser that keeps line numbers and tags.
///
/// Accepted: the `#JSGF` header, `grammar name;`, `import <…>;` (ignored: every file of a grammar folder
/// shares one namespace), `//` and `/* */` comments, `public`, rule references, `<NULL>`, `<VOID>`,
/// `( )`, `[ ]`, `|`, `/weight/`, `*`, `+`, `{tag}` and quoted tokens. Words are lower-cased.
public enum JSGFParser {
    enum Token: Equatable {
        case word(String)
        case rule(String)
        case tag(String)
        case weight(Double)
        case symbol(Character)
        case header(String)
    }

    struct Lexeme {
        var token: Token
        var location: SourceLocation
    }

    public static func parse(_ text: String, path: String) throws -> GrammarFile {
        var parser = Parser(tokens: try lex(text, path: path), path: path)
        return try parser.file()
    }

    static func lex(_ text: String, path: String) throws -> [Lexeme] {
        var out: [Lexeme] = []
        let chars = Array(text)
        var i = 0, line = 1, column = 1
        func here() -> SourceLocation { SourceLocation(file: path, line: line, column: column) }
        func advance(_ n: Int = 1) {
            for _ in 0..<n where i < chars.count {
                if chars[i] == "\n" { line += 1; column = 1 } else { column += 1 }
                i += 1
            }
        }
        func isWordChar(_ c: Character) -> Bool {
            !(c.isWhitespace || "<>{}()[]|;=*+/\"".contains(c))
        }
        while i < chars.count {
            let c = chars[i]
            if c.isWhitespace { advance(); continue }
            let start = here()
            if c == "/" && i + 1 < chars.count && chars[i + 1] == "/" {
                while i < chars.count && chars[i] != "\n" { advance() }
                continue
            }
            if c == "/" && i + 1 < chars.count && chars[i + 1] == "*" {
                advance(2)
                while i < chars.count && !(chars[i] == "*" && i + 1 < chars.count && chars[i + 1] == "/") { advance() }
                guard i < chars.count else { throw GrammarError(start, "comment is not closed with */") }
                advance(2)
                continue
            }
            if c == "#" && out.isEmpty {
                var s = ""
                while i < chars.count && chars[i] != ";" && chars[i] != "\n" { s.append(chars[i]); advance() }
                guard i < chars.count, chars[i] == ";" else { throw GrammarError(start, "the #JSGF header must end with ';'") }
                advance()
                out.append(Lexeme(token: .header(s), location: start))
                continue
            }
            switch c {
            case "<":
                var s = ""
                advance()
                while i < chars.count && chars[i] != ">" {
                    guard !chars[i].isWhitespace else { throw GrammarError(start, "rule name <\(s) is not closed with '>'") }
                    s.append(chars[i]); advance()
                }
                guard i < chars.count else { throw GrammarError(start, "rule name <\(s) is not closed with '>'") }
                advance()
                guard !s.isEmpty else { throw GrammarError(start, "empty rule name <>") }
                out.append(Lexeme(token: .rule(s), location: start))
            case "{":
                var s = ""
                advance()
                while i < chars.count && chars[i] != "}" {
                    if chars[i] == "\\" && i + 1 < chars.count { advance() }
                    s.append(chars[i]); advance()
                }
                guard i < chars.count else { throw GrammarError(start, "tag {\(s.prefix(20)) is not closed with '}'") }
                advance()
                out.append(Lexeme(token: .tag(s.trimmingCharacters(in: .whitespaces)), location: start))
            case "/":
                var s = ""
                advance()
                while i < chars.count && chars[i] != "/" && chars[i] != "\n" { s.append(chars[i]); advance() }
                guard i < chars.count, chars[i] == "/", let w = Double(s.trimmingCharacters(in: .whitespaces)), w >= 0 else {
                    throw GrammarError(start, "a weight is written /number/, e.g. /0.5/")
                }
                advance()
                out.append(Lexeme(token: .weight(w), location: start))
            case "\"":
                var s = ""
                advance()
                while i < chars.count && chars[i] != "\"" && chars[i] != "\n" { s.append(chars[i]); advance() }
                guard i < chars.count, chars[i] == "\"" else { throw GrammarError(start, "quoted token is not closed with '\"'") }
                advance()
                // A quoted token may hold several words; they are spoken in sequence.
                for w in s.split(separator: " ") { out.append(Lexeme(token: .word(w.lowercased()), location: start)) }
            case "(", ")", "[", "]", "|", ";", "=", "*", "+":
                advance()
                out.append(Lexeme(token: .symbol(c), location: start))
            case ">", "}":
                throw GrammarError(start, "unexpected '\(c)'")
            default:
                var s = ""
                while i < chars.count && isWordChar(chars[i]) { s.append(chars[i]); advance() }
                out.append(Lexeme(token: .word(s), location: start))
            }
        }
        return out
    }

    struct Parser {
        var tokens: [Lexeme]
        var path: String
        var index = 0

        var current: Lexeme? { index < tokens.count ? tokens[index] : nil }
        var endLocation: SourceLocation {
            tokens.last.map { $0.location } ?? SourceLocation(file: path, line: 1, column: 1)
        }

        func describe(_ t: Token?) -> String {
            switch t {
            case .none: return "end of file"
            case .word(let w): return "'\(w)'"
            case .rule(let r): return "<\(r)>"
            case .tag(let t): return "{\(t)}"
            case .weight(let w): return "/\(w)/"
            case .symbol(let c): return "'\(c)'"
            case .header: return "#JSGF header"
            }
        }

        mutating func expect(_ symbol: Character, _ what: String) throws {
            guard let t = current, t.token == .symbol(symbol) else {
                throw GrammarError(current?.location ?? endLocation, "expected '\(symbol)' \(what), found \(describe(current?.token))")
            }
            index += 1
        }

        mutating func file() throws -> GrammarFile {
            var name: String?
            var rules: [GrammarRule] = []
            if case .header(let h) = current?.token {
                guard h.hasPrefix("#JSGF") else { throw GrammarError(current!.location, "the header must start with #JSGF") }
                index += 1
            }
            while let t = current {
                switch t.token {
                case .word("grammar"):
                    index += 1
                    guard case .word(let n) = current?.token else {
                        throw GrammarError(current?.location ?? endLocation, "expected a grammar name after 'grammar'")
                    }
                    name = n
                    index += 1
                    try expect(";", "after the grammar name")
                case .word("import"):
                    index += 1
                    guard case .rule = current?.token else {
                        throw GrammarError(current?.location ?? endLocation, "expected <grammar.rule> after 'import'")
                    }
                    index += 1
                    try expect(";", "after the import")
                case .word("public"), .rule:
                    rules.append(try rule())
                default:
                    throw GrammarError(t.location, "expected a rule definition such as <name> = words; found \(describe(t.token))")
                }
            }
            return GrammarFile(path: path, grammarName: name, rules: rules)
        }

        mutating func rule() throws -> GrammarRule {
            var isPublic = false
            if current?.token == .word("public") { isPublic = true; index += 1 }
            guard let t = current, case .rule(let name) = t.token else {
                throw GrammarError(current?.location ?? endLocation, "expected a rule name <name>, found \(describe(current?.token))")
            }
            if name == "NULL" || name == "VOID" { throw GrammarError(t.location, "<\(name)> is reserved and cannot be defined") }
            index += 1
            try expect("=", "after <\(name)>")
            let e = try alternatives()
            guard let end = current, end.token == .symbol(";") else {
                throw GrammarError(current?.location ?? endLocation,
                                   "expected ';' at the end of <\(name)>, found \(describe(current?.token))")
            }
            index += 1
            return GrammarRule(name: name, isPublic: isPublic, expression: e, location: t.location)
        }

        mutating func alternatives() throws -> GrammarExpression {
            var alts: [GrammarExpression.WeightedAlternative] = []
            repeat {
                if !alts.isEmpty || current?.token == .symbol("|") {
                    if current?.token == .symbol("|") { index += 1 }
                }
                var weight: Double?
                if case .weight(let w) = current?.token { weight = w; index += 1 }
                let startLocation = current?.location ?? endLocation
                let seq = try sequence()
                guard let seq else { throw GrammarError(startLocation, "empty alternative: expected words or <rule>") }
                alts.append(.init(weight: weight, expression: seq))
            } while current?.token == .symbol("|")
            return alts.count == 1 && alts[0].weight == nil ? alts[0].expression : .alternatives(alts)
        }

        mutating func sequence() throws -> GrammarExpression? {
            var items: [GrammarExpression] = []
            while let t = current {
                switch t.token {
                case .tag(let tag):
                    index += 1
                    guard !items.isEmpty else { throw GrammarError(t.location, "a tag must follow words or a rule") }
                    // At the end of the alternative the tag applies to all of it; otherwise to the item before it.
                    let atEnd: Bool
                    switch current?.token {
                    case .none, .symbol("|"), .symbol(")"), .symbol("]"), .symbol(";"): atEnd = true
                    case .tag: atEnd = false
                    default: atEnd = false
                    }
                    if atEnd && items.count > 1 {
                        items = [.tagged(.sequence(items), tag)]
                    } else {
                        items[items.count - 1] = .tagged(items[items.count - 1], tag)
                    }
                case .symbol("*"), .symbol("+"):
                    index += 1
                    guard let last = items.popLast() else { throw GrammarError(t.location, "'\(t.token == .symbol("*") ? "*" : "+")' must follow words or a group") }
                    items.append(.repetition(last, atLeastOnce: t.token == .symbol("+")))
                default:
                    guard let item = try atom() else { return items.isEmpty ? nil : (items.count == 1 ? items[0] : .sequence(items)) }
                    items.append(item)
                }
            }
            return items.isEmpty ? nil : (items.count == 1 ? items[0] : .sequence(items))
        }

        mutating func atom() throws -> GrammarExpression? {
            guard let t = current else { return nil }
            switch t.token {
            case .word(let w):
                index += 1
                return .word(w.lowercased())
            case .rule(let r):
                index += 1
                if r == "NULL" { return .null }
                if r == "VOID" { return .void }
                return .rule(r, t.location)
            case .symbol("("):
                index += 1
                let e = try alternatives()
                try expect(")", "to close the group opened at line \(t.location.line)")
                return e
            case .symbol("["):
                index += 1
                let e = try alternatives()
                try expect("]", "to close the optional part opened at line \(t.location.line)")
                return .optional(e)
            case .weight:
                throw GrammarError(t.location, "a weight may only start an alternative")
            default:
                return nil
            }
        }
    }
}
