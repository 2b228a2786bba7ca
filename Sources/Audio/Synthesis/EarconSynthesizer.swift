import Foundation
import Synchronization

/// The program's earcons (spec §5.3), by meaning. The raw value is the file name in `Sounds/` (without `.wav`).
public enum Earcon: String, Sendable, CaseIterable, Codable {
    case appLaunch = "app_launch"
    case modeEnter = "mode_enter"
    case modeExit = "mode_exit"
    case hush
    case beaconFound = "beacon_found"
    case invalidFunction = "invalid_function"
    case listeningStart = "listening_start"
    case listeningStop = "listening_stop"
    case calloutsOn = "callouts_on"
    case calloutsOff = "callouts_off"
    case sensePOI = "sense_poi"
    case senseMobility = "sense_mobility"
    case senseSafety = "sense_safety"
    case informationAlert = "information_alert"
    case senseLocation = "sense_location"

    /// What the sound means, for the documentation and `soundscape sounds --list`.
    public var meaning: String {
        switch self {
        case .appLaunch: return "Soundscape has started (or woke from sleep): a rising four-note bell arpeggio."
        case .modeEnter: return "An exploration callout group begins (My Location, Around Me, Ahead of Me, Nearby Markers): two notes stepping up."
        case .modeExit: return "That group has ended: the same two notes stepping down."
        case .hush: return "Speech was stopped by hush or stop: a soft falling swish."
        case .beaconFound: return "You arrived at the beacon and it was muted: a bright chord with a high sparkle."
        case .invalidFunction: return "That command or button does nothing now: a low double buzz."
        case .listeningStart: return "The assistant is listening for a voice command: a quick rising chirp."
        case .listeningStop: return "It stopped listening: a quick falling chirp."
        case .calloutsOn: return "Automatic callouts switched on: three notes going up."
        case .calloutsOff: return "Automatic callouts switched off: three notes going down."
        case .sensePOI: return "A place, landmark or object is being called out: one clear bell note."
        case .senseMobility: return "A mobility place (bus stop, crossing, station) is being called out: two quick wooden taps."
        case .senseSafety: return "A safety-related place (construction, barrier, parking entrance) is being called out: an alternating two-tone alert."
        case .informationAlert: return "An information point is being called out: a soft chime rising by a fourth."
        case .senseLocation: return "Your location or a departure from an intersection is being called out: a plucked open fifth."
        }
    }
}

/// Deterministic synthesis of every earcon and beacon style, at 48 kHz mono. The same code makes the
/// WAVs in `Sounds/` (`make sounds`) and, when a file is missing, the sound in memory; nothing is copied
/// from elsewhere and no randomness is involved, so every run makes identical samples.
public enum EarconSynthesizer {
    public static let sampleRate = 48_000

    // MARK: earcons

    public static func earcon(_ e: Earcon) -> PCMBuffer {
        var s = Score(seconds: length(of: e))
        switch e {
        case .appLaunch:
            for (i, n) in [72, 76, 79, 84].enumerated() { s.add(.bell, midi: n, at: 0.11 * Double(i), seconds: 0.6, gain: 0.32) }
        case .modeEnter:
            s.add(.marimba, midi: 79, at: 0, seconds: 0.2, gain: 0.5)
            s.add(.marimba, midi: 86, at: 0.11, seconds: 0.25, gain: 0.5)
        case .modeExit:
            s.add(.marimba, midi: 86, at: 0, seconds: 0.2, gain: 0.5)
            s.add(.marimba, midi: 79, at: 0.11, seconds: 0.25, gain: 0.5)
        case .hush:
            s.addGlide(from: 1_400, to: 500, at: 0, seconds: 0.22, gain: 0.28, noise: true)
        case .beaconFound:
            for n in [84, 88, 91] { s.add(.bell, midi: n, at: 0, seconds: 0.7, gain: 0.22) }
            s.add(.bell, midi: 96, at: 0.14, seconds: 0.55, gain: 0.18)
        case .invalidFunction:
            s.add(.buzz, midi: 45, at: 0, seconds: 0.11, gain: 0.3)
            s.add(.buzz, midi: 45, at: 0.15, seconds: 0.11, gain: 0.3)
        case .listeningStart:
            s.addGlide(from: 620, to: 1_240, at: 0, seconds: 0.15, gain: 0.35, noise: false)
        case .listeningStop:
            s.addGlide(from: 1_240, to: 620, at: 0, seconds: 0.15, gain: 0.35, noise: false)
        case .calloutsOn:
            for (i, n) in [74, 78, 81].enumerated() { s.add(.marimba, midi: n, at: 0.09 * Double(i), seconds: 0.25, gain: 0.45) }
        case .calloutsOff:
            for (i, n) in [81, 78, 74].enumerated() { s.add(.marimba, midi: n, at: 0.09 * Double(i), seconds: 0.25, gain: 0.45) }
        case .sensePOI:
            s.add(.bell, midi: 81, at: 0, seconds: 0.4, gain: 0.42)
        case .senseMobility:
            s.add(.wood, midi: 76, at: 0, seconds: 0.12, gain: 0.55)
            s.add(.wood, midi: 76, at: 0.1, seconds: 0.12, gain: 0.55)
        case .senseSafety:
            for i in 0..<3 { s.add(.softSquare, midi: i % 2 == 0 ? 83 : 77, at: 0.1 * Double(i), seconds: 0.09, gain: 0.22) }
        case .informationAlert:
            s.add(.chime, midi: 84, at: 0, seconds: 0.3, gain: 0.35)
            s.add(.chime, midi: 89, at: 0.13, seconds: 0.35, gain: 0.35)
        case .senseLocation:
            s.add(.pluck, midi: 74, at: 0, seconds: 0.4, gain: 0.4)
            s.add(.pluck, midi: 81, at: 0.05, seconds: 0.4, gain: 0.35)
        }
        return PCMBuffer(sampleRate: sampleRate, channels: 1, samples: s.finished())
    }

