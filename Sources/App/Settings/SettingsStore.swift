import Foundation
import TOMLKit

/// Reads and writes the settings file. Reading never fails as a whole: an unreadable file or a bad value is
/// reported (with the file, the line where TOML gives one, the key and what it allows) and the rest applies.
/// Writing is atomic (a temporary file renamed over the old one), so a crash never leaves half a file.
public struct SettingsStore: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    public struct Loaded: Sendable {
        public var settings: Settings
        /// Problems to print and speak: each names the file and key.
        public var problems: [String]
    }

    /// Where a file stops being UTF-8 text (a binary file, a wrong encoding): the line, byte offset and byte.
    static func firstNonUTF8Byte(_ data: Data) -> (line: Int, offset: Int, byte: UInt8)? {
        let bytes = [UInt8](data)
        var i = 0, line = 1
        while i < bytes.count {
            let b = bytes[i]
            let length = b < 0x80 ? 1 : b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0
            guard length > 0, i + length <= bytes.count,
                  bytes[(i + 1)..<(i + length)].allSatisfy({ $0 & 0xC0 == 0x80 }),
                  String(bytes: bytes[i..<(i + length)], encoding: .utf8) != nil else { return (line, i, b) }
            if b == 0x0A { line += 1 }
            i += length
        }
        return nil
    }

    public func load() -> Loaded {
        var settings = Settings()
        guard FileManager.default.fileExists(atPath: path) else { return Loaded(settings: settings, problems: []) }
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            if let bytes = FileManager.default.contents(atPath: path), let bad = Self.firstNonUTF8Byte(bytes) {
                return Loaded(settings: settings, problems: [
                    "\(path):\(bad.line): not text (byte 0x\(String(format: "%02X", bad.byte)) at offset \(bad.offset) is not UTF-8); using the defaults"])
            }
            return Loaded(settings: settings, problems: ["\(path): cannot read the settings (\(error.localizedDescription)); using the defaults"])
        }
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch {
            return Loaded(settings: settings, problems: ["\(path): \(Self.describe(error)); using the defaults"])
        }
        var problems: [String] = []
        for (name, value) in table {
            guard let key = Settings.key(named: name) else {
                problems.append("\(path): unknown setting \"\(name)\" (known: \(Settings.keys.map(\.name).joined(separator: ", "))); ignored")
                continue
            }
            let converted: SettingValue
            if let s = value.string { converted = .text(s) }
            else if let i = value.int { converted = .integer(i) }
            else if let b = value.bool { converted = .boolean(b) }
            else {
                problems.append(SettingError(key: name, value: value.debugDescription, allowed: key.allowed, file: path,
                                             line: Self.line(of: name, in: text)).description)
                continue
            }
            do { try settings.set(key, to: converted) } catch {
                var e = error
                e.file = path
                e.line = Self.line(of: name, in: text)
                problems.append(e.description)
            }
        }
        return Loaded(settings: settings, problems: problems)
    }

    /// Writes every setting, atomically.
    public func save(_ settings: Settings) throws {
        let table = TOMLTable()
        for key in Settings.keys {
            switch settings.value(of: key) {
            case .text(let t): table[key.name] = t
            case .integer(let i): table[key.name] = i
            case .boolean(let b): table[key.name] = b
            }
        }
        let header = "# Soundscape for Linux settings. Every setting can also be changed by voice.\n"
            + "# Allowed values:\n" + Settings.keys.map { "#   \($0.name): \($0.allowed)" }.joined(separator: "\n") + "\n\n"
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data((header + table.convert(to: .toml) + "\n").utf8).write(to: url, options: .atomic)
    }

    /// Changes one setting (checked) and saves the file; returns the new settings.
    public func update(_ settings: Settings, key name: String, to value: SettingValue) throws -> Settings {
        guard let key = Settings.key(named: name) else {
            throw SettingError(key: name, value: "", allowed: "a known setting", file: path)
        }
        var next = settings
        try next.set(key, to: value)
        try save(next)
        return next
    }

    static func line(of key: String, in text: String) -> Int? {
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix(key) {
                let rest = trimmed.dropFirst(key.count).trimmingCharacters(in: .whitespaces)
                if rest.hasPrefix("=") { return i + 1 }
            }
        }
        return nil
    }

    static func describe(_ error: any Error) -> String {
        if let e = error as? TOMLParseError {
            return "line \(e.source.begin.line), column \(e.source.begin.column): \(e.description)"
        }
        return "\(error)"
    }
}
