import Audio
import Foundation
import Testing

@Suite("PulseAudio null sink and monitor", .serialized)
struct PulseAudioSmokeTests {
    /// A 48 kHz stereo tone: 1 kHz in the left channel only.
    static func leftTone(seconds: Double) -> [Float] {
        let frames = Int(48_000 * seconds)
        var out = [Float](repeating: 0, count: frames * 2)
        for i in 0..<frames { out[2 * i] = 0.5 * sinf(2 * .pi * 1000 * Float(i) / 48_000) }
        return out
    }

    @Test func aBufferPlayedIntoTheNullSinkComesBackFromItsMonitor() async throws {
        try TestServices.require()
        let recorder = try PulseSimpleStream(direction: .record, sampleRate: 48_000, channels: 2,
                                             device: "\(TestServices.sink).monitor", streamName: "smoke test recorder")
        // Record on a thread while this task plays.
        let recorded = Task.detached { try recorder.read(frames: 48_000 * 2) }
        try await Task.sleep(for: .milliseconds(100))
        let player = try PulseSimpleStream(direction: .playback, sampleRate: 48_000, channels: 2,
                                           device: TestServices.sink, streamName: "smoke test tone")
        try player.write(Self.leftTone(seconds: 1.0))
        try player.write([Float](repeating: 0, count: 48_000))   // flush the tone out with silence
        let capture = PCMBuffer(sampleRate: 48_000, channels: 2, samples: try await recorded.value)
        let left = capture.channel(0), right = capture.channel(1)
        let leftRMS = PCMBuffer(sampleRate: 48_000, channels: 1, samples: left).rms()
        let rightRMS = PCMBuffer(sampleRate: 48_000, channels: 1, samples: right).rms()
        #expect(leftRMS > 0.1, "left channel RMS \(leftRMS): the tone did not come back")
        #expect(rightRMS < 0.01, "right channel RMS \(rightRMS): the tone leaked into the wrong channel")
        // Frequency from the zero crossings of the longest unbroken loud stretch: 1 kHz gives about 2,000
        // crossings a second. (On a loaded machine the recording thread can miss a block now and then; a
        // gap inside the stretch measured would count as a slower tone.)
        let loud = left.enumerated().filter { abs($0.element) > 0.05 }.map(\.offset)
        var stretches: [ClosedRange<Int>] = []
        for i in loud {
            if let last = stretches.last, i - last.upperBound <= 48 { stretches[stretches.count - 1] = last.lowerBound...i }
            else { stretches.append(i...i) }
        }
        if let longest = stretches.max(by: { $0.count < $1.count }), longest.count > 4_800 {
            let (first, last) = (longest.lowerBound, longest.upperBound)
            let part = left[first...last]
            let crossings = zip(part, part.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
            let hz = Double(crossings) / 2 / (Double(last - first) / 48_000)
            #expect(abs(hz - 1000) < 20, "measured \(hz) Hz")
        } else {
            Issue.record("less than 0.1 s of the tone came back")
        }
        let latency = try player.latency()
        #expect(latency >= 0 && latency < 0.5)
    }

    @Test func aMissingSinkIsReportedByName() throws {
        try TestServices.require()
        do {
            _ = try PulseSimpleStream(direction: .playback, sampleRate: 48_000, channels: 2, device: "no_such_sink")
            Issue.record("opening a missing sink must fail")
        } catch let error as PulseAudioError {
            #expect(error.description.contains("playback"))
        }
    }
}
