import Audio
import Foundation
import Location
import MapData
import Speech

/// `soundscape demo`: a scripted walk on the map, in simulated time, rendered to a binaural recording.
///
/// The walk's fixes go to the ``Assistant`` that ``AppBuilder`` made for the demo (pipeline clock following the
/// fixes, Guidance and the beacon on an offline ``AudioEngine``, replies in the coordinator's queue). At each
/// time of the script the line is synthesized by espeak-ng, decoded by the command recognizer `listen` and live
/// input use (with the names of the places near that position), and what the recognizer heard — not the
/// script's words — is handed to the assistant. The walker's utterance goes into the recording too, plain and
/// quieter, before the answer.
///
/// Time: the recording is rendered up to each fix's time before the fix is handled, so the beacon, the
/// callouts and the walker's turns line up with the walk. A sound plays to its end once started: while a
/// long answer plays, the walk goes on in the pipeline and the recording catches up after it.
final class DemoRunner {
    public struct Options: Sendable {
        public var walk: [TrackPoint]
        public var script: DemoScript
        /// The walker's voice (another voice than the assistant's, so question and answer are told apart).
        public var userVoice: VoiceSettings
        /// Level of the walker's own words in the recording.
        public var commandGain: Float
        /// Where in the walk the demo starts, seconds (earlier positions and commands are skipped); the
        /// recording and its transcript start there.
        public var from: Double

        public init(walk: [TrackPoint], script: DemoScript, from: Double = 0,
                    userVoice: VoiceSettings = VoiceSettings(voice: "en-us+m3", rate: 165), commandGain: Float = 0.45) {
            self.walk = walk
            self.script = script
            self.userVoice = userVoice
            self.commandGain = commandGain
            self.from = from
        }
    }

    public struct Outcome: Sendable {
        /// Length of the recording, seconds.
        public var seconds: Double
        public var commands: Int
        public var recognized: Int
    }

    let options: Options
    let assistant: Assistant
    let output: DemoReplyOutput
    let map: SpatialDataView
    let engine: AudioEngine
    let recognizer: CommandRecognizer
    let synthesizer: EspeakSynthesizer
    let transcript: DemoTranscript
    private var rng = SplitMix64(seed: 2026)

    /// - Parameters:
    ///   - assistant: made by ``AppBuilder`` with `output` and the pipeline's clock starting at ``startTime(of:)``.
    init(options: Options, assistant: Assistant, output: DemoReplyOutput, map: SpatialDataView, engine: AudioEngine,
         recognizer: CommandRecognizer, synthesizer: EspeakSynthesizer, transcript: DemoTranscript) {
        self.options = options
        self.assistant = assistant
        self.output = output
        self.map = map
        self.engine = engine
        self.recognizer = recognizer
        self.synthesizer = synthesizer
        self.transcript = transcript
    }

    /// The time of the walk's first fix (a walk without times starts at a fixed date): the pipeline's clock starts there.
    static func startTime(of walk: [TrackPoint]) -> Date {
        walk.first?.time ?? Date(timeIntervalSince1970: 1_780_304_400)
    }

    /// Walks the script; the recording stays in the engine (``AudioEngine/writeRecording(to:tail:)``).
    func run() async throws -> Outcome {
        guard !options.walk.isEmpty else { throw DemoError("the walk has no positions") }
        let start = Self.startTime(of: options.walk)
        let fixes = TrackReplay(points: options.walk, speed: 1, clock: ContinuousClock()).schedule(startingAt: start).map(\.fix)
        let walkLength = fixes.last.map { $0.timestamp.timeIntervalSince(start) } ?? 0
        let end = min(options.script.end ?? walkLength, walkLength)
        let from = options.from
        guard from < end else {
            throw DemoError("the demo starts at \(DemoScript.format(from)), after its end (\(DemoScript.format(end)))")
        }

        var pending = options.script.lines.drop { $0.time < from }
        var commands = 0, recognized = 0
        walk: for fix in fixes {
            let t = fix.timestamp.timeIntervalSince(start)
            if t < from { continue }
            if t > end { break }
            advance(to: t - from)
            await assistant.handle(.fix(fix))
            await assistant.settle()
            output.reportBeacon()
            while let line = pending.first, line.time <= t {
                pending.removeFirst()
                commands += 1
                // The names of the places near here, spliced into the grammar as `listen --at` does.
                try recognizer.recognizer.setPhrases(NearbyPlaceNames.phrases(map: map, near: fix.coordinate), for: "places")
                guard let command = try await say(line.text) else { continue }
                recognized += 1
                let goOn = await assistant.handle(command)
                await assistant.settle()
                output.reportBeacon()
                if !goOn { break walk }
            }
        }
        advance(to: end - from)
        await assistant.settle()
        if engine.beacon.isActive { await engine.beacon.stop() }
        engine.render(seconds: 0.5)
        return Outcome(seconds: output.now, commands: commands, recognized: recognized)
    }

    /// Renders the recording up to `time` (the beacon and anything playing go on); nothing when it is there already.
    private func advance(to time: Double) {
        let behind = time - output.now
        if behind > 0.001 { engine.render(seconds: behind) }
    }

    /// Speaks `text` as the walker: synthesized, recognized, heard in the recording; returns the command heard.
    private func say(_ text: String) async throws -> RecognizedCommand? {
        let pcm = try synthesizer.synthesize(text, voice: options.userVoice)
        let speech = Resampler(from: synthesizer.sampleRate, to: PocketSphinxDecoder.sampleRate)
            .process(pcm.map { Float($0) / 32_768 * 0.9 })
        let result = try recognizer.recognize(VoiceCorpus.finish(speech, noise: nil, snr: nil, rng: &rng))

        var entry = DemoTranscript.Entry(kind: "command", time: output.now)
        entry.text = text
        entry.heard = result.text
        entry.confidence = result.confidence
        entry.heading = output.heading
        let voice = PCMBuffer(sampleRate: PocketSphinxDecoder.sampleRate, channels: 1, samples: speech)
        _ = await engine.play(BufferSound(voice, gain: options.commandGain))
        if let command = result.command {
            entry.intent = command.intent
            entry.slots = command.slots
            entry.rejected = false
        } else {
            entry.rejected = true
            entry.reason = result.rejection ?? "rejected"
            // As live input does: the "not understood" earcon.
            _ = await engine.play(GlyphSound(.invalidFunction))
        }
        entry.end = output.now
        transcript.add(entry)
        return result.command
    }
}
