import Foundation

/// Band-limited sample-rate conversion by windowed-sinc interpolation (Blackman window, 16 zero crossings
/// each side), precomputed as a polyphase table for the rational ratio `to / from`.
///
/// Quality is ample for speech and earcons (stop-band well below −70 dB); it is used offline and when a
/// sound is prepared, never on the render thread.
public struct Resampler: Sendable {
    public let inputRate: Int
    public let outputRate: Int
    private let up: Int
    private let down: Int
    private let halfTaps: Int
    /// taps[phase * width + k]
    private let taps: [Float]

    public init(from inputRate: Int, to outputRate: Int, zeroCrossings: Int = 16) {
        precondition(inputRate > 0 && outputRate > 0)
        self.inputRate = inputRate
        self.outputRate = outputRate
        let g = Self.gcd(inputRate, outputRate)
        up = outputRate / g
        down = inputRate / g
        // Cut off just below the lower Nyquist frequency, in units of the input rate.
        let cutoff = 0.97 * min(1.0, Double(outputRate) / Double(inputRate))
        halfTaps = Int((Double(zeroCrossings) / cutoff).rounded(.up))
        let width = 2 * halfTaps
        var table = [Float](repeating: 0, count: up * width)
        for phase in 0..<up {
            let frac = Double(phase) / Double(up)
            var sum = 0.0
            for k in 0..<width {
                let x = Double(k - halfTaps + 1) - frac          // distance from the output instant, in input samples
                let t = x / Double(halfTaps)
                let window = abs(t) >= 1 ? 0 : 0.42 + 0.5 * cos(.pi * t) + 0.08 * cos(2 * .pi * t)
                let arg = .pi * cutoff * x
                let sinc = abs(arg) < 1e-12 ? 1 : sin(arg) / arg
                let v = cutoff * sinc * window
                table[phase * width + k] = Float(v)
                sum += v
            }
            // Normalize each phase to unity gain at DC.
            for k in 0..<width { table[phase * width + k] = Float(Double(table[phase * width + k]) / sum) }
        }
        taps = table
    }

    /// Converts one channel of samples.
    public func process(_ input: [Float]) -> [Float] {
        if up == down { return input }
        let outputCount = Int((Double(input.count) * Double(up) / Double(down)).rounded(.down))
        var output = [Float](repeating: 0, count: outputCount)
        let width = 2 * halfTaps
        input.withUnsafeBufferPointer { src in
            taps.withUnsafeBufferPointer { table in
                for n in 0..<outputCount {
                    let position = n * down            // in units of 1/up input samples
                    let base = position / up
                    let phase = position % up
                    var acc: Float = 0
                    let start = base - halfTaps + 1
                    let row = phase * width
                    if start >= 0 && start + width <= src.count {
                        for k in 0..<width { acc += src[start + k] * table[row + k] }
                    } else {
                        for k in 0..<width {
                            let i = start + k
                            if i >= 0 && i < src.count { acc += src[i] * table[row + k] }
                        }
                    }
                    output[n] = acc
                }
            }
        }
        return output
    }

    /// Converts an interleaved buffer to `outputRate`.
    public func process(_ buffer: PCMBuffer) -> PCMBuffer {
        precondition(buffer.sampleRate == inputRate)
        if buffer.channels == 1 { return PCMBuffer(sampleRate: outputRate, channels: 1, samples: process(buffer.samples)) }
        let channels = (0..<buffer.channels).map { process(buffer.channel($0)) }
        let frames = channels[0].count
        var interleaved = [Float](repeating: 0, count: frames * buffer.channels)
        for (c, samples) in channels.enumerated() { for i in 0..<frames { interleaved[i * buffer.channels + c] = samples[i] } }
        return PCMBuffer(sampleRate: outputRate, channels: buffer.channels, samples: interleaved)
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
