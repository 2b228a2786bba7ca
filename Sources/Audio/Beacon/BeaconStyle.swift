import Foundation
import Geo

/// A beacon style as data (spec §4.3): mono components of equal length, each one phrase of
/// `beatsPerPhrase` beats, ordered from "straight ahead" to "behind", plus optional start and end
/// melodies.
public struct BeaconStyle: Sendable {
    public var name: String
    public var beatsPerPhrase: Int
    public var sampleRate: Int
    /// Phrase loops, centre first, "behind" (or off-axis) last; 2, 3 or 4 of them.
    public var components: [[Float]]
    public var componentNames: [String]
    public var intro: [Float]?
    public var outro: [Float]?

    public static let builtInNames = ["Chime", "Marimba", "Classic", "Pulse", "Drop", "Pluck", "Tap", "Shimmer", "Glow"]
    public static let defaultName = "Chime"

    public init(name: String, beatsPerPhrase: Int, sampleRate: Int, components: [[Float]], componentNames: [String]? = nil,
                intro: [Float]?, outro: [Float]?) {
        precondition((2...4).contains(components.count), "a beacon style has 2, 3 or 4 components")
        precondition(Set(components.map(\.count)).count == 1, "all components of a style have the same length")
        self.name = name
        self.beatsPerPhrase = beatsPerPhrase
        self.sampleRate = sampleRate
        self.components = components
        self.componentNames = componentNames ?? components.indices.map { "component\($0)" }
        self.intro = intro
        self.outro = outro
    }

    /// A built-in style, synthesized (deterministic).
    public static func builtIn(_ name: String = BeaconStyle.defaultName) -> BeaconStyle? {
        EarconSynthesizer.beaconStyle(named: name)
    }

    public var phraseFrames: Int { components[0].count }
    public var framesPerBeat: Int { phraseFrames / beatsPerPhrase }

    /// This style at another sample rate (every component resampled, lengths kept beat-exact).
    public func resampled(to rate: Int) -> BeaconStyle {
        guard rate != sampleRate else { return self }
        let r = Resampler(from: sampleRate, to: rate)
        let beatFrames = Int((Double(framesPerBeat) * Double(rate) / Double(sampleRate)).rounded())
        func fit(_ x: [Float], _ n: Int) -> [Float] {
            var y = r.process(x)
            if y.count < n { y += [Float](repeating: 0, count: n - y.count) } else { y.removeLast(y.count - n) }
            return y
        }
        return BeaconStyle(name: name, beatsPerPhrase: beatsPerPhrase, sampleRate: rate,
                           components: components.map { fit($0, beatFrames * beatsPerPhrase) }, componentNames: componentNames,
                           intro: intro.map { r.process($0) }, outro: outro.map { r.process($0) })
    }

    /// Which component plays for `angle` = (heading − bearing to the beacon), in degrees (spec §4.4);
    /// nil (no heading) picks the last one. `ringing` is the half-width of the centre window, 5…20°.
    public static func component(forAngle angle: Double?, componentCount: Int, ringing: Double = 15) -> Int {
        let last = componentCount - 1
        guard let angle, angle.isFinite else { return last }
        let t = min(max(ringing, 5), 20)
        let a = Angle.normalized(angle)
        let inCenter = a >= 360 - t || a <= t
        switch componentCount {
        case 4:
            if inCenter { return 0 }
            if (a >= 305 && a <= 360 - t) || (a >= t && a <= 55) { return 1 }
            if (a >= 235 && a <= 305) || (a >= 55 && a <= 125) { return 2 }
            return 3
        case 3:
            if inCenter { return 0 }
            if a <= 125 || a >= 235 { return 1 }
            return 2
        default:
            return inCenter ? 0 : last
        }
    }

