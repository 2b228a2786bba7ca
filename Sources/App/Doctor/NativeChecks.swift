import Audio
import Foundation
import Location
import Speech
import Synchronization

/// The PocketSphinx acoustic model and dictionary are there and load with our command grammar.
public struct SpeechModelCheck: DoctorCheck {
    public let part = "Speech model"
    let model: AcousticModel
    let paths: ProjectPaths
    var grammarFile: String { paths.grammars.path }

    public init(model: AcousticModel, paths: ProjectPaths) {
        self.model = model
        self.paths = paths
    }

    public func run() async -> DoctorResult {
        let missing = model.missingFiles
        guard missing.isEmpty else {
            return DoctorResult(part: part, status: .failed, detail: "missing \(missing.joined(separator: ", "))",
                                fix: "sudo apt-get install pocketsphinx-en-us (or run scripts/setup)")
        }
        do {
            let recognizer = try CommandRecognizer(paths: paths, model: model)
            if let problem = recognizer.denoiserProblem {
                return DoctorResult(part: part, status: .warning, detail: problem, fix: "run scripts/setup (it fetches RNNoise)")
            }
            return DoctorResult(part: part, status: .ok, detail: "PocketSphinx en-us at \(model.modelDirectory), grammars in \(grammarFile); "
                                    + "noise suppression: \(recognizer.recognizer.noiseSuppressionDescription)")
        } catch {
            return DoctorResult(part: part, status: .failed, detail: "\(error)",
                                fix: "correct the grammar, or add the missing word with its phones to \(paths.extraDictionary.path)")
        }
    }
}

/// espeak-ng starts and can speak.
public struct SpeechSynthesisCheck: DoctorCheck {
    public let part = "Speech output"
    let synthesizer: EspeakSynthesizer
    let voice: VoiceSettings

    public init(synthesizer: EspeakSynthesizer, voice: VoiceSettings) {
        self.synthesizer = synthesizer
        self.voice = voice
    }

    public func run() async -> DoctorResult {
        do {
            let samples = try synthesizer.synthesize("ready", voice: voice)
            guard !samples.isEmpty else {
                return DoctorResult(part: part, status: .failed, detail: "espeak-ng produced no audio", fix: "reinstall espeak-ng-data")
            }
            return DoctorResult(part: part, status: .ok, detail: "espeak-ng, voice \(voice.voice), \(voice.rate) words per minute")
        } catch {
            return DoctorResult(part: part, status: .failed, detail: "\(error)", fix: "sudo apt-get install espeak-ng")
        }
    }
}

/// The sound server accepts a playback stream.
public struct SoundServerCheck: DoctorCheck {
    public let part = "Sound server"
    let sink: String?

    public init(sink: String?) { self.sink = sink }

    public func run() async -> DoctorResult {
        do {
            let stream = try PulseSimpleStream(direction: .playback, sampleRate: 48_000, channels: 2, device: sink,
                                               streamName: "doctor")
            try stream.write([Float](repeating: 0, count: 960))
            let latency = (try? stream.latency()).map { String(format: ", output latency %.0f ms", $0 * 1000) } ?? ""
            return DoctorResult(part: part, status: .ok, detail: "PulseAudio accepts playback on \(sink ?? "the default sink")\(latency)")
        } catch {
            return DoctorResult(part: part, status: .failed,
                                detail: "no sound server: \(error)",
                                fix: "start PulseAudio or PipeWire (pulseaudio --start); without one, use `soundscape say … --wav FILE`")
        }
    }
}

/// A microphone can be opened and delivers audio: the chosen source, or the default one, which (as for `run`, see
/// ``PulseMicrophone``) must be a microphone and not a monitor of an output.
public struct MicrophoneCheck: DoctorCheck {
    public let part = "Microphone"
    let source: String?

    public init(source: String?) { self.source = source }

    public func run() async -> DoctorResult {
        var device = source
        var described = source ?? "the default source"
        if source == nil, let sources = PulseSourceProbe.sources() {
            guard let usable = sources.usableDefault else {
                return DoctorResult(part: part, status: .failed,
                                    detail: (sources.defaultName.map { "the default source (\($0)) is what an output plays, not a microphone" }
                                        ?? "there is no recording source") + ", so voice commands wait for a microphone",
                                    fix: "plug in a headset or microphone and make it the default (pavucontrol), or choose one with --mic; "
                                        + "typed commands work meanwhile")
            }
            device = usable.name
            described = usable.name == usable.spokenName ? usable.name : "\(usable.spokenName) (\(usable.name))"
        }
        do {
            let stream = try PulseSimpleStream(direction: .record, sampleRate: 16_000, channels: 1, device: device,
                                               streamName: "doctor")
            _ = try stream.read(frames: 1_600)
            return DoctorResult(part: part, status: .ok, detail: "recording from \(described) works")
        } catch {
            return DoctorResult(part: part, status: .failed, detail: "cannot record from \(described): \(error)",
                                fix: "plug in a headset microphone and choose it with pavucontrol, or type commands instead")
        }
    }
}

/// The HRTF SOFA file loads.
public struct HRTFCheck: DoctorCheck {
    public let part = "HRTF"
    let path: String

    public init(path: String) { self.path = path }