    static func length(of e: Earcon) -> Double {
        switch e {
        case .appLaunch: return 0.95
        case .beaconFound: return 0.8
        case .hush, .listeningStart, .listeningStop: return 0.25
        case .modeEnter, .modeExit, .invalidFunction, .calloutsOn, .calloutsOff, .senseMobility, .senseSafety: return 0.4
        case .sensePOI, .informationAlert, .senseLocation: return 0.5
        }
    }

    // MARK: beacons

    /// Beat length shared by the 6-beat styles (≈149 beats per minute, spec §4.3).
    public static let beat = 2.416 / 6

    /// The built-in beacon style with this name, synthesized (see ``BeaconStyle/builtInNames``).
    public static func beaconStyle(named name: String) -> BeaconStyle? {
        let key = name.lowercased()
        if let cached = styleCache.withLock({ $0[key] }) { return cached }
        guard let style = makeBeaconStyle(key) else { return nil }
        styleCache.withLock { $0[key] = style }
        return style
    }

    private static let styleCache = Mutex<[String: BeaconStyle]>([:])

    private static func makeBeaconStyle(_ name: String) -> BeaconStyle? {
        switch name {
        case "chime": return chime()
        case "marimba": return marimba()
        case "classic": return classic()
        case "pulse": return pulse()
        case "drop": return drop()
        case "pluck": return pluck()
        case "tap": return tap()
        case "shimmer": return shimmer()
        case "glow": return glow()
        default: return nil
        }
    }

    /// Four components (centre, offset, side, behind), six beats: the fuller the pattern, the closer to
    /// straight ahead.
    static func chime() -> BeaconStyle {
        let beats = 6
        let center = loop(beats: beats) { s, b in
            s.add(.bell, midi: [88, 83, 88, 83, 88, 92][b], at: beat * Double(b), seconds: 0.38, gain: 0.32)
            s.add(.chime, midi: 100, at: beat * Double(b) + 0.01, seconds: 0.12, gain: 0.06)
        }
        let offset = loop(beats: beats) { s, b in
            guard b % 2 == 0 else { return }
            s.add(.bell, midi: [88, 83, 88][b / 2], at: beat * Double(b), seconds: 0.38, gain: 0.32)
        }
        let side = loop(beats: beats) { s, b in
            guard b % 3 == 0 else { return }
            s.add(.bell, midi: 79, at: beat * Double(b), seconds: 0.45, gain: 0.3)
        }
        let behind = loop(beats: beats) { s, b in
            guard b == 0 else { return }
            s.add(.mellow, midi: 64, at: 0, seconds: 0.6, gain: 0.42)
        }
        return BeaconStyle(name: "Chime", beatsPerPhrase: beats, sampleRate: sampleRate,
                           components: [center, offset, side, behind], componentNames: ["center", "offset", "side", "behind"],
                           intro: melody([76, 79, 83, 88], beats: 4), outro: melody([88, 83, 79, 76, 71], beats: 6))
    }

