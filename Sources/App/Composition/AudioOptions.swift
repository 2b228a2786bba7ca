import Audio
import Foundation

/// How a command makes its sound: print only, live through PulseAudio, or rendered into a WAV file.
struct AudioOptions {
    var quiet: Bool
    var wav: String?
    var sink: String?
    var hrtf: String?
    var paths: ProjectPaths
    var voice = VoiceSettings()
    var levels = AudioLevels()

    struct Made {
        var output: any ReplyOutput
        var engine: AudioEngine?
    }

    /// Builds the reply output. When speech or the HRTF cannot start, it says why and falls back to print.
    /// With no sound server, a one-shot command prints only; the assistant keeps the engine, which connects
    /// when a server appears.
    func makeOutput(oneShot: Bool) throws -> Made {
        if quiet && wav == nil { return Made(output: PrintedReplyOutput(), engine: nil) }
        let synthesizer: EspeakSynthesizer
        do { synthesizer = try EspeakSynthesizer() } catch {
            printReply("Problem: speech is not available (\(error)); replies are printed only.")
            return Made(output: PrintedReplyOutput(), engine: nil)
        }
        var serverMissing = false
        if wav == nil {
            do { _ = try PulseSimpleStream(direction: .playback, sampleRate: 48_000, channels: 2, device: sink, streamName: "probe") } catch {
                serverMissing = true
                printReply("Problem: no sound server (\(error)); replies are printed only\(oneShot ? "" : " until one is there").")
                if oneShot { return Made(output: PrintedReplyOutput(), engine: nil) }
            }
        }
        let output: AudioEngine.Output = wav != nil ? .offline : .pulseAudio(PulseOutput.Options(sink: sink))
        let configuration = AudioEngine.Configuration(output: output, sofaPath: hrtf ?? SOFAHRTF.debianDefaultPath,
                                                      soundsDirectory: paths.sounds.path, voice: voice, levels: levels)
        do {
            let engine = try AudioEngine(configuration: configuration, synthesizer: synthesizer)
            return Made(output: EngineReplyOutput(engine: engine, checksConnection: wav == nil, soundServerMissing: serverMissing),
                        engine: engine)
        } catch {
            if wav != nil { throw error }
            printReply("Problem: the audio engine did not start (\(error)); replies are printed only.")
            return Made(output: PrintedReplyOutput(), engine: nil)
        }
    }
}
