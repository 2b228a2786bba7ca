/// Interleaved floating-point audio in memory, samples in −1…1.
public struct PCMBuffer: Sendable, Equatable {
    public var sampleRate: Int
    public var channels: Int
    /// Interleaved samples: frame 0 channel 0, frame 0 channel 1, …
    public var samples: [Float]

    public init(sampleRate: Int, channels: Int, samples: [Float] = []) {
        precondition(channels > 0, "a PCM buffer needs at least one channel")
        self.sampleRate = sampleRate
        self.channels = channels
        self.samples = samples
    }

    /// Mono buffer from signed 16-bit samples.
    public init(sampleRate: Int, int16 mono: [Int16]) {
        self.init(sampleRate: sampleRate, channels: 1, samples: mono.map { Float($0) / 32768 })
    }

    public var frameCount: Int { samples.count / channels }
    public var duration: Double { Double(frameCount) / Double(sampleRate) }

    /// The samples of one channel.
    public func channel(_ c: Int) -> [Float] {
        precondition(c >= 0 && c < channels)
        return stride(from: c, to: samples.count, by: channels).map { samples[$0] }
    }

    /// Samples as signed 16-bit, clipped.
    public var int16Samples: [Int16] {
        samples.map { Int16(clamping: Int(($0 * 32767).rounded())) }
    }

    /// Root-mean-square level of one channel (or of all channels when `channel` is nil).
    public func rms(channel c: Int? = nil) -> Float {
        let values = c.map { channel($0) } ?? samples
        guard !values.isEmpty else { return 0 }
        var sum: Double = 0
        for v in values { sum += Double(v) * Double(v) }
        return Float((sum / Double(values.count)).squareRoot())
    }
}
