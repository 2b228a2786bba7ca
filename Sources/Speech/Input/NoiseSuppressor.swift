import CSpeexDSP

/// Street-noise suppression in front of the recognizer: speexdsp's preprocessor (a spectral noise
/// estimator with a gain per frequency band) over 20 ms frames of 16 kHz audio. Its noise estimate adapts
/// continuously, so one suppressor lives as long as its input stream, like the decoder. Chunks of any length
/// go in; whole frames come out (the rest waits for the next chunk or ``flush()``).
/// Not thread-safe: one stream, one thread or task at a time.
public final class NoiseSuppressor {
    public static let frameSize = 320
    /// Maximum attenuation of the noise, in dB (negative).
    public let suppression: Int32
    private let state: OpaquePointer
    private var pending: [Int16] = []
    /// RMS of a faint noise floor added after suppression (sample units; 0 for none): a suppressor can leave
    /// near-digital silence between words, on which PocketSphinx's models misbehave.
    public let floor: Double
    private var random: UInt64 = 0x9E37_79B9_7F4A_7C15

    public init(sampleRate: Int32 = 16_000, suppression: Int32 = -15, floor: Double = 0) {
        self.suppression = suppression
        self.floor = floor
        state = speex_preprocess_state_init(Int32(Self.frameSize), sampleRate)
        var on: Int32 = 1
        speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_DENOISE, &on)
        var off: Int32 = 0
        speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC, &off)
        speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_DEREVERB, &off)
        var level = suppression
        speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &level)
        pending.reserveCapacity(Self.frameSize * 4)
    }

    deinit { speex_preprocess_state_destroy(state) }

    /// Suppresses noise in `chunk`; returns the whole frames ready so far.
    public func process(_ chunk: ArraySlice<Int16>) -> [Int16] {
        pending.append(contentsOf: chunk)
        let whole = pending.count / Self.frameSize * Self.frameSize
        guard whole > 0 else { return [] }
        pending.withUnsafeMutableBufferPointer { buffer in
            var start = 0
            while start < whole {
                _ = speex_preprocess_run(state, buffer.baseAddress! + start)
                if floor > 0 {
                    for i in start..<(start + Self.frameSize) {
                        buffer[i] = Int16(clamping: Int(buffer[i]) + Int((nextUniform() + nextUniform() + nextUniform() - 1.5) * 2 * floor))
                    }
                }
                start += Self.frameSize
            }
        }
        let out = Array(pending[..<whole])
        pending.removeFirst(whole)
        return out
    }

    /// xorshift64: a repeatable noise floor without a shared generator.
    private func nextUniform() -> Double {
        random ^= random << 13
        random ^= random >> 7
        random ^= random << 17
        return Double(random >> 11) / Double(1 << 53)
    }

    /// The last partial frame, completed with silence and suppressed (at the end of an utterance).
    public func flush() -> [Int16] {
        guard !pending.isEmpty else { return [] }
        let count = pending.count
        pending += [Int16](repeating: 0, count: Self.frameSize - count)
        let out = process([])
        return Array(out.prefix(count))
    }
}
