import Foundation

/// What a sound needs while it is prepared (off the render thread).
public struct SoundContext: @unchecked Sendable {
    /// The output rate every sound is converted to.
    public var sampleRate: Int
    public var synthesizer: EspeakSynthesizer?
    public var voice: VoiceSettings
    public var earcons: EarconLibrary
    public var levels: AudioLevels

    public init(sampleRate: Int = 48_000, synthesizer: EspeakSynthesizer?, voice: VoiceSettings = VoiceSettings(),
                earcons: EarconLibrary, levels: AudioLevels = AudioLevels()) {
        self.sampleRate = sampleRate
        self.synthesizer = synthesizer
        self.voice = voice
        self.earcons = earcons
        self.levels = levels
    }
}

/// Errors while preparing a sound.
public enum SoundError: Error, CustomStringConvertible, Equatable {
    case noSynthesizer(text: String)
    case missingFile(String)

    public var description: String {
        switch self {
        case .noSynthesizer(let t): return "cannot speak \"\(t)\": no speech synthesizer was given to the audio engine"
        case .missingFile(let p): return "\(p): sound file not found"
        }
    }
}

/// Where a sound writes its samples: converts rate and channel count and applies a level, then
/// publishes to the stream the render thread reads.
public final class SoundSink: @unchecked Sendable {
    public let stream: SampleStream
    public let sampleRate: Int

    init(stream: SampleStream, sampleRate: Int) {
        self.stream = stream
        self.sampleRate = sampleRate
    }

    /// True once the sound has been stopped; long producers should stop early.
    public var isCancelled: Bool { stream.isCancelled }

    /// Appends a whole buffer, resampled to the output rate and scaled by `gain`.
    public func append(_ buffer: PCMBuffer, gain: Float = 1) {
        var b = buffer
        if b.sampleRate != sampleRate { b = Resampler(from: b.sampleRate, to: sampleRate).process(b) }
        if gain != 1 { for i in b.samples.indices { b.samples[i] *= gain } }
        stream.append(b.samples, sourceChannels: b.channels)
    }

    /// Appends mono samples already at the output rate.
    public func appendMono(_ samples: [Float]) { stream.append(samples, sourceChannels: 1) }
}

/// Something the engine can play: it writes its audio into a sink, as fast as it can. Speech streams
/// chunk by chunk, so playback starts before synthesis ends.
public protocol Sound: Sendable, CustomStringConvertible {
    func render(into sink: SoundSink, context: SoundContext) throws
}

/// Speech from espeak-ng, streamed as it is synthesized. Plain text is escaped and wrapped in SSML, so
/// a name like "Fish & Chips <Deli>" is spoken as written.
public struct TTSSound: Sound {
    public var text: String
    public var isSSML: Bool
    /// Overrides the engine's voice settings for this utterance.
    public var voice: VoiceSettings?

    public init(_ text: String, voice: VoiceSettings? = nil) {
        self.text = text
        self.isSSML = false
        self.voice = voice
    }

    /// Speech from SSML whose plain parts already went through ``SSML/escape(_:)``.
    public init(ssml: String, voice: VoiceSettings? = nil) {
        self.text = ssml
        self.isSSML = true
        self.voice = voice
    }

    public var description: String { "speech \"\(text)\"" }

    /// The document handed to espeak-ng.
    public var ssmlDocument: String {
        if isSSML { return text.hasPrefix("<speak") ? text : SSML.document(text) }
        return SSML.document(SSML.escape(text))
    }

    public func render(into sink: SoundSink, context: SoundContext) throws {
        guard let synthesizer = context.synthesizer else { throw SoundError.noSynthesizer(text: text) }
        let resampler = StreamingResampler(from: synthesizer.sampleRate, to: sink.sampleRate)
        let gain = context.levels.speech / 32_768
        var floats = [Float]()
        try synthesizer.synthesize(ssmlDocument, voice: voice ?? context.voice, ssml: true) { chunk in
            if sink.isCancelled { return false }
            floats.removeAll(keepingCapacity: true)
            for s in chunk { floats.append(Float(s) * gain) }
            let out = resampler.process(floats)
            if !out.isEmpty { sink.appendMono(out) }
            return true
        }
        if !sink.isCancelled { sink.appendMono(resampler.finish()) }
    }
}

