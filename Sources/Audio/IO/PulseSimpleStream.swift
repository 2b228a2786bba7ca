import CPulseAudio
import Foundation

/// A PulseAudio error with the server's own words and what we were doing.
public struct PulseAudioError: Error, CustomStringConvertible, Equatable {
    public var operation: String
    public var message: String
    public var description: String { "PulseAudio: \(operation) failed: \(message)" }

    init(_ operation: String, code: Int32) {
        self.operation = operation
        self.message = String(cString: pa_strerror(code))
    }
}

/// A blocking PulseAudio stream (the "simple" API) for playback or recording of 32-bit float samples.
///
/// Used for short, whole-buffer jobs: smoke tests, `doctor`, recording a push-to-talk utterance.
/// The real-time mixer uses its own render loop.
public final class PulseSimpleStream {
    public enum Direction: Sendable { case playback, record }

    public let sampleRate: Int
    public let channels: Int
    private let handle: OpaquePointer

    /// - Parameters:
    ///   - device: sink (playback) or source (record) name; nil for the server's default.
    ///   - server: server address; nil for the default (`PULSE_SERVER` or the user's runtime dir).
    ///   - latency: target buffer length for playback, or fragment size for recording.
    public init(direction: Direction, sampleRate: Int, channels: Int, device: String? = nil, server: String? = nil,
                applicationName: String = "Soundscape", streamName: String = "Soundscape", latency: Double = 0.02) throws {
        self.sampleRate = sampleRate
        self.channels = channels
        var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(sampleRate), channels: UInt8(channels))
        let bytes = UInt32(Double(sampleRate * channels * 4) * latency)
        var attr = pa_buffer_attr(maxlength: UInt32.max, tlength: direction == .playback ? bytes : UInt32.max,
                                  prebuf: UInt32.max, minreq: UInt32.max, fragsize: direction == .record ? bytes : UInt32.max)
        var error: Int32 = 0
        let dir = direction == .playback ? PA_STREAM_PLAYBACK : PA_STREAM_RECORD
        guard let h = pa_simple_new(server, applicationName, dir, device, streamName, &spec, nil, &attr, &error) else {
            throw PulseAudioError(direction == .playback ? "opening a playback stream" : "opening a recording stream", code: error)
        }
        handle = h
    }

    deinit { pa_simple_free(handle) }

    /// Plays interleaved samples; blocks until the server has taken them.
    public func write(_ samples: [Float]) throws {
        var error: Int32 = 0
        let rc = samples.withUnsafeBytes { pa_simple_write(handle, $0.baseAddress, $0.count, &error) }
        if rc < 0 { throw PulseAudioError("writing audio", code: error) }
    }

    /// Blocks until everything written has been played.
    public func drain() throws {
        var error: Int32 = 0
        if pa_simple_drain(handle, &error) < 0 { throw PulseAudioError("draining", code: error) }
    }

    /// Records `frames` frames of interleaved samples (blocking).
    public func read(frames: Int) throws -> [Float] {
        var out = [Float](repeating: 0, count: frames * channels)
        var error: Int32 = 0
        let rc = out.withUnsafeMutableBytes { pa_simple_read(handle, $0.baseAddress, $0.count, &error) }
        if rc < 0 { throw PulseAudioError("recording audio", code: error) }
        return out
    }

    /// Playback latency the server reports now, in seconds.
    public func latency() throws -> Double {
        var error: Int32 = 0
        let usec = pa_simple_get_latency(handle, &error)
        if usec == UInt64.max { throw PulseAudioError("asking the latency", code: error) }
        return Double(usec) / 1_000_000
    }
}
