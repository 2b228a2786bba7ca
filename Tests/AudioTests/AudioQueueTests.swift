@testable import Audio
import Foundation
import Testing

/// The discrete queue the callout coordinator uses: play in order, stop now (hush), clear; one result per sound.
@Suite(.serialized) struct AudioQueueTests {
    /// A real-time engine without a sound device (the render thread keeps time with the clock).
    static func realtimeEngine() throws -> AudioEngine {
        try AudioEngine(configuration: .init(output: .null), synthesizer: nil, bank: AudioTestSupport.bank)
    }

    @Test func soundsPlayInOrderAndEachReportsCompletion() async throws {
        let engine = try Self.realtimeEngine()
        defer { engine.shutdown() }
        let order = OrderLog()
        let tickets = (0..<3).map { i in
            engine.enqueue(AudioTestSupport.tone(400 + 100 * Double(i), seconds: 0.1), type: .relative(Double(i * 90)))
        }
        await withTaskGroup(of: Void.self) { group in
            for (i, ticket) in tickets.enumerated() {
                group.addTask { order.append(i, await ticket.result()) }
            }
        }
        #expect(order.entries.map(\.0) == [0, 1, 2])
        #expect(order.entries.allSatisfy { $0.1 == .completed })
    }

    @Test func stopAllInterruptsTheCurrentSoundAndDropsTheQueueThenHushes() async throws {
        let engine = try Self.realtimeEngine()
        defer { engine.shutdown() }
        let started = Date()
        let tickets = (0..<3).map { _ in engine.enqueue(AudioTestSupport.tone(500, seconds: 2), type: .standard) }
        #expect(engine.isPlaying && engine.queuedCount == 2)
        engine.stopAll(hush: true)
        var results: [PlaybackResult] = []
        for ticket in tickets { results.append(await ticket.result()) }
        #expect(Date().timeIntervalSince(started) < 1.5, "stop must not wait for the 2 s sound")
        #expect(results == [.interrupted, .interrupted, .interrupted])
        #expect(!engine.isPlaying && engine.queuedCount == 0)
        // The queue works again afterwards.
        #expect(await engine.play(AudioTestSupport.tone(500, seconds: 0.05)) == .completed)
    }

    @Test func clearDropsOnlyWhatIsWaiting() async throws {
        let engine = try Self.realtimeEngine()
        defer { engine.shutdown() }
        let tickets = (0..<3).map { _ in engine.enqueue(AudioTestSupport.tone(500, seconds: 0.4), type: .standard) }
        #expect(engine.isPlaying && engine.queuedCount == 2)
        engine.clear()
        #expect(tickets[1].outcomeIfEnded == .interrupted && tickets[2].outcomeIfEnded == .interrupted)
        #expect(await tickets[0].result() == .completed)
    }

    /// Offline, time passes only when rendered: a queued sound has not ended until enough audio was rendered.
    @Test func offlineQueuedSoundsEndWhenTheirAudioIsRendered() async throws {
        let engine = try AudioTestSupport.offlineEngine()
        let first = engine.enqueue(AudioTestSupport.tone(500, seconds: 0.1))
        let second = engine.enqueue(AudioTestSupport.tone(600, seconds: 0.1))
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
