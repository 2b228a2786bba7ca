@testable import Audio
import Foundation
import Geo
import Testing

/// Every built-in beacon style rendered offline through the HRTF mixer: which part sounds is read back from the
/// rendered signal (its loudness envelope, which carries each part's rhythm), at beacon headings just inside and
/// just outside each of the spec's angular thresholds (§4.4). The beacon stays straight ahead of the listener, so
/// only the beacon heading (spec §2.2's beacon order) changes the part. The engine runs at 16 kHz with a short toy
/// HRTF (as AudioTestSupport's, scaled down) so that the nine styles render in seconds; each style is resampled to
/// it as the engine does for any output rate.
@Suite struct BeaconStyleRenderTests {
    static let listener = Coordinate(latitude: 60.1700, longitude: 24.9400)
    static let beaconNorth = Coordinate(latitude: 60.1750, longitude: 24.9400)
    static let rate = 16_000
    /// 5 ms envelope frames.
    static let hop = 80

    static let bank: HRTFBank = {
        let pairs = (0..<72).map { i -> HRIRPair in
            let s = sin(Double(i) * 5 * .pi / 180)
            func ir(delay: Double, gain: Double) -> [Float] {
                (0..<16).map { k in Float(gain * exp(-(Double(k) - delay) * (Double(k) - delay) / 2)) }
            }
            return HRIRPair(left: ir(delay: 6 + 4 * s, gain: 1 - 0.6 * s), right: ir(delay: 6 - 4 * s, gain: 1 + 0.6 * s),
                            leftDelay: 0, rightDelay: 0)
        }
        return HRTFBank(pairs: pairs, sampleRate: rate, taps: 16, source: "toy sphere, 16 kHz")
    }()

    static func engine() throws -> AudioEngine {
        try AudioEngine(configuration: .init(output: .offline, sampleRate: rate), synthesizer: nil, bank: bank)
    }

    /// Loudness envelope (RMS per hop), mean removed.
    static func envelope(_ x: ArraySlice<Float>) -> [Float] {
        let base = x.startIndex
        let n = x.count / hop
        var e = (0..<n).map { k in AudioTestSupport.rms(x[(base + k * hop)..<(base + (k + 1) * hop)]) }
        let mean = e.reduce(0, +) / Float(max(n, 1))
        for i in e.indices { e[i] -= mean }
        return e
    }

    /// Normalized correlation of two envelopes, best over shifts of ±2 hops (the HRTF's delay and the crossfade).
    static func similarity(_ a: [Float], _ b: [Float]) -> Float {
        var best: Float = -1
        let n = min(a.count, b.count)
        for shift in -2...2 {
            var ab: Float = 0, aa: Float = 0, bb: Float = 0
            for i in 0..<n {
                let j = (i + shift + n) % n
                ab += a[i] * b[j]; aa += a[i] * a[i]; bb += b[j] * b[j]
            }
            best = max(best, ab / max((aa * bb).squareRoot(), 1e-12))
        }
        return best
    }

    /// Angles (beacon heading − bearing) just inside and outside each threshold of a style with `count` parts, with
    /// the part the spec gives for each (ringing angle 15°): every threshold on the right, and on the left those of
    /// the centre and of behind (the windows are symmetric; ``AudioBeaconTests`` checks every edge of the function).
    static func probes(count: Int) -> [(angle: Double, part: Int)] {
        switch count {
        case 4: return [(14, 0), (16, 1), (54, 1), (56, 2), (124, 2), (126, 3), (236, 2), (344, 1), (346, 0)]
        case 3: return [(14, 0), (16, 1), (124, 1), (126, 2), (236, 1), (346, 0)]
        default: return [(14, 0), (16, 1), (344, 1), (346, 0)]
        }
    }

