import Foundation
@testable import Speech
import Testing

@Suite("Noise suppression before recognition")
struct NoiseSuppressorTests {
    /// Gaussian noise and a 440 Hz tone (a stand-in for voiced speech) at 16 kHz.
    static func signal(seconds: Double, noise: Double, tone: Double, seed: UInt64) -> [Int16] {
        var state = seed
        func uniform() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        return (0..<Int(seconds * 16_000)).map { i in
            let g = (-2 * log(max(uniform(), 1e-12))).squareRoot() * cos(2 * .pi * uniform())
            return Int16(clamping: Int((g * noise + tone * sin(2 * .pi * 440 * Double(i) / 16_000)).rounded()))
        }
    }

    static func rms(_ x: ArraySlice<Int16>) -> Double {
        (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, x.count))).squareRoot()
    }

    @Test func steadyNoiseIsAttenuatedAndAToneOverItIsKept() {
        let suppressor = NoiseSuppressor(suppression: -15)
        let noise = Self.signal(seconds: 2, noise: 1_000, tone: 0, seed: 1)
        let toneAndNoise = Self.signal(seconds: 1, noise: 1_000, tone: 8_000, seed: 2)
        // Odd chunk sizes, as audio arrives: whole 20 ms frames come out, the rest waits.
        var out: [Int16] = []
        var i = 0
        let input = noise + toneAndNoise
        while i < input.count {
            let n = min(777, input.count - i)
            out += suppressor.process(input[i..<(i + n)])
            i += n
        }
        out += suppressor.flush()
        #expect(out.count == input.count)
        // After the estimator has settled (first second), noise alone comes out at least 6 dB weaker…
        let noiseIn = Self.rms(input[16_000..<32_000]), noiseOut = Self.rms(out[16_000..<32_000])
        #expect(20 * log10(noiseOut / noiseIn) < -6, "noise \(noiseIn) → \(noiseOut)")
        // …and the tone keeps most of its level (within 3 dB).
        let toneIn = Self.rms(input[36_000..<48_000]), toneOut = Self.rms(out[36_000..<48_000])
        #expect(abs(20 * log10(toneOut / toneIn)) < 3, "tone \(toneIn) → \(toneOut)")
    }

    @Test func aPartialFrameComesOutOnFlush() {
        let suppressor = NoiseSuppressor()
        let input = Self.signal(seconds: 0.01, noise: 100, tone: 0, seed: 3)   // 160 samples, half a frame
        #expect(suppressor.process(input[...]).isEmpty)
        #expect(suppressor.flush().count == 160)
        #expect(suppressor.flush().isEmpty)
    }

    @Test func decoderOptionsGivenTwiceKeepTheirLastValue() {
        #expect(PocketSphinxDecoder.mergedOptions(["-beam", "1e-60", "-wbeam", "1e-40", "-beam", "1e-50"])
                == ["-beam", "1e-50", "-wbeam", "1e-40"])
    }
}
