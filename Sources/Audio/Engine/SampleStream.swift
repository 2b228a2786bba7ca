import Synchronization

/// 48 kHz audio that a producer (speech synthesis, a WAV decoder) appends while the render thread
/// reads it: a fixed table of fixed-size chunks, published with an atomic frame count.
///
/// The producer allocates chunks (off the render thread); the reader only follows pointers that were
/// published before the count it read, so it never waits, locks or allocates. A stream holds at most
/// `maxFrames` frames (about 5.8 minutes); anything beyond is dropped.
public final class SampleStream: @unchecked Sendable {
    public let channels: Int
    static let chunkFrames = 8_192
    static let maxChunks = 2_048
    public static var maxFrames: Int { chunkFrames * maxChunks }

    private let table: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    private let published = Atomic<Int>(0)
    private let done = Atomic<Bool>(false)
    private let cancelFlag = Atomic<Bool>(false)
    /// Producer-side count (only the producer touches it).
    private var producerFrames = 0
    /// Time (monotonic ns) when the first frame was published; 0 before.
    let firstPublishNanos = Atomic<UInt64>(0)

    public init(channels: Int) {
        precondition(channels == 1 || channels == 2)
        self.channels = channels
        table = .allocate(capacity: Self.maxChunks)
        table.initialize(repeating: nil, count: Self.maxChunks)
    }

    deinit {
        for i in 0..<Self.maxChunks { table[i]?.deallocate() }
        table.deallocate()
    }

    /// A complete stream holding `buffer` (converted to `channels`; must already be at 48 kHz).
    convenience init(channels: Int, samples: [Float], sourceChannels: Int) {
        self.init(channels: channels)
        samples.withUnsafeBufferPointer { append(interleaved: $0, sourceChannels: sourceChannels) }
        finish()
    }

    // MARK: producer side

    /// Appends interleaved frames with `sourceChannels` channels, converting mono ↔ stereo as needed.
    public func append(interleaved samples: UnsafeBufferPointer<Float>, sourceChannels: Int) {
        let frames = samples.count / sourceChannels
        var i = 0
        while i < frames {
            let chunk = producerFrames / Self.chunkFrames
            guard chunk < Self.maxChunks else { return }
            let within = producerFrames % Self.chunkFrames
            if table[chunk] == nil {
                let p = UnsafeMutablePointer<Float>.allocate(capacity: Self.chunkFrames * channels)
                table[chunk] = p
            }
            let dst = table[chunk]! + within * channels
            let run = min(frames - i, Self.chunkFrames - within)
            switch (sourceChannels, channels) {
            case (1, 1): dst.update(from: samples.baseAddress! + i, count: run)
            case (2, 2): dst.update(from: samples.baseAddress! + 2 * i, count: 2 * run)
            case (1, 2):
                for k in 0..<run { let v = samples[i + k]; dst[2 * k] = v; dst[2 * k + 1] = v }
            default:
                for k in 0..<run { dst[k] = 0.5 * (samples[2 * (i + k)] + samples[2 * (i + k) + 1]) }
            }
            i += run
            producerFrames += run
            if published.load(ordering: .relaxed) == 0 { firstPublishNanos.store(monotonicNanos(), ordering: .relaxed) }
            published.store(producerFrames, ordering: .releasing)
        }
    }

    public func append(_ samples: [Float], sourceChannels: Int) {
        samples.withUnsafeBufferPointer { append(interleaved: $0, sourceChannels: sourceChannels) }
    }

    /// No more frames will come.
    public func finish() { done.store(true, ordering: .releasing) }

    /// Set when the sound was stopped; producers should give up.
    public var isCancelled: Bool { cancelFlag.load(ordering: .relaxed) }
    func cancel() { cancelFlag.store(true, ordering: .relaxed) }

    // MARK: reader side (render thread)

    /// Frames available now.
    public var availableFrames: Int { published.load(ordering: .acquiring) }
    public var isFinished: Bool { done.load(ordering: .acquiring) }

    /// Copies up to `count` frames starting at `frame` into `destination` (interleaved, `channels`);
    /// returns the number copied.
    func read(from frame: Int, count: Int, into destination: UnsafeMutablePointer<Float>) -> Int {
        let available = published.load(ordering: .acquiring)
        let n = max(0, min(count, available - frame))
        var copied = 0
        while copied < n {
            let f = frame + copied
            let chunk = f / Self.chunkFrames
            let within = f % Self.chunkFrames
            let run = min(n - copied, Self.chunkFrames - within)
            (destination + copied * channels).update(from: table[chunk]! + within * channels, count: run * channels)
            copied += run
        }
        return n
    }

    /// All frames as an array (tests and offline use; not for the render thread).
    public func snapshot() -> [Float] {
        let n = availableFrames
        var out = [Float](repeating: 0, count: n * channels)
        out.withUnsafeMutableBufferPointer { _ = read(from: 0, count: n, into: $0.baseAddress!) }
        return out
    }
}
