@testable import Audio
import Foundation
import Testing

/// The sound queue's rules on a fake mixer (commands recorded, ends reported by the test) and on an offline render.
@Suite struct SoundQueueTests {
    @Test func startsOneSoundAtATimeInTheOrderQueued() {
        let port = FakeMixerPort()
        let queue = port.makeQueue()
        let a = queue.enqueue(AudioTestSupport.tone(400, seconds: 0.05), type: .relative(90))
        let b = queue.enqueue(AudioTestSupport.tone(500, seconds: 0.05), type: .standard)
        let c = queue.enqueue(AudioTestSupport.tone(600, seconds: 0.05), type: .compass(180))
        #expect(port.started == [a.id], "only the first starts")
        #expect(port.sent.first?.placement == .relative(90) && port.wakes == 1)
        #expect(queue.isPlaying && queue.queuedCount == 2)
        port.finish(a.id, completed: true)
        #expect(a.outcomeIfEnded == .completed && b.outcomeIfEnded == nil)
        #expect(port.started == [a.id, b.id])
        port.finish(b.id, completed: true)
        #expect(port.started == [a.id, b.id, c.id] && port.sent.last?.placement == .compass(180))
        port.finish(c.id, completed: true)
        #expect([a, b, c].map(\.outcomeIfEnded) == [.completed, .completed, .completed])
        #expect(!queue.isPlaying && queue.isIdle)
    }

    @Test func aSpatialSoundIsPreparedMonoAndAPlainOneStereo() throws {
        let port = FakeMixerPort()
        let queue = port.makeQueue()
        let spatial = queue.enqueue(AudioTestSupport.tone(400, seconds: 0.05), type: .relative(0))
        let spatialStream = try #require(port.stream(of: spatial.id))
        #expect(spatialStream.channels == 1 && spatialStream.isFinished && spatialStream.availableFrames == 2_400)
        port.finish(spatial.id, completed: true)
        let plain = queue.enqueue(AudioTestSupport.tone(400, seconds: 0.05), type: .standard)
        #expect(try #require(port.stream(of: plain.id)).channels == 2)
        port.finish(plain.id, completed: true)
    }

    @Test func stopAllInterruptsTheCurrentDropsTheQueueAndHushes() throws {
        let port = FakeMixerPort()
        let queue = port.makeQueue()
        let tickets = (0..<3).map { _ in queue.enqueue(AudioTestSupport.tone(500, seconds: 2), type: .standard) }
        queue.stopAll(hush: true)
        #expect(port.kinds == [.start, .stopAll, .start], "stop everything, then the hush")
        #expect(tickets[1].outcomeIfEnded == .interrupted && tickets[2].outcomeIfEnded == .interrupted)
        #expect(tickets[0].outcomeIfEnded == nil, "the current one ends when the mixer says so")
        #expect(try #require(port.stream(of: tickets[0].id)).isCancelled)
        let hushID = port.started[1]
        let hush = try #require(port.stream(of: hushID))
        let expected = EarconSynthesizer.earcon(.hush).duration * 48_000
        #expect(abs(Double(hush.availableFrames) - expected) < 2, "the hush earcon: \(hush.availableFrames) frames")
        port.finish(tickets[0].id, completed: false)
        #expect(tickets[0].outcomeIfEnded == .interrupted)
        #expect(port.started.count == 2, "nothing queued starts after a stop")
        port.finish(hushID, completed: true)
        #expect(queue.isIdle)
        let next = queue.enqueue(AudioTestSupport.tone(500, seconds: 0.05), type: .standard)
        #expect(port.started.last == next.id, "the queue takes sounds again")
    }

    @Test func clearDropsTheWaitingAndKeepsThePlaying() {
        let port = FakeMixerPort()
        let queue = port.makeQueue()
        let tickets = (0..<3).map { _ in queue.enqueue(AudioTestSupport.tone(500, seconds: 0.4), type: .standard) }
        queue.clear()
        #expect(tickets[1].outcomeIfEnded == .interrupted && tickets[2].outcomeIfEnded == .interrupted)
        #expect(port.kinds == [.start], "clear sends nothing to the mixer")
        port.finish(tickets[0].id, completed: true)
        #expect(tickets[0].outcomeIfEnded == .completed && port.started.count == 1 && queue.isIdle)
    }

