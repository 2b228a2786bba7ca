import Audio
import Foundation
import Logging

/// Where the assistant's words go. Every reply is printed; it is also spoken when a sound server is there.
public protocol ReplyOutput: Sendable {
    /// Prints and speaks `text`, returning when it has been spoken (or printed only).
    func say(_ text: String) async
    /// Prints and speaks a problem; problems are never only logged.
    func problem(_ text: String) async
}

/// Prints to standard output and speaks through espeak-ng into PulseAudio.
///
/// When the sound server is missing or goes away it says so once, in print, and carries on printing;
/// it tries the sound server again at the next reply.
public actor SpokenReplyOutput: ReplyOutput {
    private let synthesizer: EspeakSynthesizer
    private let voice: VoiceSettings
    private let sink: String?
    private var stream: PulseSimpleStream?
    private var reportedSilence = false
    private let printLine: @Sendable (String) -> Void
    private let logger = Logger(label: "soundscape.output")

    public init(synthesizer: EspeakSynthesizer, voice: VoiceSettings = VoiceSettings(), sink: String? = nil,
                printLine: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.synthesizer = synthesizer
        self.voice = voice
        self.sink = sink
        self.printLine = printLine
    }

    public func say(_ text: String) async {
        printLine(text)
        speak(text)
    }

    public func problem(_ text: String) async {
        printLine("Problem: \(text)")
        speak(text)
    }

    private func speak(_ text: String) {
        do {
            let stream = try openStream()
            var failure: (any Error)?
            try synthesizer.synthesize(SSML.document(SSML.escape(text)), voice: voice, ssml: true) { chunk in
                do { try stream.write(chunk.map { Float($0) / 32768 }) } catch { failure = error; return false }
                return true
            }
            if let failure { throw failure }
            try stream.drain()
            reportedSilence = false
        } catch {
            stream = nil
            if !reportedSilence {
                reportedSilence = true
                printLine("Problem: cannot speak (\(error)); replies are printed only until the sound server is back.")
            }
            logger.debug("speech output failed: \(error)")
        }
    }

    private func openStream() throws -> PulseSimpleStream {
        if let stream { return stream }
        let s = try PulseSimpleStream(direction: .playback, sampleRate: synthesizer.sampleRate, channels: 1, device: sink,
                                      streamName: "Soundscape speech", latency: 0.05)
        stream = s
        return s
    }
}

/// Prints only (no sound server, tests, `--quiet`).
public struct PrintedReplyOutput: ReplyOutput {
    let printLine: @Sendable (String) -> Void
    public init(printLine: @escaping @Sendable (String) -> Void = { print($0) }) { self.printLine = printLine }
    public func say(_ text: String) async { printLine(text) }
    public func problem(_ text: String) async { printLine("Problem: \(text)") }
}
