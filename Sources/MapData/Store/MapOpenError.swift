import Foundation

/// Why a map database could not be opened for reading. Every description names the file and says what to do,
/// because `say`, `listen`, `run` and `demo` print it (and `run` speaks it) as it is, and `doctor` shows its two
/// parts: SQLite's own "unable to open database file" names neither.
public struct MapOpenError: Error, CustomStringConvertible, Sendable, Equatable {
    public let path: String
    /// What SQLite said, or nil when there is no file at `path`.
    public let reason: String?

    public init(path: String, reason: String?) {
        self.path = path
        self.reason = reason
    }

    /// The problem alone: "no map database at /p/map.sqlite".
    public var problem: String {
        guard let reason else { return "no map database at \(path)" }
        return "the map database \(path) cannot be read (\(reason))"
    }

    /// What to do about it.
    public var fix: String {
        reason == nil
            ? "import a map with: soundscape import FILE.osm.pbf --db \(path) (make run imports central Helsinki)"
            : "if it is damaged or not a Soundscape map, import the map again with: soundscape import FILE.osm.pbf --db \(path)"
    }

    public var description: String { "\(problem); \(fix)" }
}
