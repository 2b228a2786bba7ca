import Foundation
import Synchronization

/// The time the pipeline decides with: an injected `Clock` read as dates from `start`, so that decisions can be
/// compared with the fixes' timestamps. Waits (the pause after a callout) are on the same clock, so a replayed walk
/// runs in simulated time and tests drive it with a test clock; decisions never read the system clock themselves.
public struct PipelineClock: Sendable {
    /// The clock that waits are made on.
    public let clock: any Clock<Duration>
    /// The date the clock's instant at creation stands for.
    public let start: Date
    private let elapsed: @Sendable () -> Duration

    public init(_ clock: any Clock<Duration>, start: Date) {
        self.clock = clock
        self.start = start
        elapsed = Self.elapsedReader(clock)
    }

    /// Wall-clock time: the continuous clock, dated from now.
    public static func system() -> PipelineClock { PipelineClock(ContinuousClock(), start: Date()) }

    private static func elapsedReader<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let origin = clock.now
        return { origin.duration(to: clock.now) }
    }

    public var now: Date {
        let (seconds, attoseconds) = elapsed().components
        return start.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// Waits `duration` of this clock's time; returns early only when the task is cancelled.
    public func sleep(for duration: Duration) async {
        guard duration > .zero else { return }
        try? await clock.sleep(for: duration)
    }
}

/// A clock whose sleeps do not wait: each moves its time on at once, and `advance` moves it to a fix's time. Replayed
/// walks (`simulate`, `say`) run on it, so a 10-minute walk takes milliseconds and goes the same way every time.
public final class SimulatedClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        public var offset: Duration
        public init(offset: Duration = .zero) { self.offset = offset }
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private let current = Mutex(Instant())

    public init() {}

    public var now: Instant { current.withLock { $0 } }
    public var minimumResolution: Duration { .zero }

    /// Moves time on by `duration` (never back).
    public func advance(by duration: Duration) {
        guard duration > .zero else { return }
        current.withLock { $0 = $0.advanced(by: duration) }
    }

    /// Moves time to `deadline` unless it is already later, then lets other tasks run.
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        current.withLock { if deadline > $0 { $0 = deadline } }
        await Task.yield()
    }
}
