@testable import Audio
import Foundation
import Testing

/// The real HRTF (MIT KEMAR from libmysofa1) through the real mixer, rendered offline.
@Suite("Audio engine: offline spatial rendering with KEMAR")
struct AudioSpatialRenderTests {
    static let bank: HRTFBank = {
        do { return try HRTFBank() } catch { fatalError("cannot load \(SOFAHRTF.debianDefaultPath): \(error)") }
    }()

    static func rms(_ x: ArraySlice<Float>) -> Float { (x.reduce(0) { $0 + $1 * $1 } / Float(max(x.count, 1))).squareRoot() }

    /// Best lag of the left ear behind the right, in samples (positive: the right ear hears it first).
    static func lag(left: [Float], right: [Float], maxLag: Int) -> Int {
        var best = 0, bestValue = -Float.infinity
        for lag in -maxLag...maxLag {
            var s: Float = 0
            for i in maxLag..<(left.count - maxLag) { s += left[i] * right[i - lag] }
            if s > bestValue { bestValue = s; best = lag }
        }
        return best
    }

    /// A 500 Hz tone (period 2 ms, longer than twice the largest interaural delay, so the lag is unambiguous)
    /// at −90°, 0°, +90° and 180°: level and time differences must point to the right side, and be
    /// near zero straight ahead and behind.
    @Test(arguments: [-90.0, 0, 90, 180])
    func toneAtAzimuthHasInterauralDifferencesPointingTheRightWay(azimuth: Double) async throws {
        let engine = try AudioEngine(configuration: .init(output: .offline), synthesizer: nil, bank: Self.bank)
        engine.setHeading(0)
        let tone = (0..<24_000).map { 0.5 * Float(sin(2 * .pi * 500 * Double($0) / 48_000)) }
        let result = await engine.play(BufferSound(PCMBuffer(sampleRate: 48_000, channels: 1, samples: tone)), type: .relative(azimuth))
        #expect(result == .completed)
        let rec = engine.recording()
        let l = Array(rec.channel(0)[4_800..<19_200]), r = Array(rec.channel(1)[4_800..<19_200])
        let ild = 20 * log10(Self.rms(r[...]) / Self.rms(l[...]))       // positive: louder on the right
        let itd = Double(Self.lag(left: l, right: r, maxLag: 48)) / 48 // ms; positive: right ear first
        switch azimuth {
        case 90:
            #expect(ild > 3, "ILD \(ild) dB"); #expect(itd > 0.4 && itd < 0.9, "ITD \(itd) ms")
        case -90:
            #expect(ild < -3, "ILD \(ild) dB"); #expect(itd < -0.4 && itd > -0.9, "ITD \(itd) ms")
        default:
            #expect(abs(ild) < 1.5, "ILD \(ild) dB"); #expect(abs(itd) < 0.05, "ITD \(itd) ms")
        }
        // The tone is neither lost nor blown up by the HRTF normalisation.
        #expect(Self.rms(l[...]) + Self.rms(r[...]) > 0.1)
        #expect(rec.samples.allSatisfy { abs($0) < 1 })
    }

    @Test func frontAndBackSoundDifferent() async throws {
        // Same ILD/ITD (both ≈ 0), but the pinna makes the spectra differ; the grid keeps that.
        let front = Self.bank.filter(index: Self.bank.index(forAzimuth: 0), ear: 0).taps
        let back = Self.bank.filter(index: Self.bank.index(forAzimuth: 180), ear: 0).taps
        let diff = zip(front, back).map { ($0 - $1) * ($0 - $1) }.reduce(0, +)
        let energy = front.map { $0 * $0 }.reduce(0, +)
        #expect(diff > 0.1 * energy)
    }

    @Test func anotherSOFAFileCanBeUsed() throws {
        let custom = try HRTFBank(sofaPath: SOFAHRTF.debianDefaultPath, sampleRate: 48_000, taps: 96, resolution: 10)
        #expect(custom.taps == 96 && custom.directions == 36)
        #expect(throws: HRTFError.self) { _ = try HRTFBank(sofaPath: "/nonexistent.sofa") }
    }
}
