import CSpeexDSP
import Foundation

/// RNNoise (xiph.org's recurrent-network noise suppressor) in front of the recognizer, before speexdsp's
/// spectral one (``NoiseSuppressor``). RNNoise works on 10 ms frames at 48 kHz: the 16 kHz microphone audio is
/// resampled up (speexdsp's resampler), cleaned, and resampled back. Its network keeps state between frames
/// (what the street has sounded like), so one suppressor lives as long as its input stream, like the decoders.
///
/// The library is loaded at run time (`dlopen`) from the file `scripts/setup` fetches, so that the program
/// builds and runs without it (then only the spectral suppressor cleans the audio). In `make bench` the grammar
/// decoder heard far more of the commands in loud street noise right with it, and about as many in quiet
/// (docs/measurements.md).
///
/// The output is the input delayed by two RNNoise frames (20 ms); ``flush()`` pushes the rest out with silence
/// so that exactly as many samples come out as went in. Not thread-safe: one stream, one thread or task at a time.
public final class NeuralNoiseSuppressor {
    /// The RNNoise shared library and its four functions.
    public final class Library: @unchecked Sendable {   // immutable after init; the functions are reentrant
        public let path: String
        fileprivate let handle: UnsafeMutableRawPointer
        fileprivate let create: @convention(c) (OpaquePointer?) -> OpaquePointer?
        fileprivate let destroy: @convention(c) (OpaquePointer?) -> Void
        fileprivate let processFrame: @convention(c) (OpaquePointer?, UnsafeMutablePointer<Float>?, UnsafePointer<Float>?) -> Float
        public let frameSize: Int

        /// Loads the library; the error names the file and what is wrong with it.
        public init(path: String) throws {
            guard FileManager.default.fileExists(atPath: path) else {
                throw RecognitionError(message: "the RNNoise library \(path) does not exist (scripts/setup fetches it on x86-64 and 64-bit ARM)")
            }
            guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
                throw RecognitionError(message: "the RNNoise library \(path) cannot be loaded: \(dlerror().map { String(cString: $0) } ?? "unknown error")")
            }
            func symbol<T>(_ name: String, as type: T.Type) throws -> T {
                guard let pointer = dlsym(handle, name) else {
                    dlclose(handle)
                    throw RecognitionError(message: "the RNNoise library \(path) has no function \(name)")
                }
                return unsafeBitCast(pointer, to: type)
            }
            self.path = path
            create = try symbol("rnnoise_create", as: (@convention(c) (OpaquePointer?) -> OpaquePointer?).self)
            destroy = try symbol("rnnoise_destroy", as: (@convention(c) (OpaquePointer?) -> Void).self)
            processFrame = try symbol("rnnoise_process_frame",
                                      as: (@convention(c) (OpaquePointer?, UnsafeMutablePointer<Float>?, UnsafePointer<Float>?) -> Float).self)
            let frameSizeFunction = try symbol("rnnoise_get_frame_size", as: (@convention(c) () -> Int32).self)
            frameSize = Int(frameSizeFunction())
            guard frameSize == 480 else {
                dlclose(handle)
                throw RecognitionError(message: "the RNNoise library \(path) works on frames of \(frameSize) samples, not 480 (10 ms at 48 kHz)")
            }
            self.handle = handle
        }

