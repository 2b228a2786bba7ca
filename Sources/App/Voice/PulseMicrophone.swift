import Audio
import Foundation
import Speech

/// The microphone: a PulseAudio recording stream (default source or a chosen one) at 16 kHz mono,
/// with 20 ms fragments so a push-to-talk release is noticed quickly.
public final class PulseMicrophone: AudioCapture {
    private let stream: PulseSimpleStream

    /// - Parameter source: a PulseAudio source name (`pactl list short sources`); nil for the default.
    public init(source: String? = nil) throws {
        stream = try PulseSimpleStream(direction: .record, sampleRate: 16_000, channels: 1, device: source,
                                       streamName: "Soundscape voice commands", latency: 0.02)
    }

    public func read(frames: Int) throws -> [Int16] {
        try stream.read(frames: frames).map { Int16(max(-32768, min(32767, ($0 * 32767).rounded()))) }
    }
}
