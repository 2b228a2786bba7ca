import Audio
import Foundation

/// The audio engine's measured figures for `make bench`.
enum AudioBench {
    typealias Figure = (name: String, value: Double, unit: String, target: String)

    /// Runs every audio measurement. `pulse` is the server to measure the output latency against (the
    /// default server when nil options are given); without one that figure is skipped. `synthesizer` is
    /// the process's espeak-ng instance (one is created when nil and none exists).
    static func run(synthesizer: EspeakSynthesizer? = nil, pulse: PulseOutput.Options? = PulseOutput.Options(),
                           sofaPath: String = SOFAHRTF.debianDefaultPath) throws -> [Figure] {
        let bank = try HRTFBank(sofaPath: sofaPath)
        var figures: [Figure] = []
        let one = AudioProbes.mixerCPULoad(sources: 1, bank: bank)
        figures.append(("HRTF: CPU per source at 48 kHz (1 moving source)", one * 100, "% of a core", "<= 0.2"))
        let many = AudioProbes.mixerCPULoad(sources: 32, bank: bank)
        figures.append(("HRTF: CPU with 32 moving sources", many * 100, "% of a core", "<= 8"))
        if let pulse {
            if let m = try AudioProbes.motionToSound(bank: bank, options: pulse) {
                figures.append(("Motion-to-sound: heading update to first new block (median)", m.render * 1000, "ms", "-"))
                figures.append(("Motion-to-sound: + queued + server latency (median)", m.total * 1000, "ms", "<= 25"))
                figures.append(("Motion-to-sound: total (worst of \(m.count))", m.worst * 1000, "ms", "-"))
            }
        }
        let synth = try synthesizer ?? EspeakSynthesizer()
        let tts = try AudioProbes.ttsFirstSample(bank: bank, synthesizer: synth)
        figures.append(("TTS: first audio sample in the mixer, 10-word sentence (median)", tts.median * 1000, "ms", "<= 10"))
        figures.append(("TTS: first audio sample (worst of \(tts.count))", tts.worst * 1000, "ms", "-"))
        return figures
    }
}
