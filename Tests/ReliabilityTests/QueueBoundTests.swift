import Callouts
import CalloutsTestSupport
import Foundation
import Testing

/// The callout queue when callouts come faster than they can be spoken: it keeps a bounded number waiting,
/// the newest, and tells the dropped ones they were skipped.
@Suite struct QueueBoundTests {
    @Test func aHundredThousandCalloutsBehindAStuckPlayerKeepTheQueueBounded() async throws {
        let player = RecordingPlayer(holding: true)
        let coordinator = CalloutCoordinator(player: player, phrasing: Phrasing(table: try StringTable(language: "en")),
                                             clock: PipelineClock(SimulatedClock(), start: Date(timeIntervalSince1970: 1_780_300_800)))
        let skipped = Counter()
        var longest = 0
        for i in 0..<100_000 {
            let callout = Callout(kind: .system, subject: "c\(i)") { _ in [Utterance("callout \(i)")] }
            await coordinator.enqueue(CalloutGroup([callout], label: "g\(i)", onSkipped: { skipped.add() }))
            if i % 1_000 == 0 { longest = max(longest, await coordinator.queuedLabels.count) }
        }
        let queued = await coordinator.queuedLabels
        #expect(queued.count <= CalloutCoordinator.maximumQueued, "\(queued.count) groups waiting")
        #expect(longest <= CalloutCoordinator.maximumQueued)
        // The newest wait; the rest were dropped, each told so.
        #expect(queued.last == "g99999")
        #expect(skipped.value + queued.count + 1 == 100_000, "\(skipped.value) skipped, \(queued.count) queued, 1 playing")
        player.holding = false
        player.release()
        await coordinator.waitUntilIdle()
        #expect(player.texts.count == queued.count + 1)
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