    /// playNow starts beside the playing sound (the fake ends sounds only when stepped, and playNow sends its start
    /// before it steps); play steps until its own sound has ended.
    @Test func playNowStartsOverThePlayingSound() async {
        let port = FakeMixerPort(endsOnAdvance: true)
        let queue = port.makeQueue()
        let long = queue.enqueue(AudioTestSupport.tone(500, seconds: 1), type: .standard)
        #expect(await queue.playNow(GlyphSound(.hush), type: .standard) == .completed)
        #expect(port.kinds == [.start, .start] && long.outcomeIfEnded == .completed)
        #expect(await queue.play(AudioTestSupport.tone(500, seconds: 0.05), type: .relative(45)) == .completed)
        #expect(port.started.count == 3 && queue.isIdle)
    }

    @Test func aFullCommandQueueFailsTheSoundAndTheOnesBehindIt() {
        let port = FakeMixerPort()
        let queue = port.makeQueue()
        let first = queue.enqueue(AudioTestSupport.tone(500, seconds: 0.1), type: .standard)
        let second = queue.enqueue(AudioTestSupport.tone(500, seconds: 0.1), type: .standard)
        port.refuse(true)
        port.finish(first.id, completed: true)
        guard case .failed(let why)? = second.outcomeIfEnded else {
            Issue.record("expected a failure, got \(String(describing: second.outcomeIfEnded))"); return
        }
        #expect(why.contains("command queue is full"))
        #expect(queue.isIdle)
        port.refuse(false)
        let third = queue.enqueue(AudioTestSupport.tone(500, seconds: 0.1), type: .standard)
        #expect(port.started.last == third.id)
    }

    @Test func aSoundThatCannotBePreparedReportsWhy() {
        let port = FakeMixerPort()
        let queue = port.makeQueue()
        let ticket = queue.enqueue(TTSSound("no synthesizer"), type: .standard)
        port.finish(ticket.id, completed: true)
        guard case .failed(let why)? = ticket.outcomeIfEnded else { Issue.record("expected failure"); return }
        #expect(why.contains("no speech synthesizer"))
    }

    @Test func afterCloseEverythingIsInterrupted() async {
        let port = FakeMixerPort()
        let queue = port.makeQueue()
        let playing = queue.enqueue(AudioTestSupport.tone(500, seconds: 1), type: .standard)
        let waiting = queue.enqueue(AudioTestSupport.tone(500, seconds: 1), type: .standard)
        queue.close()
        #expect(playing.outcomeIfEnded == .interrupted && waiting.outcomeIfEnded == .interrupted)
        #expect(await queue.play(AudioTestSupport.tone(500, seconds: 0.1), type: .standard) == .interrupted)
        #expect(port.started.count == 1)
    }

    /// On the real mixer, offline: three tones queued at once are heard one after another, each in its own span.
    @Test func offlineRecordingHasTheSoundsInQueueOrder() {
        let engine = try! AudioTestSupport.offlineEngine()
        let tones = [300.0, 600, 1_200]
        let tickets = tones.map { engine.queue.enqueue(AudioTestSupport.tone($0, seconds: 0.2), type: .standard) }
        engine.render(seconds: 0.7)
        #expect(tickets.allSatisfy { $0.outcomeIfEnded == .completed })
        let left = engine.recording().channel(0)
        for (i, hz) in tones.enumerated() {
            // The middle of each 0.2 s span (one block of slack for the start of the next sound).
            let span = Array(left[(i * 9_600 + 2_000)..<(i * 9_600 + 8_000)])
            var crossings = 0
            for k in 1..<span.count where (span[k - 1] < 0) != (span[k] < 0) { crossings += 1 }
            let measured = Double(crossings) / 2 / (Double(span.count) / 48_000)
            #expect(abs(measured - hz) < hz * 0.05, "span \(i): \(measured) Hz, queued \(hz) Hz")
        }
    }
}
