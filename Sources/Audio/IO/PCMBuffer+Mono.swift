extension PCMBuffer {
    /// The channels averaged into one and converted to `rate`, as 16-bit samples: what a recognizer takes in.
    public func monoInt16Samples(at rate: Int) -> [Int16] {
        var mono = self
        if channels > 1 {
            var mixed = [Float](repeating: 0, count: frameCount)
            for i in 0..<frameCount {
                var s: Float = 0
                for c in 0..<channels { s += samples[i * channels + c] }
                mixed[i] = s / Float(channels)
            }
            mono = PCMBuffer(sampleRate: sampleRate, channels: 1, samples: mixed)
        }
        if mono.sampleRate != rate { mono = Resampler(from: mono.sampleRate, to: rate).process(mono) }
        return mono.int16Samples
    }
}