    /// Three components (centre, offset, behind), six beats of wooden taps.
    static func marimba() -> BeaconStyle {
        let beats = 6
        let center = loop(beats: beats) { s, b in
            s.add(.marimba, midi: [84, 79, 84, 79, 84, 88][b], at: beat * Double(b), seconds: 0.3, gain: 0.5)
        }
        let offset = loop(beats: beats) { s, b in
            guard b % 3 == 0 else { return }
            s.add(.marimba, midi: 79, at: beat * Double(b), seconds: 0.3, gain: 0.5)
        }
        let behind = loop(beats: beats) { s, b in
            guard b == 0 else { return }
            s.add(.wood, midi: 60, at: 0, seconds: 0.3, gain: 0.5)
        }
        return BeaconStyle(name: "Marimba", beatsPerPhrase: beats, sampleRate: sampleRate,
                           components: [center, offset, behind], componentNames: ["center", "offset", "behind"],
                           intro: melody([72, 76, 79, 84], beats: 4), outro: melody([84, 79, 76, 72], beats: 6))
    }

    /// Two components (on axis, off axis), two beats at ≈102 beats per minute.
    static func classic() -> BeaconStyle {
        let beats = 2
        let classicBeat = 1.176 / 2
        let on = loop(beats: beats, beatLength: classicBeat) { s, b in
            s.add(.chime, midi: 91, at: classicBeat * Double(b), seconds: 0.3, gain: 0.4)
        }
        let off = loop(beats: beats, beatLength: classicBeat) { s, b in
            guard b == 0 else { return }
            s.add(.chime, midi: 79, at: 0, seconds: 0.35, gain: 0.4)
        }
        return BeaconStyle(name: "Classic", beatsPerPhrase: beats, sampleRate: sampleRate,
                           components: [on, off], componentNames: ["on_axis", "off_axis"], intro: nil, outro: nil)
    }

    /// One phrase that loops seamlessly: note tails running past the end are folded onto the start.
    static func loop(beats: Int, beatLength: Double = beat, _ body: (inout Score, Int) -> Void) -> [Float] {
        let frames = Int((Double(beats) * beatLength * Double(sampleRate)).rounded())
        let rounded = frames / beats * beats            // whole samples per beat
        var s = Score(frames: rounded + sampleRate)      // room for tails
        for b in 0..<beats { body(&s, b) }
        var out = Array(s.samples[0..<rounded])
        for i in rounded..<s.samples.count { out[(i - rounded) % rounded] += s.samples[i] }
        return out
    }

    static func melody(_ notes: [Int], beats: Int) -> [Float] {
        let frames = Int((Double(beats) * beat * Double(sampleRate)).rounded()) / beats * beats
        var s = Score(frames: frames)
        let step = Double(beats) * beat / Double(notes.count + 1)
        for (i, n) in notes.enumerated() { s.add(.bell, midi: n, at: step * Double(i), seconds: 0.7, gain: 0.3) }
        return s.finished()
    }

    // MARK: files

    /// Writes every earcon to `directory/NAME.wav` and every beacon style to `directory/Beacons/STYLE/…`.
    /// Returns the paths written.
    @discardableResult
    public static func writeAll(to directory: String, beacons: Bool = true) throws -> [String] {
        let fm = FileManager.default
        try fm.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var written: [String] = []
        for e in Earcon.allCases {
            let path = (directory as NSString).appendingPathComponent(e.rawValue + ".wav")
            try WAVFile.write(earcon(e), to: path)
            written.append(path)
        }
        if beacons {
            for name in BeaconStyle.builtInNames {
                guard let style = beaconStyle(named: name) else { continue }
                written += try style.write(to: (directory as NSString).appendingPathComponent("Beacons/\(style.name)"))
            }
        }
        return written
    }
}

/// A little sample-accurate score: notes of simple instruments added at times.
struct Score {
    enum Instrument { case bell, chime, marimba, wood, pluck, mellow, buzz, softSquare }
    var samples: [Float]
    let rate = Double(EarconSynthesizer.sampleRate)

    init(seconds: Double) { samples = [Float](repeating: 0, count: Int(seconds * Double(EarconSynthesizer.sampleRate))) }
    init(frames: Int) { samples = [Float](repeating: 0, count: frames) }

    static func hz(_ midi: Int) -> Double { 440 * pow(2, Double(midi - 69) / 12) }

