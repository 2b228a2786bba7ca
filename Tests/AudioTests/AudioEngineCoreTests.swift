@testable import Audio
import Foundation
import Geo
import Testing

@Suite struct AudioEngineCoreTests {
    @Test func ringKeepsOrderAndRefusesWhenFull() {
        let ring = SPSCRing<Int>(capacity: 4)
        #expect(ring.push(1) && ring.push(2) && ring.push(3))
        #expect(!ring.push(4), "capacity 4 holds 3 elements")
        #expect(ring.pop() == 1)
        #expect(ring.push(4))
        #expect([ring.pop(), ring.pop(), ring.pop(), ring.pop()] == [2, 3, 4, nil])
    }

    @Test func fifoWrapsAround() {
        let fifo = FrameFIFO(capacityFrames: 5, channels: 2)
        let a: [Float] = [1, 1, 2, 2, 3, 3, 4, 4]
        #expect(a.withUnsafeBufferPointer { fifo.write($0.baseAddress!, frames: 4) } == 4)
        var out = [Float](repeating: 0, count: 6)
        #expect(out.withUnsafeMutableBufferPointer { fifo.read(into: $0.baseAddress!, frames: 3) } == 3)
        #expect(out == [1, 1, 2, 2, 3, 3])
        let b: [Float] = [5, 5, 6, 6, 7, 7, 8, 8]
        #expect(b.withUnsafeBufferPointer { fifo.write($0.baseAddress!, frames: 4) } == 4)
        #expect(fifo.fill == 5)
        var rest = [Float](repeating: 0, count: 10)
        #expect(rest.withUnsafeMutableBufferPointer { fifo.read(into: $0.baseAddress!, frames: 5) } == 5)
        #expect(rest == [4, 4, 5, 5, 6, 6, 7, 7, 8, 8])
    }

    @Test func sampleStreamCrossesChunksAndConvertsChannels() {
        let stream = SampleStream(channels: 2)
        let n = SampleStream.chunkFrames + 100
        stream.append((0..<n).map { Float($0) }, sourceChannels: 1)
        #expect(stream.availableFrames == n && !stream.isFinished)
        stream.finish()
        var out = [Float](repeating: -1, count: 400)
        let got = out.withUnsafeMutableBufferPointer { stream.read(from: SampleStream.chunkFrames - 100, count: 200, into: $0.baseAddress!) }
        #expect(got == 200)
        #expect(out[0] == Float(SampleStream.chunkFrames - 100) && out[1] == out[0])
        #expect(out[398] == Float(SampleStream.chunkFrames + 99))
        let mono = SampleStream(channels: 1)
        mono.append([1, 3, 5, 7], sourceChannels: 2)
        #expect(mono.snapshot() == [2, 6])
    }

    @Test func streamingResamplerMatchesWholeBufferConversionInAnyChunking() {
        let input = AudioTestSupport.sine(440, seconds: 0.5, rate: 22_050)
        let whole = StreamingResampler(from: 22_050, to: 48_000)
        let a = whole.process(input) + whole.finish()
        let pieces = StreamingResampler(from: 22_050, to: 48_000)
        var b: [Float] = []
        var i = 0, size = 7
        while i < input.count {
            let end = min(input.count, i + size)
            b += pieces.process(Array(input[i..<end]))
            i = end
            size = size * 3 % 1_013 + 1
        }
        b += pieces.finish()
        #expect(a.count == b.count)
        #expect(abs(a.count - 24_000) <= 1, "0.5 s at 48 kHz, got \(a.count)")
        #expect(zip(a, b).allSatisfy { abs($0 - $1) < 1e-6 })
        // Same frequency and level as the existing whole-buffer resampler.
        let reference = Resampler(from: 22_050, to: 48_000).process(input)
        let mid = 2_000..<22_000
        #expect(abs(AudioTestSupport.rms(a[mid]) - AudioTestSupport.rms(reference[mid])) < 0.01)
    }

    @Test func gridIndexWrapsAndRounds() {
        let bank = AudioTestSupport.bank
        #expect(bank.index(forAzimuth: 0) == 0)
        #expect(bank.index(forAzimuth: 2.4) == 0 && bank.index(forAzimuth: 2.6) == 1)
        #expect(bank.index(forAzimuth: -90) == 54 && bank.index(forAzimuth: 270) == 54)
        #expect(bank.index(forAzimuth: 358) == 0 && bank.index(forAzimuth: 725) == 1)
        #expect(bank.index(forAzimuth: .nan) == 0)
    }

