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
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<3 {
                group.addTask {
                    let r = await engine.play(AudioTestSupport.tone(400 + 100 * Double(i), seconds: 0.1), type: .relative(Double(i * 90)))
                    order.append(i, r)
                }
                try? await Task.sleep(for: .milliseconds(5))   // queue them in this order
            }
        }
        #expect(order.entries.map(\.0) == [0, 1, 2])
        #expect(order.entries.allSatisfy { $0.1 == .completed })
    }

    @Test func stopAllInterruptsTheCurrentSoundAndDropsTheQueueThenHushes() async throws {
        let engine = try Self.realtimeEngine()
        defer { engine.shutdown() }
        let log = OrderLog()
        let started = Date()
        let group = Task {
            await withTaskGroup(of: Void.self) { group in
                for i in 0..<3 {
                    group.addTask { log.append(i, await engine.play(AudioTestSupport.tone(500, seconds: 2), type: .standard)) }
                    try? await Task.sleep(for: .milliseconds(5))
                }
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(engine.isPlaying && engine.queuedCount == 2)
        engine.stopAll(hush: true)
        await group.value
        #expect(Date().timeIntervalSince(started) < 1.5, "stop must not wait for the 2 s sound")
        #expect(log.entries.count == 3)
        #expect(log.entries.allSatisfy { $0.1 == .interrupted })
        #expect(!engine.isPlaying && engine.queuedCount == 0)
        // The queue works again afterwards.
        #expect(await engine.play(AudioTestSupport.tone(500, seconds: 0.05)) == .completed)
    }

    @Test func clearDropsOnlyWhatIsWaiting() async throws {
        let engine = try Self.realtimeEngine()
        defer { engine.shutdown() }
        let log = OrderLog()
        let group = Task {
            await withTaskGroup(of: Void.self) { group in
                for i in 0..<3 {
                    group.addTask { log.append(i, await engine.play(AudioTestSupport.tone(500, seconds: 0.4), type: .standard)) }
                    // Each one in the engine before the next is started: child tasks run in any order, and under
                    // load the second one reached the engine first (and played to its end instead of the first).
                    let deadline = ContinuousClock.now + .seconds(2)
                    while engine.queuedCount + (engine.isPlaying ? 1 : 0) < i + 1 && ContinuousClock.now < deadline {
                        try? await Task.sleep(for: .milliseconds(1))
                    }
                }
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(engine.isPlaying && engine.queuedCount == 2)
        engine.clear()
        await group.value
        let results = Dictionary(uniqueKeysWithValues: log.entries)
        #expect(results[0] == .completed)
        #expect(results[1] == .interrupted && results[2] == .interrupted)
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
