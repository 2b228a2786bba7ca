@testable import Audio
import Foundation
import Testing

/// The discrete queue the callout coordinator uses: play in order, stop now (hush), clear; one result per sound.
@Suite(.serialized) struct AudioQueueTests {
    /// A real-time engine without a sound device (the render thread keeps time with the clock).
    static func realtimeEngine() throws -> AudioEngine {
        try AudioEngine(configuration: .init(output: .null), synthesizer: nil, bank: AudioTestSupport.bank)
    }

    /// The real-time path without a sound device (render thread, event pump): sounds play in order, each reports
    /// its end, and after a stop the queue takes sounds again.
    @Test func realTimeSoundsPlayInOrderAndTheQueueWorksAgainAfterAStop() async throws {
        let engine = try Self.realtimeEngine()
        defer { engine.shutdown() }
        let order = OrderLog()
        let tickets = (0..<3).map { i in
            engine.queue.enqueue(AudioTestSupport.tone(400 + 100 * Double(i), seconds: 0.1), type: .relative(Double(i * 90)))
        }
        await withTaskGroup(of: Void.self) { group in
            for (i, ticket) in tickets.enumerated() {
                group.addTask { order.append(i, await ticket.result()) }
            }
        }
        #expect(order.entries.map(\.0) == [0, 1, 2])
        #expect(order.entries.allSatisfy { $0.1 == .completed })
        let long = engine.queue.enqueue(AudioTestSupport.tone(500, seconds: 5), type: .standard)
        engine.stopAll(hush: true)
        #expect(await long.result() == .interrupted)
        #expect(await engine.play(AudioTestSupport.tone(500, seconds: 0.05)) == .completed)
    }

    /// Offline, so the recording shows what played: the current sound stops at once (not after its 2 s), the queued
    /// ones never play, the hush earcon follows, and the queue works again afterwards.
    @Test func stopAllInterruptsTheCurrentSoundAndDropsTheQueueThenHushes() async throws {
        let engine = try AudioTestSupport.offlineEngine()
        let queue = engine.queue
        let tickets = (0..<3).map { _ in queue.enqueue(AudioTestSupport.tone(500, seconds: 2), type: .standard) }
        #expect(queue.isPlaying && queue.queuedCount == 2)
        engine.render(seconds: 0.1)
        engine.stopAll(hush: true)
        #expect(tickets.map(\.outcomeIfEnded) == [.interrupted, .interrupted, .interrupted])
        #expect(!queue.isPlaying && queue.queuedCount == 0)
        let hush = EarconSynthesizer.earcon(.hush)
        let recorded = engine.recording().duration
        #expect(abs(recorded - (0.1 + hush.duration)) < 0.02, "0.1 s of the tone and the hush (\(hush.duration) s), recorded \(recorded) s")
        #expect(await engine.play(AudioTestSupport.tone(500, seconds: 0.05)) == .completed)
    }

    @Test func clearDropsOnlyWhatIsWaiting() async throws {
        let engine = try AudioTestSupport.offlineEngine()
        let queue = engine.queue
        let tickets = (0..<3).map { _ in queue.enqueue(AudioTestSupport.tone(500, seconds: 0.4), type: .standard) }
        #expect(queue.isPlaying && queue.queuedCount == 2)
        queue.clear()
        #expect(tickets[1].outcomeIfEnded == .interrupted && tickets[2].outcomeIfEnded == .interrupted)
        #expect(tickets[0].outcomeIfEnded == nil, "the playing sound goes on")
        engine.render(seconds: 1)
        #expect(tickets[0].outcomeIfEnded == .completed)
        let rec = engine.recording().samples
        #expect(AudioTestSupport.rms(rec[(2 * 19_200)..<(2 * 48_000)]) < 1e-6, "nothing plays after the first sound")
    }

    /// Offline, time passes only when rendered: a queued sound has not ended until enough audio was rendered.
    @Test func offlineQueuedSoundsEndWhenTheirAudioIsRendered() async throws {
        let engine = try AudioTestSupport.offlineEngine()
        let first = engine.queue.enqueue(AudioTestSupport.tone(500, seconds: 0.1))
        let second = engine.queue.enqueue(AudioTestSupport.tone(600, seconds: 0.1))
        engine.render(seconds: 0.05)
        #expect(first.outcomeIfEnded == nil && second.outcomeIfEnded == nil)
        engine.render(seconds: 0.1)
        #expect(first.outcomeIfEnded == .completed && second.outcomeIfEnded == nil)
        engine.render(seconds: 0.2)
        #expect(second.outcomeIfEnded == .completed)
    }

    @Test func offlineStopAllRecordsTheHushEarcon() async throws {
        let engine = try AudioTestSupport.offlineEngine()
        engine.stopAll(hush: true)
        let rec = engine.recording()
        let hush = EarconSynthesizer.earcon(.hush)
        #expect(abs(rec.duration - hush.duration) < 0.01, "the hush earcon is \(hush.duration) s, recorded \(rec.duration) s")
        #expect(rec.rms() > 0.01)
    }
}

final class OrderLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(Int, PlaybackResult)] = []
    func append(_ i: Int, _ r: PlaybackResult) { lock.lock(); items.append((i, r)); lock.unlock() }
    var entries: [(Int, PlaybackResult)] { lock.lock(); defer { lock.unlock() }; return items }
}