    /// Sharp direction changes every block must not click: the largest sample-to-sample step stays
    /// near what a steady source produces, while switching filters without the cross-fade jumps.
    @Test func directionChangesCrossFadeWithoutClicks() {
        let bank = AudioTestSupport.bank
        let block = 256
        let tone = AudioTestSupport.sine(300, seconds: 0.5, amplitude: 0.5)
        func render(directions: (Int) -> Int, crossfade: Bool) -> [Float] {
            let voice = SpatialVoice(bank: bank, blockSize: block)
            var out = [Float](repeating: 0, count: tone.count / block * block * 2)
            for b in 0..<(tone.count / block) {
                for k in 0..<block { voice.input[k] = tone[b * block + k] }
                out.withUnsafeMutableBufferPointer { o in
                    if !crossfade { voice.reset() ; for k in 0..<block { voice.input[k] = tone[b * block + k] } }
                    voice.process(target: directions(b), gainFrom: 1, gainTo: 1, output: o.baseAddress! + 2 * b * block)
                }
            }
            return out
        }
        func maxStep(_ x: [Float]) -> Float {
            var m: Float = 0
            for i in stride(from: 2 * 4 * block, to: x.count - 2, by: 1) { m = max(m, abs(x[i + 2] - x[i])) }
            return m
        }
        let steady = maxStep(render(directions: { _ in 18 }, crossfade: true))
        let hopping = maxStep(render(directions: { $0 % 2 == 0 ? 6 : 66 }, crossfade: true))   // 30° ↔ 330°
        // Without the cross-fade (and without history) the same hops click.
        let clicking = maxStep(render(directions: { $0 % 2 == 0 ? 6 : 66 }, crossfade: false))
        #expect(hopping < steady * 1.6, "steady \(steady), hopping with cross-fade \(hopping)")
        #expect(clicking > hopping * 1.5, "the test must be able to hear a click: \(clicking) vs \(hopping)")
    }

    @Test func relativeAndCompassPlacementsTurnWithTheListener() async throws {
        let engine = try AudioTestSupport.offlineEngine()
        engine.setHeading(0)
        await engine.play(AudioTestSupport.tone(500, seconds: 0.3), type: .relative(90))
        engine.setHeading(180)
        await engine.play(AudioTestSupport.tone(500, seconds: 0.3), type: .relative(90))   // head-locked: still right
        await engine.play(AudioTestSupport.tone(500, seconds: 0.3), type: .compass(90))    // east while facing south: left
        let rec = engine.recording()
        let l = rec.channel(0), r = rec.channel(1)
        let seg = 14_400
        for (i, expectRight) in [(0, true), (1, true), (2, false)] {
            let range = (i * seg + 2_000)..<((i + 1) * seg - 2_000)
            let d = AudioTestSupport.db(AudioTestSupport.rms(r[range]), AudioTestSupport.rms(l[range]))
            #expect(expectRight ? d > 6 : d < -6, "sound \(i): right − left = \(d) dB")
        }
    }

    @Test func localizedSoundFollowsTheListenersLocation() async throws {
        let engine = try AudioTestSupport.offlineEngine()
        let place = Coordinate(latitude: 60.1700, longitude: 24.9400)
        engine.setListener(location: Coordinate(latitude: 60.1700, longitude: 24.9380), heading: 0)   // place is east
        await engine.play(AudioTestSupport.tone(500, seconds: 0.3), type: .localized(place))
        engine.setListener(location: Coordinate(latitude: 60.1700, longitude: 24.9420), heading: 0)   // now west
        await engine.play(AudioTestSupport.tone(500, seconds: 0.3), type: .localized(place))
        let rec = engine.recording()
        let l = rec.channel(0), r = rec.channel(1)
        let first = 2_000..<12_000, second = 16_400..<26_400
        #expect(AudioTestSupport.db(AudioTestSupport.rms(r[first]), AudioTestSupport.rms(l[first])) > 6)
        #expect(AudioTestSupport.db(AudioTestSupport.rms(l[second]), AudioTestSupport.rms(r[second])) > 6)
    }

    @Test func offlineRenderIsStereo48kAndAsLongAsTheSounds() async throws {
        let engine = try AudioTestSupport.offlineEngine()
        let r1 = await engine.play(AudioTestSupport.tone(440, seconds: 0.5), type: .standard)
        let r2 = await engine.play(GlyphSound(.sensePOI), type: .relative(-45))
        #expect(r1 == .completed && r2 == .completed)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("offline-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try engine.writeRecording(to: path, tail: 0.05)
        let back = try WAVFile.read(path)
        #expect(back.sampleRate == 48_000 && back.channels == 2)
        let expected = 0.5 + EarconSynthesizer.earcon(.sensePOI).duration + 0.05
        #expect(abs(back.duration - expected) < 0.03, "duration \(back.duration), expected ≈ \(expected)")
        #expect(back.rms() > 0.02)
    }

    @Test func aMissingFileFailsWithItsName() async throws {
        let engine = try AudioTestSupport.offlineEngine()
        let result = await engine.play(GenericSound(path: "/nonexistent/x.wav"))
        guard case .failed(let why) = result else { Issue.record("expected failure, got \(result)"); return }
        #expect(why.contains("/nonexistent/x.wav"))
        let speech = await engine.play(TTSSound("no synthesizer here"))
        guard case .failed = speech else { Issue.record("speech without a synthesizer must fail"); return }
    }
}
