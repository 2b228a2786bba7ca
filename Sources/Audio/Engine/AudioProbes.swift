import Foundation
import Synchronization

/// Timings of the engine's insides for `soundscape-bench` (Sources/SoundscapeBench), which prints them against
/// their targets. Package access: they need the mixer and the engine's counters, and are no part of the API.
package enum AudioProbes {
    private static func threadCPUNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Fraction of one core the mixer needs for `sources` spatial voices of noise, each turning at
    /// 90°/s (so direction cross-fades happen as in real use), rendered for 10 s of audio.
    package static func mixerCPULoad(sources: Int, bank: HRTFBank) -> Double {
        let mixer = Mixer(bank: bank, blockFrames: 256, maxVoices: max(sources, 1))
        let seconds = 10.0
        let frames = Int(seconds * 48_000)
        var seed: UInt32 = 12_345
        var noise = [Float](repeating: 0, count: frames + 48_000)
        for i in noise.indices {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            noise[i] = (Float(seed >> 8) / Float(1 << 24) - 0.5) * 0.2
        }
        for s in 0..<sources {
            let stream = SampleStream(channels: 1, samples: noise, sourceChannels: 1)
            // Relative placement; the listener's heading turns, so compass sources move.
            mixer.commands.push(MixerCommand(kind: .start, id: UInt64(s + 1), stream: Unmanaged.passRetained(stream),
                                             placement: .compass(Double(s) * 360 / Double(sources))))
        }
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 512)
        defer { out.deallocate() }
        let blocks = frames / 256
        mixer.render(into: out)   // apply the start commands, warm up
        let t0 = threadCPUNanos()
        for b in 0..<blocks {
            mixer.listener.heading.value = Double(b) * 90 * 256 / 48_000
            mixer.render(into: out)
        }
        let t1 = threadCPUNanos()
        while let e = mixer.events.pop() { e.stream?.release() }
        return Double(t1 - t0) / 1e9 / (Double(blocks * 256) / 48_000)
    }

    /// From a heading update to the first block rendered with it, plus the audio queued ahead of that
    /// block and the server's reported latency. Nil when no server answers.
    package static func motionToSound(bank: HRTFBank, options: PulseOutput.Options) throws
        -> (render: Double, total: Double, worst: Double, count: Int)? {
        let engine = try AudioEngine(configuration: .init(output: .pulseAudio(options)), synthesizer: nil, bank: bank)
        defer { engine.shutdown() }
        guard let output = engine.output else { return nil }
        for _ in 0..<40 where !output.isConnected { usleep(50_000) }
        guard output.isConnected else { return nil }
        engine.beacon.start(BeaconSound(style: BeaconStyle.builtIn()!, location: .init(latitude: 60.17, longitude: 24.94)))
        engine.setLocation(.init(latitude: 60.16, longitude: 24.94))
        usleep(300_000)
        var renders: [Double] = [], totals: [Double] = []
        let l = engine.mixer.listener
        for i in 0..<60 {
            engine.setHeading(Double(i * 37 % 360))
            let serial = l.headingSerial.load(ordering: .acquiring)
            let t0 = l.headingNanos.load(ordering: .acquiring)
            let deadline = monotonicNanos() + 200_000_000
            while engine.mixer.appliedHeadingSerial.load(ordering: .acquiring) < serial && monotonicNanos() < deadline {
                usleep(100)
            }
            let applied = engine.mixer.appliedHeadingNanos.load(ordering: .acquiring)
            guard applied >= t0 else { continue }
            let render = Double(applied - t0) / 1e9
            let ahead = Double(engine.queuedAheadOfHeading) / 48_000
            let server = output.latency() ?? 0
            renders.append(render)
            totals.append(render + ahead + server)
            usleep(UInt32(20_000 + (i * 7_919) % 13_000))   // update at irregular times
        }
        guard !totals.isEmpty else { return nil }
        return (median(renders), median(totals), totals.max() ?? 0, totals.count)
    }

    /// From `play` of a 10-word sentence to the mixer rendering its first sample (real-time engine).
    package static func ttsFirstSample(bank: HRTFBank, synthesizer: EspeakSynthesizer) throws -> (median: Double, worst: Double, count: Int) {
        let engine = try AudioEngine(configuration: .init(output: .null), synthesizer: synthesizer, bank: bank)
        defer { engine.shutdown() }
        let sentence = "Coffee shop is about thirty meters ahead on your left side."
        var values: [Double] = []
        let done = DispatchSemaphore(value: 0)
        for i in 0..<12 {
            let box = ResultBox()
            Task.detached {
                box.set(await engine.playForBench(TTSSound(sentence), type: .relative(Double(i * 30))))
                done.signal()
            }
            // Stop it once it has started: we only need the first sample.
            let deadline = Date().addingTimeInterval(2)
            while engine.queue.latestFirstSampleLatency == nil && Date() < deadline { usleep(500) }
            if let v = engine.queue.latestFirstSampleLatency, i > 1 { values.append(v) }   // skip warm-up runs
            engine.stopAll()
            done.wait()
            engine.queue.resetFirstSampleLatency()
        }
        return (median(values), values.max() ?? .nan, values.count)
    }

    private static func median(_ x: [Double]) -> Double {
        guard !x.isEmpty else { return .nan }
        let s = x.sorted()
        return s[s.count / 2]
    }
}

private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: PlaybackResult?
    func set(_ v: PlaybackResult) { lock.lock(); value = v; lock.unlock() }
}

extension AudioEngine {
    fileprivate func playForBench(_ sound: any Sound, type: SoundType) async -> PlaybackResult { await play(sound, type: type) }
}
