@testable import Audio
import Foundation

/// Helpers shared by the audio engine's unit tests.
enum AudioTestSupport {
    /// A toy HRTF (a sphere-like head): the near ear hears the sound earlier (up to 0.3 ms) and louder.
    /// Lets mixer tests run without a SOFA file.
    static let bank: HRTFBank = {
        let count = 72
        let pairs = (0..<count).map { i -> HRIRPair in
            let az = Double(i) * 360 / Double(count) * .pi / 180
            let s = sin(az)
            func ir(delay: Double, gain: Double) -> [Float] {
                (0..<64).map { k in
                    let x = Double(k) - delay
                    return Float(gain * exp(-x * x / 2))   // a smooth click: a Gaussian bump
                }
            }
            return HRIRPair(left: ir(delay: 20 + 14 * s, gain: 1 - 0.6 * s), right: ir(delay: 20 - 14 * s, gain: 1 + 0.6 * s),
                            leftDelay: 0, rightDelay: 0)
        }
        return HRTFBank(pairs: pairs, sampleRate: 48_000, taps: 64, source: "toy sphere")
    }()

    static func sine(_ hz: Double, seconds: Double, amplitude: Float = 0.5, rate: Int = 48_000) -> [Float] {
        (0..<Int(Double(rate) * seconds)).map { amplitude * Float(sin(2 * .pi * hz * Double($0) / Double(rate))) }
    }

    static func tone(_ hz: Double, seconds: Double, amplitude: Float = 0.5) -> BufferSound {
        BufferSound(PCMBuffer(sampleRate: 48_000, channels: 1, samples: sine(hz, seconds: seconds, amplitude: amplitude)))
    }

    static func offlineEngine(bank: HRTFBank = AudioTestSupport.bank) throws -> AudioEngine {
        try AudioEngine(configuration: .init(output: .offline), synthesizer: nil, bank: bank)
    }

    static func rms(_ x: ArraySlice<Float>) -> Float {
        guard !x.isEmpty else { return 0 }
        return (x.reduce(0) { $0 + $1 * $1 } / Float(x.count)).squareRoot()
    }

    static func db(_ a: Float, _ b: Float) -> Float { 20 * log10(max(a, 1e-9) / max(b, 1e-9)) }

    /// Lag (in samples) that best aligns `right` onto `left`: positive when the left ear hears it later.
    static func lagOfLeftBehindRight(left: [Float], right: [Float], maxLag: Int) -> Int {
        var best = 0
        var bestValue = -Float.infinity
        for lag in -maxLag...maxLag {
            var s: Float = 0
            for i in maxLag..<(left.count - maxLag) { s += left[i] * right[i - lag] }
            if s > bestValue { bestValue = s; best = lag }
        }
        return best
    }
}