        deinit { dlclose(handle) }
    }

    public let library: Library

    /// RNNoise alone silences what it takes for noise, and on one clean voice that was speech: with it, espeak-ng's
    /// fast female US voice (`make bench`, voice 1, 118 commands in quiet) had 91 right instead of 112. With 15 % of
    /// the input mixed back (at most 16.5 dB of suppression; speexdsp's suppressor follows) it had 112 again, and
    /// in 5 dB street noise 111 (RNNoise alone 112, none 90). With a third mixed back: 111 in quiet, 107 at 5 dB.
    public static let defaultKept: Float = 0.15
    private let state: OpaquePointer
    private let up: OpaquePointer
    private let down: OpaquePointer
    /// How much of the input is mixed back into RNNoise's output (0 for none).
    public let kept: Float
    /// 48 kHz samples waiting for a whole frame.
    private var pending48: [Float] = []
    private var frameOut: [Float]
    /// The last two input frames (48 kHz), for mixing back.
    private var history: [Float]
    /// Samples (16 kHz) in and out since the last flush.
    private var inCount = 0
    private var outCount = 0

    /// - Parameter kept: how much of the input to mix back (see ``defaultKept``).
    public init(library: Library, kept: Float = NeuralNoiseSuppressor.defaultKept) throws {
        self.library = library
        self.kept = kept
        history = [Float](repeating: 0, count: 2 * library.frameSize)
        guard let state = library.create(nil) else { throw RecognitionError(message: "RNNoise could not start (\(library.path))") }
        var error: Int32 = 0
        // Quality 3 of 10: the speech band stays well below the 8 kHz edge; higher qualities only cost time.
        guard let up = speex_resampler_init(1, 16_000, 48_000, 3, &error),
              let down = speex_resampler_init(1, 48_000, 16_000, 3, &error) else {
            library.destroy(state)
            throw RecognitionError(message: "the resampler around RNNoise could not start (speexdsp error \(error))")
        }
        self.state = state
        self.up = up
        self.down = down
        frameOut = [Float](repeating: 0, count: library.frameSize)
        pending48.reserveCapacity(library.frameSize * 8)
        speex_resampler_skip_zeros(up)
        speex_resampler_skip_zeros(down)
    }

    deinit {
        library.destroy(state)
        speex_resampler_destroy(up)
        speex_resampler_destroy(down)
    }

    /// Cleans `chunk` (16 kHz); returns what is ready so far.
    public func process(_ chunk: ArraySlice<Int16>) -> [Int16] {
        inCount += chunk.count
        return run(chunk.map(Float.init))
    }

    /// All of `samples`, fed in chunks of `chunk` samples as a microphone delivers them, then flushed.
    public func cleanAll(_ samples: [Int16], chunk: Int = 320) -> [Int16] {
        var out: [Int16] = []
        var i = 0
        while i < samples.count {
            out += process(samples[i..<min(i + chunk, samples.count)])
            i += chunk
        }
        return out + flush()
    }

    /// The rest of the utterance: the last partial frame completed with silence and cleaned, and the output
    /// made as long as the input was. The resamplers start afresh for the next utterance; the network keeps
    /// what it has learnt of the noise.
    public func flush() -> [Int16] {
        guard inCount > outCount else { return [] }
        // Silence enough to complete the frame that is waiting and to push out the two RNNoise holds back.
        let frame16 = library.frameSize / 3
        let missing = inCount - outCount
        var out = run([Float](repeating: 0, count: frame16 * 3))
        if out.count < missing { out += [Int16](repeating: 0, count: missing - out.count) }
        out.removeLast(out.count - missing)
        pending48.removeAll(keepingCapacity: true)
        speex_resampler_reset_mem(up)
        speex_resampler_reset_mem(down)
        speex_resampler_skip_zeros(up)
        speex_resampler_skip_zeros(down)
        inCount = 0
        outCount = 0
        return out
    }

    private func run(_ input: [Float]) -> [Int16] {
        let upsampled = resample(up, input, ratio: 3)
        pending48 += upsampled
        let frameSize = library.frameSize
        var cleaned: [Float] = []
        cleaned.reserveCapacity(pending48.count)
        var start = 0
        while pending48.count - start >= frameSize {
            pending48.withUnsafeBufferPointer { input in
                frameOut.withUnsafeMutableBufferPointer { output in
                    _ = library.processFrame(state, output.baseAddress, input.baseAddress! + start)
                }
            }
            if kept > 0 {
                // Mixed with the input two frames back, which is what this output frame is (RNNoise's delay).
                for i in 0..<frameSize { frameOut[i] = (1 - kept) * frameOut[i] + kept * history[i] }
                history.removeFirst(frameSize)
                history += pending48[start..<(start + frameSize)]
            }
            cleaned += frameOut
            start += frameSize
        }
        pending48.removeFirst(start)
        let back = resample(down, cleaned, ratio: 1.0 / 3)
        outCount += back.count
        return back.map { $0.isFinite ? Int16(clamping: Int(max(-40_000, min(40_000, $0.rounded())))) : 0 }
    }

    /// Everything `input` gives through `resampler` (which consumes all of it, given room enough).
    private func resample(_ resampler: OpaquePointer, _ input: [Float], ratio: Double) -> [Float] {
        guard !input.isEmpty else { return [] }
        var output = [Float](repeating: 0, count: Int((Double(input.count) * ratio).rounded(.up)) + 64)
        var produced = 0
        var consumed = 0
        input.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                while consumed < src.count && produced < dst.count {
                    var inLength = UInt32(src.count - consumed)
                    var outLength = UInt32(dst.count - produced)
                    speex_resampler_process_float(resampler, 0, src.baseAddress! + consumed, &inLength,
                                                  dst.baseAddress! + produced, &outLength)
                    if inLength == 0 && outLength == 0 { break }
                    consumed += Int(inLength)
                    produced += Int(outLength)
                }
            }
        }
        output.removeLast(output.count - produced)
        return output
    }
}
