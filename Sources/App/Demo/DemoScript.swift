import Foundation

/// What the walker of `soundscape demo` says, and when: one command a line, at a time of the walk.
///
///     # comment
///     0:03  where am i
///     0:14  set beacon on Kauppatori
///     4:20  end
///
/// Times are `m:ss` or seconds (`14`, `14.5`) from the first position of the walk. A line `TIME end` ends the
/// demo there; without one it ends with the walk. Lines must be in time order.
public struct DemoScript: Sendable, Equatable {
    public struct Line: Sendable, Equatable {
        /// Seconds from the start of the walk.
        public var time: Double
        /// What is said (synthesized, then recognized: the words are not given to the assistant).
        public var text: String
        public init(time: Double, text: String) {
            self.time = time
            self.text = text
        }
    }

    public var lines: [Line]
    /// Where the demo stops, seconds from the start of the walk; nil: at the end of the walk.
    public var end: Double?

    public init(lines: [Line], end: Double? = nil) {
        self.lines = lines
        self.end = end
    }

    /// Reads a script file; errors name the file and the line.
    public static func load(_ path: String) throws -> DemoScript {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DemoError("\(path): cannot read the demo script")
        }
        return try parse(String(decoding: data, as: UTF8.self), path: path)
    }

    public static func parse(_ text: String, path: String = "<script>") throws -> DemoScript {
        var lines: [Line] = []
        var end: Double?
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let where_ = "\(path):\(index + 1)"
            guard end == nil else { throw DemoError("\(where_): \"\(line)\" comes after the end line") }
            let parts = line.split(maxSplits: 1, whereSeparator: { $0 == " " || $0 == "\t" })
            guard let time = seconds(String(parts[0])) else {
                throw DemoError("\(where_): \"\(parts[0])\" is not a time (m:ss or seconds)")
            }
            let words = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            guard !words.isEmpty else { throw DemoError("\(where_): nothing to say at \(parts[0])") }
            if let last = lines.last, time < last.time {
                throw DemoError("\(where_): \(parts[0]) is earlier than the line before (\(format(last.time)))")
            }
            if words.lowercased() == "end" { end = time } else { lines.append(Line(time: time, text: words)) }
        }
        guard !lines.isEmpty else { throw DemoError("\(path): the demo script has no commands") }
        return DemoScript(lines: lines, end: end)
    }

    /// `m:ss`, `m:ss.s` or plain seconds.
    public static func seconds(_ text: String) -> Double? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        switch fields.count {
        case 1: return Double(fields[0]).flatMap { $0 >= 0 ? $0 : nil }
        case 2:
            guard let m = Int(fields[0]), let s = Double(fields[1]), m >= 0, s >= 0, s < 60 else { return nil }
            return Double(m) * 60 + s
        default: return nil
        }
    }

    /// `mm:ss` of a time in seconds.
    public static func format(_ seconds: Double) -> String {
        let whole = max(0, Int(seconds.rounded(.down)))
        return String(format: "%02d:%02d", whole / 60, whole % 60)
    }
}

/// A problem with the demo's inputs, naming the file (and line) or value.
public struct DemoError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
