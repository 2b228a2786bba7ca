@testable import App
import Audio
import Callouts
import Foundation
import Geo
import Testing

/// The reply output owns no queue: replies and problems are callouts in the coordinator's one queue, played
/// through a sound player that here is a fake (no sound server, no sleeps: each sound plays until released).
@Suite struct ReplyRoutingTests {
    final class FakeSoundPlayer: SoundPlayer, @unchecked Sendable {
        private let lock = NSLock()
        private var started: [String] = []
        private var holding: CheckedContinuation<PlaybackResult, Never>?
        private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        private(set) var stops = 0

        var played: [String] { lock.withLock { started } }

        func play(_ sound: any Sound, type: SoundType) async -> PlaybackResult {
            await withCheckedContinuation { (c: CheckedContinuation<PlaybackResult, Never>) in
                let ready: [CheckedContinuation<Void, Never>] = lock.withLock {
                    started.append(String(describing: sound))
                    holding = c
                    let n = started.count
                    let due = waiters.filter { $0.count <= n }.map(\.continuation)
                    waiters.removeAll { $0.count <= n }
                    return due
                }
                for w in ready { w.resume() }
            }
        }

        /// Returns once `count` sounds have started.
        func waitForPlays(_ count: Int) async {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = lock.withLock { () -> Bool in
                    if started.count >= count { return true }
                    waiters.append((count, c))
                    return false
                }
                if now { c.resume() }
            }
        }

        /// Lets the sound playing now end.
        func finishCurrent(_ result: PlaybackResult = .completed) {
            let c = lock.withLock { () -> CheckedContinuation<PlaybackResult, Never>? in defer { holding = nil }; return holding }
            c?.resume(returning: result)
        }

        func stopAll(hush: Bool) {
            lock.withLock { stops += 1 }
            finishCurrent(.interrupted)
        }
        func setListener(location: Coordinate?, heading: Double?) {}
        func setBeaconHeading(_ degrees: Double?) {}
        var status: AudioEngine.Status { AudioEngine.Status(connected: true, connections: 1) }
    }

    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [String] = []
        func add(_ line: String) { lock.withLock { stored.append(line) } }
        var all: [String] { lock.withLock { stored } }
    }

    @Test func aReplyTheUserAskedForInterruptsAndAProblemWaitsItsTurn() async throws {
        let sound = FakeSoundPlayer()
        let lines = Lines()
        let output = EngineReplyOutput(engine: sound, checksConnection: false, printLine: { lines.add($0) })
        // Said before the coordinator exists: kept in order and handed over.
        await output.problem("the microphone is gone")
        let coordinator = CalloutCoordinator(player: CalloutOutputPlayer(output: output, printLine: { lines.add($0) }),
                                             phrasing: Phrasing(table: try StringTable(language: "en")),
                                             clock: PipelineClock(SimulatedClock(), start: Date(timeIntervalSince1970: 1_780_300_800)))
        output.route(through: coordinator)
        await sound.waitForPlays(1)
        #expect(sound.played[0].contains("the microphone is gone"))

        await output.say([Reply("Facing north along Kaivokatu")], interrupt: true)
        await sound.waitForPlays(2)
        #expect(sound.stops == 1, "the answer cut the problem short")
        #expect(sound.played[1].contains("Facing north along Kaivokatu"))

        await output.problem("no sound server")
        await output.say("an automatic word")
        sound.finishCurrent()
        await sound.waitForPlays(3)
        sound.finishCurrent()
        await sound.waitForPlays(4)
        #expect(sound.stops == 1, "automatic things never cut an answer")
        #expect(sound.played[2].contains("no sound server") && sound.played[3].contains("an automatic word"))
        sound.finishCurrent()
        await output.finish()
        // Printed once each, when said (the callout player does not print them again).
        #expect(lines.all == ["Problem: the microphone is gone", "Facing north along Kaivokatu", "Problem: no sound server",
                              "an automatic word"])
    }
}