    /// Writes the components and melodies as WAVs into `directory`; returns the paths.
    public func write(to directory: String) throws -> [String] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var paths: [String] = []
        func put(_ samples: [Float], _ file: String) throws {
            let p = (directory as NSString).appendingPathComponent(file)
            try WAVFile.write(PCMBuffer(sampleRate: sampleRate, channels: 1, samples: samples), to: p)
            paths.append(p)
        }
        for (i, c) in components.enumerated() { try put(c, "\(i)_\(componentNames[i]).wav") }
        if let intro { try put(intro, "start.wav") }
        if let outro { try put(outro, "end.wav") }
        return paths
    }

    /// Reads a style written by ``write(to:)`` (or made by hand: files `0_*.wav`, `1_*.wav`, … and
    /// optional `start.wav` / `end.wav`, all mono at one rate).
    public static func load(directory: String, beatsPerPhrase: Int) throws -> BeaconStyle {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        let parts = files.filter { $0.first?.isNumber == true && $0.hasSuffix(".wav") }
        let buffers = try parts.map { try WAVFile.read((directory as NSString).appendingPathComponent($0)) }
        let rate = buffers.first?.sampleRate ?? 48_000
        func mono(_ b: PCMBuffer) -> [Float] { b.channels == 1 ? b.samples : b.channel(0) }
        func optional(_ f: String) throws -> [Float]? {
            let p = (directory as NSString).appendingPathComponent(f)
            return FileManager.default.fileExists(atPath: p) ? mono(try WAVFile.read(p)) : nil
        }
        let n = buffers.map(\.frameCount).min() ?? 0
        return BeaconStyle(name: (directory as NSString).lastPathComponent, beatsPerPhrase: beatsPerPhrase, sampleRate: rate,
                           components: buffers.map { Array(mono($0).prefix(n)) },
                           componentNames: parts.map { String(($0 as NSString).deletingPathExtension.drop { $0 != "_" }.dropFirst()) },
                           intro: try optional("start.wav"), outro: try optional("end.wav"))
    }
}

/// A sound whose content changes while it plays, driven by the listener (spec §4.5).
public protocol DynamicSound: Sendable {
    var style: BeaconStyle { get }
}

/// The audio beacon: a looping, localized, beat-aligned sound at a place.
public struct BeaconSound: DynamicSound {
    public var style: BeaconStyle
    /// Where the beacon is (the destination's nearest point or entrance when audio was enabled).
    public var location: Coordinate
    /// Half-width of the centre window in degrees (5…20, default 15).
    public var ringingAngle: Double
    /// Play the style's start melody before the loop (setting "departure and arrival cues"; not when un-muting).
    public var playIntro: Bool

    public init(style: BeaconStyle, location: Coordinate, ringingAngle: Double = 15, playIntro: Bool = false) {
        self.style = style
        self.location = location
        self.ringingAngle = min(max(ringingAngle, 5), 20)
        self.playIntro = playIntro
    }
}

/// The render thread's copy of a style: raw pointers into memory the control side keeps alive.
final class BeaconAssets: @unchecked Sendable {
    let componentCount: Int
    let phraseFrames: Int
    let beats: Int
    let data: UnsafeMutablePointer<Float>     // components back to back
    let intro: UnsafeMutablePointer<Float>?
    let introFrames: Int
    let outro: UnsafeMutablePointer<Float>?
    let outroFrames: Int

    init(style: BeaconStyle) {
        componentCount = style.components.count
        beats = style.beatsPerPhrase
        phraseFrames = style.framesPerBeat * style.beatsPerPhrase
        data = .allocate(capacity: componentCount * phraseFrames)
        for (i, c) in style.components.enumerated() {
            for k in 0..<phraseFrames { data[i * phraseFrames + k] = k < c.count ? c[k] : 0 }
        }
        func copy(_ x: [Float]?) -> (UnsafeMutablePointer<Float>?, Int) {
            guard let x, !x.isEmpty else { return (nil, 0) }
            let p = UnsafeMutablePointer<Float>.allocate(capacity: x.count)
            p.initialize(from: x, count: x.count)
            return (p, x.count)
        }
        (intro, introFrames) = copy(style.intro)
        (outro, outroFrames) = copy(style.outro)
    }

    deinit {
        data.deallocate()
        intro?.deallocate()
        outro?.deallocate()
    }
}
