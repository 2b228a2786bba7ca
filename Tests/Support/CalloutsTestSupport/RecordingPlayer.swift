import Callouts
import Foundation

/// A callout player for tests (shared by the Callouts and Behaviors tests): records what it is asked to play; when `holding`, each item "plays" until the
/// test releases it or the coordinator stops it.
public final class RecordingPlayer: CalloutPlayer, @unchecked Sendable {
    private let lock = NSLock()
    private var _items: [PlaybackItem] = []
    private var _stops: [Bool] = []
    private var _passedOver: [PlaybackItem] = []
    private var playing: CheckedContinuation<Bool, Never>?
    private var _holding: Bool
    /// Counts changes of what the player saw, so that ``waitUntil(_:)`` looks again only when something happened.
    private var changes = 0
    private var changeWaiters: [CheckedContinuation<Void, Never>] = []

    public init(holding: Bool = false) { _holding = holding }

    public var items: [PlaybackItem] { lock.withLock { _items } }
    public var texts: [String] { items.map(\.text).filter { !$0.isEmpty } }
    public var glyphs: [Glyph] { items.compactMap(\.utterance.glyph) }
    public var stops: [Bool] { lock.withLock { _stops } }
    /// The items cleared from the queue before they played, that the coordinator handed over to be shown.
    public var passedOver: [String] { lock.withLock { _passedOver.map(\.text) } }
    public var isHoldingAnItem: Bool { lock.withLock { playing != nil } }
    public var holding: Bool {
        get { lock.withLock { _holding } }
        set { lock.withLock { _holding = newValue } }
    }

    public func play(_ item: PlaybackItem) async -> Bool {
        let hold = lock.withLock { () -> Bool in
            _items.append(item)
            return _holding
        }
        guard hold else { changed(); return true }
        return await withCheckedContinuation { c in
            lock.withLock { playing = c }
            changed()
        }
    }

    public func stop(hush: Bool) async {
        let c = lock.withLock { () -> CheckedContinuation<Bool, Never>? in
            _stops.append(hush)
            defer { playing = nil }
            return playing
        }
        changed()
        c?.resume(returning: false)
    }

    public func passOver(_ item: PlaybackItem) {
        lock.withLock { _passedOver.append(item) }
        changed()
    }

    /// Lets the item being held finish normally.
    public func release() {
        let c = lock.withLock { () -> CheckedContinuation<Bool, Never>? in
            defer { playing = nil }
            return playing
        }
        changed()
        c?.resume(returning: true)
    }

    /// Waits until `condition` (about what this player saw) holds: it is asked again after each play, stop, release
    /// or pass-over, not on a timer.
    public func waitUntil(_ condition: () -> Bool) async {
        while true {
            let seen = lock.withLock { changes }
            if condition() { return }
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let already = lock.withLock { () -> Bool in
                    if changes != seen { return true }
                    changeWaiters.append(c)
                    return false
                }
                if already { c.resume() }
            }
        }
    }

    private func changed() {
        let waiters = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            changes += 1
            defer { changeWaiters.removeAll() }
            return changeWaiters
        }
        for c in waiters { c.resume() }
    }
}

/// Records hook calls.
public final class HookLog: @unchecked Sendable {
    public init() {}
    private let lock = NSLock()
    private var _events: [String] = []
    public func add(_ e: String) { lock.withLock { _events.append(e) } }
    public var events: [String] { lock.withLock { _events } }
}
