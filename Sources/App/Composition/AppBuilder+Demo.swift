import Audio
import Callouts
import Foundation
import Location
import MapData

/// What `soundscape demo` was asked for.
public struct DemoOptions: Sendable {
    public var db: String?
    /// The walk, a GPX or NMEA file; nil: Walks/helsinki-centre.gpx.
    public var walk: String?
    /// The script of commands; nil: Walks/demo-script.txt.
    public var script: String?
    /// Start and end at these times of the walk (m:ss or seconds).
    public var from: String?
    public var until: String?
    /// The WAV file to write.
    public var output = "demo.wav"
    public var noPlay = false
    public var json = false
    public var hrtf: String?
    /// PulseAudio sink to play the file to.
    public var sink: String?

    public init() {}
}

extension AppBuilder {
    /// `soundscape demo`: a scripted walk with spoken commands, rendered binaurally to a WAV file, then played.
    /// The assistant is made as for `run` (Guidance, the grammars' parser, replies as callouts in the coordinator's
    /// queue), on an offline engine, with a scratch user database and the pipeline's time following the walk.
    public func demo(_ options: DemoOptions) async throws {
        let paths = environment.paths
        let mapPath = options.db ?? environment.mapDatabase
        let walkPath = options.walk ?? paths.home.appendingPathComponent("Walks/helsinki-centre.gpx").path
        let scriptPath = options.script ?? paths.home.appendingPathComponent("Walks/demo-script.txt").path
        let transcript = DemoTranscript(json: options.json)

        func fail(_ text: String) -> AppExit {
            var entry = DemoTranscript.Entry(kind: "problem", time: 0)
            entry.text = text
            transcript.add(entry)
            return AppExit(code: 1)
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
        if let from = options.from {
            guard let seconds = DemoScript.seconds(from) else { throw fail("--from \(from): not a time (m:ss or seconds)") }
            start = seconds
        }
        var plan = demoScript
        if let until = options.until {
            guard let seconds = DemoScript.seconds(until) else { throw fail("--until \(until): not a time (m:ss or seconds)") }
            plan.end = min(plan.end ?? seconds, seconds)
        }
        if !options.json { printReply("Map data \(map.metadata.attribution)") }

        // The demo's own settings (English, metric), not the user's file.
        let settings = Settings()
        let synthesizer: EspeakSynthesizer
        let recognizer: CommandRecognizer
        let engine: AudioEngine
        let table: StringTable
        do {
            synthesizer = try EspeakSynthesizer()
            recognizer = try CommandRecognizer(paths: paths)
            engine = try AudioEngine(configuration: AudioEngine.Configuration(
                output: .offline, sofaPath: options.hrtf ?? SOFAHRTF.debianDefaultPath, soundsDirectory: paths.sounds.path),
                synthesizer: synthesizer)
            table = try StringTable(language: settings.language)
        } catch { throw fail("the demo cannot start: \(error)") }
        defer { engine.shutdown() }

        let userDatabase = FileManager.default.temporaryDirectory
            .appendingPathComponent("soundscape-demo-\(getpid())-user.sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: userDatabase + suffix) }
        }
        let problems = Locked<[String]>([])
        let guidance = await guidance(map: map, mapPath: mapPath, language: settings.language, settings: settings,
                                      userDb: userDatabase, engine: engine, restoreBeacon: false,
                                      problem: { problem in problems.update { $0.append(problem) } })
        let (intents, grammarProblem) = intentParser()
        if let grammarProblem { problems.update { $0.append("\(grammarProblem); typed commands use the built-in phrases") } }
        let output = DemoReplyOutput(engine: engine, transcript: transcript)
        output.beaconState = { [engine] in
            let current = guidance.manager.snapshot.current
            let state = engine.beacon.isActive && !engine.beacon.isMuted ? "on" : current == nil ? "off" : "muted"
            return (state, current?.beacon.name)
        }
        // Said first: the output keeps them until the assistant's coordinator takes them.
        for problem in problems.value { await output.problem(problem) }
        let assistant = Assistant(map: map, phrasing: Phrasing(table: table, units: settings.units), output: output,
                                  followFixTimes: true, format: .none, startTime: DemoRunner.startTime(of: points),
                                  guidance: guidance, intents: intents)
        let runner = DemoRunner(options: .init(walk: points, script: plan, from: start), assistant: assistant, output: output,
                                map: map, engine: engine, recognizer: recognizer, synthesizer: synthesizer, transcript: transcript)
        let outcome: DemoRunner.Outcome
        do { outcome = try await runner.run() } catch { throw fail("the demo stopped: \(error)") }
        do { try engine.writeRecording(to: options.output) } catch { throw fail("cannot write \(options.output): \(error)") }

        var summary = DemoTranscript.Entry(kind: "summary", time: outcome.seconds)
        summary.output = options.output
        summary.seconds = (outcome.seconds * 1000).rounded() / 1000
        summary.commands = outcome.commands
        summary.recognized = outcome.recognized
        transcript.add(summary)

        guard !options.noPlay else { return }
        play(engine.recording(), name: options.output, sink: options.sink)
    }

    /// Plays the recording through PulseAudio when a server answers; says so when none does.
    private func play(_ recording: PCMBuffer, name: String, sink: String?) {
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
