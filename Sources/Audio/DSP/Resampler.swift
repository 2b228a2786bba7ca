import CSpeexDSP
import Foundation

/// Sample-rate conversion of a whole buffer (speexdsp's resampler). Used offline and when a sound is
/// prepared, never on the render thread.
public struct Resampler: Sendable {
    public let inputRate: Int
    public let outputRate: Int

    public init(from inputRate: Int, to outputRate: Int) {
        precondition(inputRate > 0 && outputRate > 0, "sample rates must be positive, not \(inputRate) → \(outputRate)")
        self.inputRate = inputRate
        self.outputRate = outputRate
    }

    /// Converts one channel of samples.
    public func process(_ input: [Float]) -> [Float] {
        if inputRate == outputRate { return input }
        let resampler = StreamingResampler(from: inputRate, to: outputRate)
        return resampler.process(input) + resampler.finish()
    }

    /// Converts an interleaved buffer to `outputRate`.
    public func process(_ buffer: PCMBuffer) -> PCMBuffer {
        precondition(buffer.sampleRate == inputRate)
        if inputRate == outputRate { return buffer }
        let resampler = StreamingResampler(from: inputRate, to: outputRate, channels: buffer.channels)
        return PCMBuffer(sampleRate: outputRate, channels: buffer.channels,
                         samples: resampler.process(buffer.samples) + resampler.finish())
    }
}

/// Sample-rate conversion that takes its input piece by piece (speech that arrives while it is
/// synthesized), interleaved when there is more than one channel. The output lines up with the input
/// (speexdsp's filter delay is skipped) and, after ``finish()``, has `input frames × to / from` frames.
/// Not for the render thread: it allocates its output.
public final class StreamingResampler {
    public let inputRate: Int
    public let outputRate: Int
    public let channels: Int
    private let state: OpaquePointer
    private var framesIn = 0
    private var framesOut = 0

    /// speexdsp's quality 8 of 0…10: far more stop-band than speech and earcons need, at little cost.
    private static let quality: Int32 = 8

    public init(from inputRate: Int, to outputRate: Int, channels: Int = 1) {
        precondition(inputRate > 0 && outputRate > 0 && channels > 0,
                     "resampler needs positive rates and channels, not \(inputRate) → \(outputRate), \(channels)")
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channels = channels
        var error: Int32 = 0
        guard let state = speex_resampler_init(UInt32(channels), UInt32(inputRate), UInt32(outputRate), Self.quality, &error) else {
            preconditionFailure("speexdsp resampler \(inputRate) → \(outputRate): \(String(cString: speex_resampler_strerror(error)))")
        }
        speex_resampler_skip_zeros(state)
        self.state = state
    }

    deinit { speex_resampler_destroy(state) }

    /// Feeds interleaved input samples and returns every output sample that can now be computed.
    public func process(_ input: UnsafeBufferPointer<Float>) -> [Float] {
        framesIn += input.count / channels
        return convert(input)
    }

    public func process(_ input: [Float]) -> [Float] { input.withUnsafeBufferPointer { process($0) } }

    /// Flushes the filter with silence and returns the rest of the output.
    public func finish() -> [Float] {
        let total = Int(Int64(framesIn) * Int64(outputRate) / Int64(inputRate))
        let owed = total - framesOut
        guard owed > 0 else { return [] }
        let flush = [Float](repeating: 0, count: (2 * Int(speex_resampler_get_input_latency(state)) + 1) * channels)
        let out = flush.withUnsafeBufferPointer { convert($0) }
        return Array(out.prefix(owed * channels))
    }

    private func convert(_ input: UnsafeBufferPointer<Float>) -> [Float] {
        let inFrames = input.count / channels
        guard inFrames > 0, let source = input.baseAddress else { return [] }
        var capacity = inFrames * outputRate / inputRate + 16
        var out = [Float](repeating: 0, count: capacity * channels)
        var consumed = 0, produced = 0
        while consumed < inFrames {
            if produced == capacity {
                capacity *= 2
                out += [Float](repeating: 0, count: (capacity - produced) * channels)
            }
            var inLength = UInt32(inFrames - consumed)
            var outLength = UInt32(capacity - produced)
            out.withUnsafeMutableBufferPointer { o in
                _ = speex_resampler_process_interleaved_float(state, source + consumed * channels, &inLength,
                                                              o.baseAddress! + produced * channels, &outLength)
            }
            consumed += Int(inLength)
            produced += Int(outLength)
            if inLength == 0 && outLength == 0 { break }
        }
        out.removeLast(out.count - produced * channels)
        framesOut += produced
        return out
    }
}
