import Foundation

/// One change the user made by voice, with what is needed to take it back.
public enum UndoEntry: Sendable, Equatable {
    /// A beacon, marker or route change (the Guidance stage takes it back).
    case guidance(GuidanceChange)
    /// A setting changed: the settings before, and the key that changed (for the read-back).
    case setting(before: Settings, key: String)
    /// "I am facing …": the compass word said and its bearing (taking it back clears the manual heading).
    case facing(String, degrees: Double)
    /// The manual heading was cleared by an undo (taking that back sets it to `degrees` again).
    case facingCleared(String, degrees: Double)
}

/// The last changes, newest last, at most `limit` of them: "undo" takes back the newest, a second "undo" the one
/// before it. Older changes drop off the front.
///
/// What an undo took back is kept too (``undone``), for "redo": a misheard "undo" ("help" heard as "undo" is the
/// commonest confusion in the speech bench) then costs one more command, not the beacon or marker it took
/// back. A new change forgets them, as in any editor.
public struct UndoHistory: Sendable, Equatable {
    /// A change an undo took back: what it was, in words ("beacon on Kiasma"), and how to put it back.
    public struct Undone: Sendable, Equatable {
        public var description: String
        public var entry: UndoEntry
    }

    public let limit: Int
    public private(set) var entries: [UndoEntry] = []
    /// Changes taken back by "undo", the newest last (at most `limit`).
    public private(set) var undone: [Undone] = []

    public init(limit: Int = 10) { self.limit = max(limit, 1) }

    /// A new change: it can be undone, and what earlier undos took back can no longer be redone.
    public mutating func push(_ entry: UndoEntry) {
        append(entry)
        undone.removeAll()
    }

    public mutating func pop() -> UndoEntry? { entries.popLast() }

    /// Records what an undo took back, for ``popUndone()``.
    public mutating func pushUndone(_ item: Undone) {
        undone.append(item)
        if undone.count > limit { undone.removeFirst(undone.count - limit) }
    }

    public mutating func popUndone() -> Undone? { undone.popLast() }

    /// A redo put a change back: it can be undone again, and older undone changes can still be redone.
    public mutating func pushRedone(_ entry: UndoEntry) { append(entry) }

    public var isEmpty: Bool { entries.isEmpty }

    private mutating func append(_ entry: UndoEntry) {
        entries.append(entry)
        if entries.count > limit { entries.removeFirst(entries.count - limit) }
    }
}
