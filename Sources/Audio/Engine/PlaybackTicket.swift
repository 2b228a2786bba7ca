import Foundation

/// A sound in the engine's queue. ``SoundQueue/enqueue(_:type:)`` takes its place in the queue at once (so
/// sounds queued one after another play in that order); ``result()`` returns when it has ended.
public final class PlaybackTicket: @unchecked Sendable {
    /// The engine's identifier of the sound.
    public let id: UInt64
    private let lock = NSLock()
    private var outcome: PlaybackResult?
    private var waiters: [CheckedContinuation<PlaybackResult, Never>] = []

    init(id: UInt64) { self.id = id }

    /// How the sound ended; waits until it has.
    public func result() async -> PlaybackResult {
        await withCheckedContinuation { (c: CheckedContinuation<PlaybackResult, Never>) in
            let done: PlaybackResult? = lock.withLock {
                if let outcome { return outcome }
                waiters.append(c)
                return nil
            }
            if let done { c.resume(returning: done) }
        }
    }

    /// How the sound ended, or nil while it waits or plays.
    public var outcomeIfEnded: PlaybackResult? { lock.withLock { outcome } }

    /// Records the end (the first one counts) and wakes whoever waits.
    func fulfill(_ result: PlaybackResult) {
        let woken: [CheckedContinuation<PlaybackResult, Never>] = lock.withLock {
            guard outcome == nil else { return [] }
            outcome = result
            defer { waiters.removeAll() }
            return waiters
        }
        for c in woken { c.resume(returning: result) }
    }
}
