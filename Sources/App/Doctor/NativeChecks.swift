import Audio
import Foundation
import Location
import Speech

/// The PocketSphinx acoustic model and dictionary are there and load with our command grammar.
public struct SpeechModelCheck: DoctorCheck {
    public let part = "Speech model"
    let model: AcousticModel
    let grammarFile: String

    public init(model: AcousticModel, grammarFile: String) {
        self.model = model
        self.grammarFile = grammarFile
    }

    public func run() async -> DoctorResult {
        let missing = model.missingFiles
        guard missing.isEmpty else {
            return DoctorResult(part: part, status: .failed, detail: "missing \(missing.joined(separator: ", "))",
                                fix: "sudo apt-get install pocketsphinx-en-us (or run scripts/setup)")
        }
        do {
            let decoder = try PocketSphinxDecoder(model: model)
            let grammar = try String(contentsOfFile: grammarFile, encoding: .utf8)
            try decoder.useGrammar(jsgf: grammar)
            return DoctorResult(part: part, status: .ok, detail: "PocketSphinx en-us at \(model.modelDirectory), grammar \(grammarFile)")
        } catch {
            return DoctorResult(part: part, status: .failed, detail: "\(error)", fix: "check \(grammarFile) and the model folder")
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

/// A microphone (any recording source) can be opened and delivers audio.
public struct MicrophoneCheck: DoctorCheck {
    public let part = "Microphone"
    let source: String?

    public init(source: String?) { self.source = source }

    public func run() async -> DoctorResult {
        do {
            let stream = try PulseSimpleStream(direction: .record, sampleRate: 16_000, channels: 1, device: source,
                                               streamName: "doctor")
            _ = try stream.read(frames: 1_600)
            return DoctorResult(part: part, status: .ok, detail: "recording from \(source ?? "the default source") works")
        } catch {
            return DoctorResult(part: part, status: .failed, detail: "cannot record: \(error)",
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

/// gpsd answers, has a receiver, and the receiver has a fix.
public struct GPSCheck: DoctorCheck {
    public let part = "GPS"
    let endpoint: GpsdEndpoint
    let wait: Duration

    public init(endpoint: GpsdEndpoint, wait: Duration = .seconds(5)) {
        self.endpoint = endpoint
        self.wait = wait
    }

    public func run() async -> DoctorResult {
        let deadline = ContinuousClock.now + wait
        var devices: [String]?
        var sawNoFix = false
        do {
            for try await report in GpsdConnection.reports(from: endpoint) {
                switch report {
                case .fix(let fix):
                    return DoctorResult(part: part, status: .ok, detail: Self.describe(fix, endpoint: endpoint))
                case .noFix: sawNoFix = true
                case .devices(let d): devices = d
                default: break
                }
                if ContinuousClock.now > deadline { break }
            }
        } catch let error as GpsdError {
            if case .cannotConnect = error {
                return DoctorResult(part: part, status: .failed, detail: "no gpsd daemon at \(endpoint)",
                                    fix: "sudo apt-get install gpsd and start it with your receiver (gpsd /dev/ttyACM0), or run with --at LAT,LON")
            }
            return DoctorResult(part: part, status: .failed, detail: "\(error)", fix: "restart gpsd")
        } catch {
            return DoctorResult(part: part, status: .failed, detail: "\(error)", fix: "restart gpsd")
        }
        if devices == [] && !sawNoFix {
            return DoctorResult(part: part, status: .failed, detail: "gpsd at \(endpoint) runs but has no receiver attached",
                                fix: "plug in the GPS receiver, or tell gpsd about it: gpsdctl add /dev/ttyACM0")
        }
        return DoctorResult(part: part, status: .warning,
                            detail: "gpsd at \(endpoint) has a receiver but no fix after \(wait) (too few satellites)",
                            fix: "go outdoors with a clear view of the sky and wait a minute")
    }

    static func describe(_ fix: LocationFix, endpoint: GpsdEndpoint) -> String {
        var parts = [String(format: "fix at %.6f, %.6f", fix.coordinate.latitude, fix.coordinate.longitude)]
        if let a = fix.horizontalAccuracy { parts.append(String(format: "accuracy %.0f m", a)) }
        if let s = fix.speed { parts.append(String(format: "speed %.1f m/s", s)) }
        if let c = fix.course { parts.append(String(format: "course %.0f°", c)) }
        return parts.joined(separator: ", ") + " (gpsd at \(endpoint))"
    }
}
