import App
import Audio
import Foundation
import Speech

/// Speech timings: espeak-ng's time to the first audio, and PocketSphinx decoding speed and the time from
/// the end of an utterance (push-to-talk release) to the result.
enum SpeechBench {
    static func run(paths: ProjectPaths, synthesizer: EspeakSynthesizer) throws -> [BenchFigure] {
        var figures: [BenchFigure] = []
        let sentence = "Coffee shop is about thirty meters ahead on your left side."
        var firstChunk: [Double] = []
        for _ in 0..<50 {
            let start = ContinuousClock.now
            var first: Duration?
            try synthesizer.synthesize(sentence) { _ in
                if first == nil { first = ContinuousClock.now - start }
                return true
            }
            if let first { firstChunk.append(first.milliseconds) }
        }
        let tts = Percentiles(firstChunk)
        figures.append(.atMost("TTS first audio, 10 words (espeak-ng, p95)", tts.at(95), "ms", 10))

        // Recognition: espeak-ng utterances of each command, resampled to 16 kHz with a faint noise floor.
        let recognizer = try CommandRecognizer(paths: paths)
        let commands = ["where am i", "what's ahead", "around me", "nearby markers", "mute beacon", "repeat", "what can i say"]
        let toSixteen = Resampler(from: synthesizer.sampleRate, to: PocketSphinxDecoder.sampleRate)
        var rng = SplitMix(seed: 7)
        var releaseToResult: [Double] = []
        var audioSeconds = 0.0, cpuSeconds = 0.0
        var correct = 0, total = 0
        for voice in ["en-us", "en+f2", "en+m3"] {
            for rate in [150, 175, 210] {
                for command in commands {
                    let speech = try synthesizer.synthesize(command, voice: VoiceSettings(voice: voice, rate: rate))
                    var samples = toSixteen.process(speech.map { Float($0) / 32768 * 0.9 })
                    let pad = [Float](repeating: 0, count: 4_800)
                    samples = pad + samples + pad
                    for i in samples.indices { samples[i] += Float(rng.nextGaussian() * 0.003) }
                    let pcm = PCMBuffer(sampleRate: 16_000, channels: 1, samples: samples).int16Samples
                    let cpuStart = clock()
                    try recognizer.decoder.begin()
                    var i = 0
                    while i < pcm.count {
                        try recognizer.decoder.process(pcm[i..<min(i + 1024, pcm.count)])
                        i += 1024
                    }
                    let release = ContinuousClock.now
                    let hypothesis = try recognizer.decoder.end()
                    releaseToResult.append((ContinuousClock.now - release).milliseconds)
                    cpuSeconds += Double(clock() - cpuStart) / Double(CLOCKS_PER_SEC)
                    audioSeconds += Double(pcm.count) / 16_000
                    total += 1
                    if hypothesis.text == command { correct += 1 }
                }
            }
        }
        let latency = Percentiles(releaseToResult)
        figures.append(BenchFigure("ASR release → result p50", latency.at(50), "ms"))
        figures.append(.atMost("ASR release → result p95", latency.at(95), "ms", 50))
        figures.append(.atLeast("ASR decode speed", audioSeconds / max(cpuSeconds, 1e-9), "× real time", 10))
        figures.append(BenchFigure("ASR exact commands, espeak clean (\(total) utterances)", 100 * Double(correct) / Double(total), "%"))
        return figures
    }
}

/// A small deterministic random generator for repeatable benchmark noise.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func nextUniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func nextGaussian() -> Double {
        let u1 = max(nextUniform(), 1e-12), u2 = nextUniform()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}

extension Duration {
    var milliseconds: Double {
        let (s, a) = components
        return Double(s) * 1000 + Double(a) / 1e15
    }
}