    @Test(arguments: BeaconStyle.builtInNames)
    func partsSwitchAtTheSpecifiedAngles(_ name: String) throws {
        let style = try #require(BeaconStyle.builtIn(name)).resampled(to: Self.rate)
        let engine = try Self.engine()
        let phrase = style.phraseFrames, perBeat = style.framesPerBeat
        let references = style.components.map { Self.envelope($0[...]) }
        engine.setListener(location: Self.listener, heading: 0)   // the beacon is straight ahead throughout
        engine.setBeaconHeading(0)
        engine.beacon.start(BeaconSound(style: style, location: Self.beaconNorth))
        engine.render(frames: perBeat)
        // No beacon heading: the last part (spec §4.4), then each probe in turn.
        let probes: [(angle: Double?, part: Int)] = [(nil, style.components.count - 1)] + Self.probes(count: style.components.count).map { ($0.angle, $0.part) }
        for probe in probes {
            engine.setBeaconHeading(probe.angle)
            // The part changes on the next beat (with a 256-frame crossfade); from just after it, take one whole phrase.
            let now = engine.renderedFrames
            let start = (now + perBeat - 1) / perBeat * perBeat + 3 * Self.hop
            engine.render(frames: start + phrase - now)
            let rec = engine.recording()
            var mono = [Float](repeating: 0, count: phrase)
            for i in 0..<phrase { mono[i] = rec.samples[2 * (start + i)] + rec.samples[2 * (start + i) + 1] }
            // The phrase position at `start` (the loop began at frame 0, no intro): line the references up with it.
            let offset = Int((Double(start % phrase) / Double(Self.hop)).rounded()) % references[0].count
            let measured = Self.envelope(mono[...])
            let scores = references.map { ref -> Float in
                let rotated = Array(ref[offset...] + ref[..<offset])
                return Self.similarity(measured, rotated)
            }
            let heard = scores.indices.max { scores[$0] < scores[$1] }!
            #expect(heard == probe.part,
                    "\(name) at \(probe.angle.map { "\($0)°" } ?? "no heading"): heard part \(heard) (\(style.componentNames[heard])), the spec wants \(probe.part); similarities \(scores)")
            // …and clearly: the parts of a style are told apart by their rhythm (on all styles the margin is ≥ 0.3).
            let ranked = scores.sorted(by: >)
            #expect(ranked[0] - ranked[1] > 0.15, "\(name) at \(probe.angle.map { "\($0)°" } ?? "no heading"): parts too alike, \(scores)")
            #expect(engine.beacon.trace.last?.component == probe.part, "\(name): the mixer reports part \(engine.beacon.trace.last?.component ?? -1)")
        }
    }

    /// The beacon heading, not the listener's, chooses the part: facing away from the beacon with the head while the
    /// body (beacon heading) faces it plays the centre part.
    @Test func theBeaconHeadingChoosesThePartNotTheListenerHeading() throws {
        let style = try #require(BeaconStyle.builtIn("Chime")).resampled(to: Self.rate)
        let engine = try Self.engine()
        engine.setListener(location: Self.listener, heading: 180)   // the head turned away: the beacon sounds behind
        engine.setBeaconHeading(0)                                   // the beacon heading faces it
        engine.beacon.start(BeaconSound(style: style, location: Self.beaconNorth))
        engine.render(frames: style.framesPerBeat * 2)
        #expect(engine.beacon.trace.map(\.component) == [0])
        engine.setBeaconHeading(180)
        engine.render(frames: style.framesPerBeat * 2)
        #expect(engine.beacon.trace.map(\.component) == [0, 3])
    }

    @Test func thereAreAtLeastEightStylesAndTheyDifferByEar() throws {
        let names = BeaconStyle.builtInNames
        #expect(names.count >= 8)
        // Distinct by ear: no two styles' centre parts share their rhythm and timbre (envelope and spectrum alike).
        let centres = try names.map { try #require(BeaconStyle.builtIn($0)).components[0] }
        func spectrumCentroid(_ x: [Float]) -> Double {
            // Zero-crossing rate as a cheap brightness measure.
            var crossings = 0
            for i in 1..<x.count where (x[i - 1] < 0) != (x[i] < 0) { crossings += 1 }
            return Double(crossings) / Double(x.count)
        }
        for i in 0..<names.count { for j in (i + 1)..<names.count {
            let a = centres[i], b = centres[j]
            let n = min(a.count, b.count)
            let rhythm = Self.similarity(Self.envelope(a[..<n]), Self.envelope(b[..<n]))
            let brightness = abs(spectrumCentroid(a) - spectrumCentroid(b)) / max(spectrumCentroid(a), spectrumCentroid(b))
            #expect(rhythm < 0.9 || brightness > 0.15, "\(names[i]) and \(names[j]) sound alike (rhythm \(rhythm), brightness Δ \(brightness))")
        } }
    }
}