/// A sound from a WAV file (any rate; 16-bit or float), at the earcon level.
public struct GenericSound: Sound {
    public var path: String
    public var gain: Float

    public init(path: String, gain: Float = 1) {
        self.path = path
        self.gain = gain
    }

    public var description: String { "file \((path as NSString).lastPathComponent)" }

    public func render(into sink: SoundSink, context: SoundContext) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw SoundError.missingFile(path) }
        sink.append(try WAVFile.read(path), gain: gain * context.levels.earcons)
    }
}

/// Audio already in memory (tests, generated tones), played at the given gain (no level applied).
public struct BufferSound: Sound {
    public var buffer: PCMBuffer
    public var gain: Float
    public init(_ buffer: PCMBuffer, gain: Float = 1) {
        self.buffer = buffer
        self.gain = gain
    }
    public var description: String { "buffer of \(String(format: "%.2f", buffer.duration)) s" }
    public func render(into sink: SoundSink, context: SoundContext) throws { sink.append(buffer, gain: gain) }
}

/// One of the program's earcons (from `Sounds/`, or synthesized when the file is missing).
public struct GlyphSound: Sound {
    public var earcon: Earcon
    public var gain: Float
    public init(_ earcon: Earcon, gain: Float = 1) {
        self.earcon = earcon
        self.gain = gain
    }
    public var description: String { "earcon \(earcon.rawValue)" }
    public func render(into sink: SoundSink, context: SoundContext) throws {
        sink.append(context.earcons.buffer(for: earcon), gain: gain * context.levels.earcons)
    }
}

/// Sounds back to back, as one sound (e.g. an earcon, then a sentence).
public struct ConcatenatedSound: Sound {
    public var parts: [any Sound]
    public init(_ parts: [any Sound]) { self.parts = parts }
    public init(_ parts: any Sound...) { self.parts = parts }
    public var description: String { parts.map(\.description).joined(separator: " + ") }
    public func render(into sink: SoundSink, context: SoundContext) throws {
        for part in parts where !sink.isCancelled { try part.render(into: sink, context: context) }
    }
}

/// Sounds at the same time, mixed into one (e.g. the beacon-found earcon under a sentence).
/// Each layer is prepared whole before the mix starts.
public struct LayeredSound: Sound {
    public var layers: [any Sound]
    public init(_ layers: [any Sound]) { self.layers = layers }
    public init(_ layers: any Sound...) { self.layers = layers }
    public var description: String { layers.map(\.description).joined(separator: " with ") }
    public func render(into sink: SoundSink, context: SoundContext) throws {
        let channels = sink.stream.channels
        var mix = [Float]()
        for layer in layers {
            let part = SoundSink(stream: SampleStream(channels: channels), sampleRate: sink.sampleRate)
            try layer.render(into: part, context: context)
            let samples = part.stream.snapshot()
            if samples.count > mix.count { mix.append(contentsOf: [Float](repeating: 0, count: samples.count - mix.count)) }
            for i in samples.indices { mix[i] += samples[i] }
        }
        sink.stream.append(mix, sourceChannels: channels)
    }
}

/// Silence of a given length (a pause between parts of a concatenated sound).
public struct SilenceSound: Sound {
    public var seconds: Double
    public init(seconds: Double) { self.seconds = seconds }
    public var description: String { "\(seconds) s of silence" }
    public func render(into sink: SoundSink, context: SoundContext) throws {
        sink.appendMono([Float](repeating: 0, count: Int(seconds * Double(sink.sampleRate))))
    }
}
