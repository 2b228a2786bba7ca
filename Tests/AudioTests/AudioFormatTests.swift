import Audio
import Foundation
import Testing

@Suite struct AudioFormatTests {
    static func sine(_ hz: Double, rate: Int, seconds: Double, amplitude: Float = 0.5) -> [Float] {
        (0..<Int(Double(rate) * seconds)).map { amplitude * Float(sin(2 * .pi * hz * Double($0) / Double(rate))) }
    }

    static func zeroCrossingFrequency(_ x: ArraySlice<Float>, rate: Int) -> Double {
        let crossings = zip(x, x.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        return Double(crossings) / 2 / (Double(x.count) / Double(rate))
    }

    @Test func wavRoundTripsInt16AndFloat() throws {
        let buffer = PCMBuffer(sampleRate: 48_000, channels: 2, samples: [0, 0.5, -0.5, 0.25, 1, -1])
        let back16 = try WAVFile.decode(WAVFile.encode(buffer))
        #expect(back16.sampleRate == 48_000 && back16.channels == 2 && back16.frameCount == 3)
        for (a, b) in zip(back16.samples, buffer.samples) { #expect(abs(a - b) < 1.0 / 16_000) }
        let back32 = try WAVFile.decode(WAVFile.encode(buffer, encoding: .float32))
        #expect(back32.samples == buffer.samples)
    }

    @Test func notAWAVIsNamed() {
        #expect(throws: WAVError.notWAV(path: "x.wav")) { _ = try WAVFile.decode(Data("hello world!".utf8), path: "x.wav") }
    }

    @Test func resamplingKeepsFrequencyAndLevel() {
        let input = Self.sine(1000, rate: 22_050, seconds: 1)
        let output = Resampler(from: 22_050, to: 48_000).process(input)
        #expect(abs(output.count - 48_000) <= 1)
        let middle = output[4_800..<43_200]
        #expect(abs(Self.zeroCrossingFrequency(middle, rate: 48_000) - 1000) < 2)
        let peak = middle.map(abs).max() ?? 0
        #expect(abs(peak - 0.5) < 0.01, "peak \(peak)")
    }

    @Test func downsamplingRemovesWhatCannotBeRepresented() {
        // 12 kHz cannot exist at 16 kHz: it must be filtered out, not folded down to 4 kHz.
        let input = Self.sine(12_000, rate: 48_000, seconds: 0.5)
        let output = PCMBuffer(sampleRate: 16_000, channels: 1, samples: Array(Resampler(from: 48_000, to: 16_000).process(input).dropFirst(200).dropLast(200)))
        #expect(output.rms() < 0.005, "aliased energy \(output.rms())")
        let pass = PCMBuffer(sampleRate: 16_000, channels: 1, samples: Array(Resampler(from: 48_000, to: 16_000).process(Self.sine(1000, rate: 48_000, seconds: 0.5)).dropFirst(200).dropLast(200)))
        #expect(abs(pass.rms() - Float(0.5 / 2.0.squareRoot())) < 0.01)
    }
}
