import Foundation

/// The time the pipeline decides with. Injected everywhere so that a walk can be replayed in simulated time:
/// decisions never read the system clock themselves.
public protocol PipelineClock: Sendable {
    var now: Date { get }
    /// Waits `seconds` of this clock's time.
    func sleep(seconds: Double) async
}

/// Wall-clock time.
public struct SystemPipelineClock: PipelineClock {
    public init() {}
    public var now: Date { Date() }
    public func sleep(seconds: Double) async {
        guard seconds > 0 else { return }
        try? await Task.sleep(for: .seconds(seconds))
    }
}

/// Time that moves only when told: set from the fixes of a replayed walk, and moved on (not waited for) by
/// `sleep`. A 10-minute walk runs in milliseconds and the same way every time.
public final class SimulatedClock: PipelineClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    public init(start: Date = Date(timeIntervalSince1970: 1_780_300_800)) { current = start }

    public var now: Date { lock.withLock { current } }

    /// Moves the clock to `date` unless it is already later (time never goes back).
    public func advance(to date: Date) {
        lock.withLock { if date > current { current = date } }
    }

    public func advance(by seconds: Double) {
        lock.withLock { current = current.addingTimeInterval(max(0, seconds)) }
    }

    public func sleep(seconds: Double) async {
        advance(by: seconds)
        await Task.yield()
    }
}
