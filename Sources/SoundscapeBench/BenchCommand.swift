import App
import ArgumentParser
import Audio
import Foundation
import Logging
import Speech

/// `soundscape-bench`, the program `make bench` runs: every figure, printed against its target.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soundscape-bench",
        abstract: "Measure every performance figure and print them against their targets.",
        discussion: "Build with -c release first (make bench does). Figures that need a sound server use the default one.")

    @Flag(name: .shortAndLong, help: "Log what each part is doing (to standard error).")
    var verbose = false

    @Option(help: "OpenStreetMap extract to import for the map figures.")
    var pbf: String?

    @Option(help: "Folder for temporary databases (default: a new temporary folder).")
    var workDir: String?

    @Option(help: "Measure only one group of figures: map, import (1×, 16×, 100× extracts beside osmium), tiles (tile server load), speech, wake (the wake word alone), asr (both recognizers on three synthesizers' voices, and `run`'s footprint) or audio (default: all).")
    var only: String?

    @Flag(help: "With asr: a small subset (4 voices, the commands that undo another and a few more, 4 conditions) for before/after comparisons.")
    var quick = false

    @Option(help: "With asr: take every n-th command of the grammars.")
    var asrStride: Int = 1

    @Option(help: "With asr: stop starting new sentences after this many seconds (the figures then rest on fewer sentences).")
    var asrBudget: Double?

    @Option(help: "With asr: about how many characters of prompt Whisper is given (default: the program's).")
    var asrPromptLimit: Int?

    @Option(help: "With asr: how many of the likeliest sentences of the whole grammar Whisper searches for (default: the program's, 0: none).")
    var asrSearch: Int?

    @Option(help: "With speech: one JSON line per utterance (features, what was heard) into this file.")
    var asrDump: String?

    @Option(help: "With speech: a part of the corpus, e.g. \"variants=0,1;conditions=clean,10 dB;oog=1;extras=0\" (figures then not comparable).")
    var asrSubset: String?

    @Option(help: "With wake: other wake-word settings, as THRESHOLD,PHONE-LOOP-PROBABILITY.")
    var wakeSettings: String?

    @Option(help: "Extract sizes for the import figures, as copies of the extract (default: 1,16,100).")
    var importScales: String = "1,16,100"

    @Option(help: "Imports per extract size for the import figures (the best is shown).")
    var importRuns: Int = 2

    @Option(help: "PostgreSQL (postgres://user@host:port/database) in which the tiles figures load the extract with osm2pgsql to measure PostGIS tiles.")
    var postgres: String?

    @Option(help: "Seconds of load per tiles figure.")
    var tileSeconds: Int = 5

    @Option(help: "Copies of the extract the tiles figures serve (the same tiled file as the import figures; 1 serves the extract itself).")
    var tileScale: Int = 100

    @Option(help: "Add the fuzzers' results (the TSV `make fuzz` writes) to the table.")
    var fuzzResults: String?

    func run() async throws {
        let level: Logger.Level = verbose ? .debug : .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        // Read once: the paths come from it, and the footprint bench's child inherits it.
        let processEnvironment = ProcessInfo.processInfo.environment
        let environment = AppEnvironment.read(processEnvironment)
        let paths = environment.paths
        var figures: [BenchFigure] = []
        let work = workDir ?? FileManager.default.temporaryDirectory.appendingPathComponent("soundscape-bench-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { if workDir == nil { try? FileManager.default.removeItem(atPath: work) } }

        if let only, !["map", "import", "tiles", "speech", "wake", "asr", "audio"].contains(only) {
            throw ValidationError("--only must be map, import, tiles, speech, wake, asr or audio, not \"\(only)\"")
        }
        let pbfPath = pbf ?? paths.bundledMapExtract().path
        if only == nil || only == "map" {
            printError("bench: map import and queries (\(pbfPath))…")
            figures += try await runMapBench(pbf: pbfPath, workDir: work)
        }
        if only == nil || only == "import" {
            printError("bench: import at 1×, 16× and 100× beside osmium export…")
            let scales = importScales.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !scales.isEmpty, scales.allSatisfy({ $0 >= 1 }) else {
                throw ValidationError("--import-scales must be copy counts such as 1,16,100, not \"\(importScales)\"")
            }
            figures += try ImportBench.run(source: pbfPath, scales: scales, workDir: work, cache: environment.cacheDirectory + "/bench", runs: max(1, importRuns))
        }
        if only == nil || only == "tiles" {
            printError("bench: tile server at 1, 8 and 32 clients, SQLite and PostGIS, on the \(max(1, tileScale))× extract…")
            let tilePBF = try ImportBench.tiledExtract(source: pbfPath, copies: max(1, tileScale), cache: environment.cacheDirectory + "/bench")
            figures += try await TileBench.run(pbf: tilePBF, workDir: work, postgres: postgres, seconds: tileSeconds)
        }
        if only == "import" || only == "tiles" {
            print(BenchTable.render(figures))
            return
        }

        let synthesizer = try EspeakSynthesizer()
        if only == nil || only == "speech" {
            printError("bench: speech synthesis and recognition…")
            figures += try SpeechBench.run(paths: paths, synthesizer: synthesizer,
                                           options: SpeechBench.Options(dump: asrDump, subset: asrSubset))
        }
        if only == nil || only == "speech" || only == "wake" {
            printError("bench: wake word…")
            let knobs = wakeSettings.map { $0.split(separator: ",").compactMap { Double($0) } }
            if let knobs, knobs.count != 2 { throw ValidationError("--wake-settings must be THRESHOLD,PHONE-LOOP-PROBABILITY, not \"\(wakeSettings ?? "")\"") }
            figures += try WakeWordBench.run(paths: paths, synthesizer: synthesizer, knobs: knobs.map { ($0[0], $0[1]) })
        }
        if only == nil || only == "asr" {
            printError("bench: two recognizers on espeak-ng, festival and Piper voices…")
            figures += try RecognizerBench.run(paths: paths, synthesizer: synthesizer,
                                               options: RecognizerBench.Options(quick: quick, stride: max(1, asrStride), budget: asrBudget,
                                                                                cache: environment.cacheDirectory,
                                                                                promptLimit: asrPromptLimit ?? SecondOpinion.standardPromptLimit,
                                                                                searchCount: asrSearch ?? SecondOpinion.standardSearchCount))
            figures += try RunFootprintBench.run(pbf: pbfPath, workDir: work, environment: processEnvironment)
        }
        if only == nil || only == "audio" {
            printError("bench: HRTF mixer, motion-to-sound and speech into the mixer…")
            let soundServer = (try? PulseSimpleStream(direction: .playback, sampleRate: 48_000, channels: 2, streamName: "probe")) != nil
            if !soundServer { printError("bench: no sound server; motion-to-sound is not measured (run under scripts/with-test-services)") }
            for figure in try AudioBench.run(synthesizer: synthesizer, pulse: soundServer ? PulseOutput.Options() : nil) {
                figures.append(BenchFigure(audio: figure))
            }
        }

        if let fuzzResults { figures += try FuzzResults.figures(from: fuzzResults) }
        print(BenchTable.render(figures))
    }
}

/// Progress and diagnostics go to standard error, so standard output holds only the table.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