    public func run() async -> DoctorResult {
        do {
            let hrtf = try SOFAHRTF(path: path, sampleRate: 48_000)
            return DoctorResult(part: part, status: .ok, detail: "\(path), \(hrtf.filterLength) taps at 48 kHz")
        } catch {
            return DoctorResult(part: part, status: .failed, detail: "\(error)",
                                fix: path == SOFAHRTF.debianDefaultPath ? "sudo apt-get install libmysofa1" : "point the configuration at a SOFA file")
        }
    }
}

/// gpsd answers, has a receiver, and the receiver has a fix: waits up to `wait` for one, then prints it or says
/// plainly why there is none (no daemon, no receiver, a receiver that sees too few satellites, or one that is silent).
public struct GPSCheck: DoctorCheck {
    public let part = "GPS"
    let endpoint: GpsdEndpoint
    let wait: Duration

    public init(endpoint: GpsdEndpoint, wait: Duration = .seconds(5)) {
        self.endpoint = endpoint
        self.wait = wait
    }

    /// What was seen before the wait ran out.
    struct Seen: Sendable {
        var fix: LocationFix?
        var devices: [String]?
        var bestMode: FixMode?
        var release: String?
        var error: (any Error)?
        var skipped = 0
    }

    /// The reader's findings so far, where the timeout can read them.
    final class SeenBox: Sendable {
        let seen = Mutex(Seen())
    }

    public func run() async -> DoctorResult {
        let endpoint = self.endpoint
        let counters = GpsdCounters()
        let box = SeenBox()
        // Read in a child task and stop it when the wait is over, even if gpsd sends nothing at all.
        let seen = await withTaskGroup(of: Seen?.self) { group -> Seen in
            group.addTask {
                var seen = Seen()
                do {
                    for try await report in GpsdConnection.reports(from: endpoint, counters: counters) {
                        switch report {
                        case .fix(let fix), .untimedFix(let fix):
                            seen.fix = fix
                            return seen
                        case .noFix(let mode): seen.bestMode = max(seen.bestMode ?? mode, mode)
                        case .devices(let d): seen.devices = d
                        case .version(let r): seen.release = r
                        case .heading: break
                        }
                        let snapshot = seen
                        box.seen.withLock { $0 = snapshot }
                    }
                } catch {
                    seen.error = error
                    return seen
                }
                return seen
            }
            group.addTask {
                try? await Task.sleep(for: wait)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            if let first { return first }
            return box.seen.withLock { $0 }
        }
        return Self.verdict(seen, endpoint: endpoint, wait: wait, skipped: counters.skippedLines)
    }

    static func verdict(_ seen: Seen, endpoint: GpsdEndpoint, wait: Duration, skipped: Int) -> DoctorResult {
        let part = "GPS"
        if let fix = seen.fix { return DoctorResult(part: part, status: .ok, detail: describe(fix, endpoint: endpoint)) }
        if let error = seen.error as? GpsdError {
            switch error {
            case .cannotConnect, .cannotResolve:
                return DoctorResult(part: part, status: .failed, detail: "no fix: no gpsd daemon answers at \(endpoint) (\(error))",
                                    fix: "sudo apt-get install gpsd and start it with your receiver (gpsd /dev/ttyACM0), or run with --at LAT,LON")
            case .closed:
                return DoctorResult(part: part, status: .failed, detail: "no fix: gpsd at \(endpoint) closed the connection",
                                    fix: "restart gpsd (sudo systemctl restart gpsd)")
            }
        }
        if let error = seen.error {
            return DoctorResult(part: part, status: .failed, detail: "no fix: \(error)", fix: "restart gpsd")
        }
        let seconds = String(format: "%.0f", Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18)
        if seen.release == nil {
            return DoctorResult(part: part, status: .failed,
                                detail: "no fix: something listens at \(endpoint) but it did not answer like gpsd within \(seconds) s"
                                    + (skipped > 0 ? " (\(skipped) unreadable lines)" : ""),
                                fix: "check that gpsd, not another program, uses that port")
        }
        if seen.devices == [] && seen.bestMode == nil {
            return DoctorResult(part: part, status: .failed, detail: "no fix: gpsd at \(endpoint) runs but has no GPS receiver attached",
                                fix: "plug in the GPS receiver, or tell gpsd about it: gpsdctl add /dev/ttyACM0")
        }
        if seen.bestMode != nil {
            return DoctorResult(part: part, status: .warning,
                                detail: "no fix after \(seconds) s: the receiver at gpsd \(endpoint) sees too few satellites",
                                fix: "go outdoors with a clear view of the sky and wait a minute")
        }
        return DoctorResult(part: part, status: .warning,
                            detail: "no fix after \(seconds) s: gpsd at \(endpoint) has a receiver (\((seen.devices ?? []).joined(separator: ", "))) but it reports nothing",
                            fix: "check the receiver's cable and baud rate (gpsmon shows what it sends)")
    }

    static func describe(_ fix: LocationFix, endpoint: GpsdEndpoint) -> String {
        let mode = fix.mode == .threeD ? "3D" : fix.mode == .twoD ? "2D" : "\(fix.mode)"
        var parts = ["\(mode) fix at " + String(format: "%.6f, %.6f", fix.coordinate.latitude, fix.coordinate.longitude)]
        if let a = fix.horizontalAccuracy { parts.append(String(format: "accuracy %.0f m", a)) }
        if let s = fix.speed { parts.append(String(format: "speed %.1f m/s", s)) }
        if let c = fix.course { parts.append(String(format: "course %.0f°", c)) }
        return parts.joined(separator: ", ") + " (gpsd at \(endpoint))"
    }
}
