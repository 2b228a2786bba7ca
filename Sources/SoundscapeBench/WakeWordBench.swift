import App
import Audio
import Foundation
import Speech

/// The wake phrase ("hey soundscape") spotted in a continuous stream, as the listener runs it between commands:
/// how many times it is heard when said after other speech, and how often ordinary speech wakes the assistant.
enum WakeWordBench {
    /// - Parameter knobs: (threshold, phone-loop probability) to measure other spotter settings than the defaults.
    static func run(paths: ProjectPaths, synthesizer: EspeakSynthesizer, knobs: (Double, Double)? = nil) throws -> [BenchFigure] {
        let grammar = try CommandRecognizer.loadGrammar(paths.grammars.path)
        let corpus = VoiceCorpus(grammar: grammar, synthesizer: synthesizer)
        var rng = SplitMix64(seed: 20_261_124)
        let (noise, noiseName) = SpeechBench.streetNoise(paths: paths, rng: &rng)
        let extra = (try? ExtraDictionary.words(paths.extraDictionary.path)) ?? []
        let spotter = try knobs.map { try WakeWordSpotter(extraWords: extra, threshold: $0.0, phoneLoopProbability: $0.1) }
            ?? WakeWordSpotter(extraWords: extra)
        var figures: [BenchFigure] = []
        var cpuSeconds = 0.0, audioSeconds = 0.0

        /// Feeds a stream in 20 ms chunks; the sample indices at which the spotter fired (it starts again after
        /// each, as the listener does once the command is heard).
        func detections(_ stream: [Int16]) throws -> [Int] {
            let cpu = clock()
            var hits: [Int] = []
            try spotter.begin()
            var i = 0
            while i < stream.count {
                let end = min(i + 320, stream.count)
                if try spotter.process(Array(stream[i..<end])) {
                    hits.append(end)
                    try spotter.begin()
                }
                i = end
            }
            cpuSeconds += Double(clock() - cpu) / Double(CLOCKS_PER_SEC)
            audioSeconds += Double(stream.count) / 16_000
            return hits
        }

        // Said after other speech: per voice, 10 out-of-grammar sentences each followed by the phrase, clean
        // and in street noise. A detection from the phrase's start to 0.6 s after its end counts as heard.
        for (label, snr) in [("clean", nil), ("10 dB", 10.0), ("5 dB", 5.0)] as [(String, Double?)] {
            var said = 0, heard = 0, elsewhere = 0
            for (v, variant) in VoiceCorpus.variants.enumerated() {
                var stream: [Int16] = []
                var windows: [Range<Int>] = []
                let spoken = try corpus.speech(spotter.phrase, variant: variant)
                for k in 0..<10 {
                    let sentence = VoiceCorpus.outOfGrammar[(v * 10 + k) % VoiceCorpus.outOfGrammar.count]
                    stream += VoiceCorpus.finish(try corpus.speech(sentence, variant: variant), noise: noise, snr: snr, rng: &rng)
                    let phrase = VoiceCorpus.finish(spoken, noise: noise, snr: snr, rng: &rng)
                    windows.append(stream.count..<(stream.count + phrase.count + 9_600))
                    stream += phrase
                }
                let hits = try detections(stream)
                said += windows.count
                heard += windows.filter { w in hits.contains { w.contains($0) } }.count
                elsewhere += hits.filter { h in !windows.contains { $0.contains(h) } }.count
            }
            let what = "Wake word heard after other speech, \(label)\(snr == nil ? "" : " \(noiseName)") (\(said), 6 voices)"
            figures.append(BenchFigure(what, 100 * Double(heard) / Double(max(1, said)), "%"))
            if elsewhere > 0 { printError("bench: wake word, \(label): \(elsewhere) detections away from the phrase") }
        }

        // Ordinary speech: every out-of-grammar sentence in every voice, alternately clean and at 10 dB.
        var stream: [Int16] = []
        for (v, variant) in VoiceCorpus.variants.enumerated() {
            for (n, text) in VoiceCorpus.outOfGrammar.enumerated() {
                stream += VoiceCorpus.finish(try corpus.speech(text, variant: variant), noise: noise, snr: (n + v) % 2 == 0 ? nil : 10, rng: &rng)
            }
        }
        let minutes = Double(stream.count) / 16_000 / 60
        let falseWakes = try detections(stream).count
        figures.append(BenchFigure("Wake word false wakes in ordinary speech (\(Int(minutes.rounded())) min, \(VoiceCorpus.outOfGrammar.count) sentences × 6 voices)",
                                   Double(falseWakes) / minutes * 60, "per hour"))
        figures.append(BenchFigure("Wake word spotting speed", audioSeconds / max(cpuSeconds, 1e-9), "× real time"))
        return figures
    }
}
