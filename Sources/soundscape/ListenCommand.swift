import App
import ArgumentParser
import Audio
import Foundation
import Speech

struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Recognize a spoken command from a WAV file with the same recognizer as live input.")

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "WAV file (16-bit PCM or float, any rate; stereo is mixed down).")
    var file: String

    @Option(help: "JSGF grammar to use instead of Grammars/commands.gram.")
    var grammar: String?

    @Flag(help: "Print one JSON object instead of the words.")
    var json = false

    func run() async throws {
        global.bootstrapLogging()
        let audio = try WAVFile.read(file)
        let samples = Self.speechInput(audio)
        let recognizer = try CommandRecognizer(paths: ProjectPaths.locate(), grammarPath: grammar)
        let hypothesis = try recognizer.recognize(samples)
        if json {
            struct Output: Encodable { var text: String; var score: Int32; var frames: Int; var rejected: Bool }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let out = Output(text: hypothesis.text, score: hypothesis.score, frames: hypothesis.frames, rejected: hypothesis.text.isEmpty)
            print(String(decoding: try encoder.encode(out), as: UTF8.self))
        } else {
            print(hypothesis.text.isEmpty ? "(nothing recognized)" : hypothesis.text)
        }
    }

    /// Mixes down to mono and converts to the recognizer's 16 kHz, 16-bit input.
    static func speechInput(_ audio: PCMBuffer) -> [Int16] {
        var mono = audio
        if audio.channels > 1 {
            var mixed = [Float](repeating: 0, count: audio.frameCount)
            for i in 0..<audio.frameCount {
                var s: Float = 0
                for c in 0..<audio.channels { s += audio.samples[i * audio.channels + c] }
                mixed[i] = s / Float(audio.channels)
            }
            mono = PCMBuffer(sampleRate: audio.sampleRate, channels: 1, samples: mixed)
        }
        if mono.sampleRate != PocketSphinxDecoder.sampleRate {
            mono = Resampler(from: mono.sampleRate, to: PocketSphinxDecoder.sampleRate).process(mono)
        }
        return mono.int16Samples
    }
}
