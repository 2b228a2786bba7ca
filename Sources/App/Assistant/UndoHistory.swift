import Foundation

/// One change the user made by voice, with what is needed to take it back.
public enum UndoEntry: Sendable, Equatable {
    /// A beacon, marker or route change (the Guidance stage takes it back).
    case guidance(GuidanceChange)
    /// A setting changed: the settings before, and the key that changed (for the read-back).
    case setting(before: Settings, key: String)
    /// "I am facing …": the compass word said (undo clears the manual heading).
    case facing(String)
}

/// The last changes, newest last, at most `limit` of them: "undo" takes back the newest, a second "undo" the one
/// before it. Older changes drop off the front.
public struct UndoHistory: Sendable, Equatable {
    public let limit: Int
    public private(set) var entries: [UndoEntry] = []

    public init(limit: Int = 10) { self.limit = max(limit, 1) }

    public mutating func push(_ entry: UndoEntry) {
        entries.append(entry)
        if entries.count > limit { entries.removeFirst(entries.count - limit) }
    }

    public mutating func pop() -> UndoEntry? { entries.popLast() }

    public var isEmpty: Bool { entries.isEmpty }
}