    mutating func add(_ instrument: Instrument, midi: Int, at start: Double, seconds: Double, gain: Float) {
        let f = Self.hz(midi)
        // (partial ratio, amplitude, decay time constant in seconds)
        let partials: [(Double, Double, Double)]
        var attack = 0.004
        switch instrument {
        case .bell: partials = [(1, 1, seconds / 3), (2.0, 0.45, seconds / 5), (3.01, 0.22, seconds / 7), (4.16, 0.12, seconds / 10)]
        case .chime: partials = [(1, 1, seconds / 3), (2.76, 0.3, seconds / 6), (5.4, 0.1, seconds / 10)]
        case .marimba: partials = [(1, 1, seconds / 4), (3.93, 0.35, seconds / 12), (9.2, 0.08, seconds / 25)]; attack = 0.002
        case .wood: partials = [(1, 1, seconds / 5), (2.57, 0.5, seconds / 9), (4.9, 0.2, seconds / 15)]; attack = 0.001
        case .pluck:
            partials = (1...8).map { (k: Int) -> (Double, Double, Double) in
                let r = Double(k)
                return (r, 1.2 / (r * r), seconds / (2 + r))
            }
            attack = 0.002
        case .mellow: partials = [(1, 1, seconds / 3), (2, 0.2, seconds / 6)]; attack = 0.02
        case .buzz: partials = (1...9).map { (Double($0), 0.9 / Double($0), seconds) }; attack = 0.006
        case .softSquare: partials = stride(from: 1, through: 9, by: 2).map { (Double($0), 1 / Double($0), seconds) }; attack = 0.005
        }
        let sustained = instrument == .buzz || instrument == .softSquare
        let first = Int(start * rate)
        let count = Int((seconds + (sustained ? 0.01 : 0)) * rate)
        let release = 0.012
        for n in 0..<count where first + n < samples.count {
            let t = Double(n) / rate
            var v = 0.0
            for (ratio, amp, tau) in partials where f * ratio < 20_000 {
                v += amp * (sustained ? 1 : exp(-t / tau)) * sin(2 * .pi * f * ratio * t)
            }
            var env = min(1, t / attack)
            let end = seconds + (sustained ? 0.01 : 0)
            if end - t < release { env *= max(0, (end - t) / release) }
            samples[first + n] += gain * Float(v * env)
        }
    }

    /// A pitch glide; with `noise`, a breathy swish made of many detuned partials (deterministic).
    mutating func addGlide(from f0: Double, to f1: Double, at start: Double, seconds: Double, gain: Float, noise: Bool) {
        let first = Int(start * rate)
        let count = Int(seconds * rate)
        var phases = [Double](repeating: 0, count: noise ? 12 : 1)
        let ratios: [Double] = noise ? (0..<12).map { (k: Int) -> Double in
            let spread: Double = 0.1 * Double(k)
            let detune: Double = 0.013 * Double((k * 7) % 5)
            return 0.6 + spread + detune
        } : [1.0]
        for n in 0..<count where first + n < samples.count {
            let x = Double(n) / Double(count)
            let f = f0 * pow(f1 / f0, x)
            var v = 0.0
            for k in phases.indices {
                phases[k] += 2 * .pi * f * ratios[k] / rate
                v += sin(phases[k]) / Double(phases.count).squareRoot()
            }
            let env = sin(.pi * min(1, x * 1.0)) * (noise ? (1 - x) : 1)
            samples[first + n] += gain * Float(v * env)
        }
    }

    /// The samples, with a 2 ms fade at the end so no file ends on a click.
    func finished() -> [Float] {
        var out = samples
        let fade = min(out.count, Int(0.002 * rate))
        for i in 0..<fade { out[out.count - 1 - i] *= Float(i) / Float(fade) }
        return out
    }
}

/// Earcons for the engine: from `directory/NAME.wav` when present, otherwise synthesized. Cached.
public final class EarconLibrary: @unchecked Sendable {
    public let directory: String?
    private let lock = NSLock()
    private var cache: [Earcon: PCMBuffer] = [:]

    public init(directory: String? = nil) { self.directory = directory }

    public func buffer(for earcon: Earcon) -> PCMBuffer {
        lock.lock()
        defer { lock.unlock() }
        if let b = cache[earcon] { return b }
        var buffer: PCMBuffer?
        if let directory {
            let path = (directory as NSString).appendingPathComponent(earcon.rawValue + ".wav")
            buffer = try? WAVFile.read(path)
        }
        let b = buffer ?? EarconSynthesizer.earcon(earcon)
        cache[earcon] = b
        return b
    }
}
