import App
import ArgumentParser
import Audio
import Foundation
import Location
import MapData

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "A scripted walk through central Helsinki with spoken commands, rendered binaurally to a WAV file.",
        discussion: """
            Walks the bundled walk (or --walk) in simulated time. At the times of the script (Walks/demo-script.txt: \
            "m:ss  words" a line) the words are synthesized by espeak-ng and decoded by the same recognizer as live \
            voice input; what it heard is handed to the assistant. The walker's words, the replies, the callouts \
            and the beacon are rendered through the HRTF into --output (48 kHz stereo), and the transcript is \
            printed as it goes (--json: one object a line). Then the file is played when a sound server answers. \
            Needs no GPS, microphone or sound server. Headphones give the 3-D effect.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: "Map database (default: the one `make run` imports).")
    var db: String?

    @Option(help: "The walk, a GPX or NMEA file (default: Walks/helsinki-centre.gpx).")
    var walk: String?

    @Option(help: "The script of commands (default: Walks/demo-script.txt).")
    var script: String?

    @Option(help: "Start at this time of the walk (m:ss or seconds): earlier positions and commands are skipped.")
    var from: String?

    @Option(help: "End at this time of the walk (m:ss or seconds), before the script's end.")
    var until: String?

    @Option(help: "The WAV file to write.")
    var output: String = "demo.wav"

    @Flag(help: "Do not play the file afterwards.")
    var noPlay = false

    @Flag(help: "Print the transcript as one JSON object a line.")
    var json = false

    @Option(help: "SOFA file with your HRTF (default: MIT KEMAR).")
    var hrtf: String?

    @Option(help: "PulseAudio sink to play the file to.")
    var sink: String?

    func run() async throws {
        global.bootstrapLogging()
        let paths = ProjectPaths.locate()
        let mapPath = db ?? MapPaths.defaultDatabase()
        let walkPath = walk ?? paths.home.appendingPathComponent("Walks/helsinki-centre.gpx").path
        let scriptPath = script ?? paths.home.appendingPathComponent("Walks/demo-script.txt").path
        let transcript = DemoTranscript(json: json)

        func fail(_ text: String) -> ExitCode {
            var entry = DemoTranscript.Entry(kind: "problem", time: 0)
            entry.text = text
            transcript.add(entry)
            return ExitCode(1)
        }
        let map: SpatialDataView
        do { map = try SpatialDataView(path: mapPath) } catch {
            throw fail("\(error)")
        }
        let points: [TrackPoint]
        let demoScript: DemoScript
        do {
            points = try WalkFile.load(walkPath)
            demoScript = try DemoScript.load(scriptPath)
        } catch { throw fail("\(error)") }
        guard !points.isEmpty else { throw fail("\(walkPath): no positions in the walk") }
        var start = 0.0
        if let from {
            guard let seconds = DemoScript.seconds(from) else { throw fail("--from \(from): not a time (m:ss or seconds)") }
            start = seconds
        }
        var plan = demoScript
        if let until {
            guard let seconds = DemoScript.seconds(until) else { throw fail("--until \(until): not a time (m:ss or seconds)") }
            plan.end = min(plan.end ?? seconds, seconds)
        }
        if !json { printReply("Map data \(map.metadata.attribution)") }

        let synthesizer: EspeakSynthesizer
        let recognizer: CommandRecognizer
        let engine: AudioEngine
        do {
            synthesizer = try EspeakSynthesizer()
            recognizer = try CommandRecognizer(paths: paths)
            engine = try AudioEngine(configuration: AudioEngine.Configuration(
                output: .offline, sofaPath: hrtf ?? SOFAHRTF.debianDefaultPath, soundsDirectory: paths.sounds.path),
                synthesizer: synthesizer)
        } catch { throw fail("the demo cannot start: \(error)") }
        defer { engine.shutdown() }

        let userDatabase = FileManager.default.temporaryDirectory
            .appendingPathComponent("soundscape-demo-\(getpid())-user.sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: userDatabase + suffix) }
        }
        let runner = DemoRunner(options: .init(walk: points, script: plan, mapPath: mapPath, userDatabase: userDatabase,
                                               from: start),
                                map: map, engine: engine, recognizer: recognizer, synthesizer: synthesizer, transcript: transcript)
        let outcome: DemoRunner.Outcome
        do { outcome = try await runner.run() } catch { throw fail("the demo stopped: \(error)") }
        do { try engine.writeRecording(to: output) } catch { throw fail("cannot write \(output): \(error)") }

        var summary = DemoTranscript.Entry(kind: "summary", time: outcome.seconds)
        summary.output = output
        summary.seconds = (outcome.seconds * 1000).rounded() / 1000
        summary.commands = outcome.commands
        summary.recognized = outcome.recognized
        transcript.add(summary)

        guard !noPlay else { return }
        play(engine.recording(), name: output)
    }

    /// Plays the recording through PulseAudio when a server answers; says so when none does.
    private func play(_ recording: PCMBuffer, name: String) {
        let stream: PulseSimpleStream
        do {
            stream = try PulseSimpleStream(direction: .playback, sampleRate: recording.sampleRate, channels: recording.channels,
                                           device: sink, streamName: "Soundscape demo", latency: 0.2)
        } catch {
            printReply("no sound server (\(error)); wrote \(name)")
            return
        }
        printReply("playing \(name) (\(DemoScript.format(recording.duration))); Ctrl-C stops")
        let chunk = recording.sampleRate / 10 * recording.channels
        var offset = 0
        do {
            while offset < recording.samples.count {
                let next = min(offset + chunk, recording.samples.count)
                try stream.write(Array(recording.samples[offset..<next]))
                offset = next
            }
            try stream.drain()
        } catch {
            printReply("Problem: playing \(name) stopped: \(error); the file is complete")
        }
    }
}
