import Audio
import CPulseAudio
import Foundation
import Speech

/// The microphone: a PulseAudio recording stream (default source or a chosen one) at 16 kHz mono,
/// with 20 ms fragments so a push-to-talk release is noticed quickly.
///
/// When the source goes away (a headset unplugged, its module unloaded, the sound server restarted) the
/// microphone says so once through `report`, delivers silence instead of failing (PulseAudio would otherwise
/// move the stream to another source, such as the speakers' monitor, and the recognizer would hear the
/// assistant itself), looks for a source again every second, and says when it records again.
///
/// Without a chosen source it follows the sound server's default microphone: when the headset's battery dies it
/// goes on with the laptop's microphone as soon as that is the default, and when a headset is plugged in and
/// becomes the default, it moves to the headset. It never follows the default to a monitor of an output.
/// A chosen source (`--mic`) is waited for.
public final class PulseMicrophone: AudioCapture {
    private var stream: PulseSimpleStream?
    /// The source recorded from (or last recorded from, while lost): the chosen one, or the default source.
    public private(set) var sourceName: String?
    /// How the source is named when spoken of: its description when the server gave one, else its name.
    private var spokenSource: String?
    /// True when no source was chosen: the default source is followed.
    public let followsDefault: Bool
    private let report: @Sendable (MicrophoneChange) -> Void
    private var framesSinceCheck = 0
    private var lostAt: ContinuousClock.Instant?
    private var lastTry: ContinuousClock.Instant?

    public enum MicrophoneChange: Sendable, Equatable {
        /// The microphone went away; the message says so and what to do meanwhile.
        case lost(String)
        /// Recording again, from `source`: the same source come back, or another one that is now the default.
        case back(String, source: String)
    }

    /// - Parameter source: a PulseAudio source name (`pactl list short sources`); nil for the default.
    public init(source: String? = nil, report: @escaping @Sendable (MicrophoneChange) -> Void = { _ in }) throws {
        followsDefault = source == nil
        self.report = report
        let sources = PulseSourceProbe.sources()
        guard source == nil, let sources else {
            stream = try Self.open(source)
            sourceName = source ?? sources?.defaultName
            spokenSource = sourceName.flatMap { sources?.named($0)?.spokenName }
            return
        }
        // The default source, by name, so that the sound server cannot move the stream to a monitor later.
        if let usable = sources.usableDefault {
            stream = try Self.open(usable.name)
            sourceName = usable.name
            spokenSource = usable.spokenName
        } else {
            // No microphone, only monitors of outputs (or nothing): wait for one rather than hear ourselves.
            stream = nil
            sourceName = sources.defaultName
            lostAt = .now
            lastTry = .now
            report(.lost("there is no microphone; voice commands are off until one is plugged in, type commands instead."))
        }
    }

    private static func open(_ source: String?) throws -> PulseSimpleStream {
        try PulseSimpleStream(direction: .record, sampleRate: 16_000, channels: 1, device: source,
                              streamName: "Soundscape voice commands", latency: 0.02)
    }

    /// "microphone (Headset)", for sentences that put "the" or "The" before it.
    private var microphoneWords: String { (spokenSource ?? sourceName).map { "microphone (\($0))" } ?? "microphone" }

    public func read(frames: Int) throws -> [Int16] {
        if let stream, lostAt == nil {
            do {
                let samples = try stream.read(frames: frames)
                framesSinceCheck += frames
                // Once a second, make sure the stream still records from our source, and that the default has
                // not moved to another microphone.
                if framesSinceCheck >= 16_000 {
                    framesSinceCheck = 0
                    if !stillRecording() { return [Int16](repeating: 0, count: frames) }
                }
                return samples.map { Int16(max(-32768, min(32767, ($0 * 32767).rounded()))) }
            } catch {
                lose("the \(microphoneWords) stopped: \(error)")
            }
        }
        // Lost: silence at the pace of real audio, and another try every second.
        Thread.sleep(forTimeInterval: Double(frames) / 16_000)
        let now = ContinuousClock.now
        if lastTry.map({ now - $0 >= .seconds(1) }) ?? true {
            lastTry = now
            let sources = PulseSourceProbe.sources()
            if followsDefault {
                if let usable = sources?.usableDefault { _ = switchTo(usable, because: "Now", resuming: true) }
            } else if let sourceName {
                // The chosen source, once the server lists it again; a server that does not answer the question
                // may still record from it, so then it is tried anyway.
                switch sources.map({ $0.named(sourceName) }) {
                case .some(.none): break
                case .some(.some(let listed)): _ = switchTo(listed, because: "Now", resuming: true)
                case .none:
                    _ = switchTo(PulseSourceProbe.Source(name: sourceName, description: spokenSource ?? "", isMonitor: false),
                                 because: "Now", resuming: true)
                }
            }
        }
        return [Int16](repeating: 0, count: frames)
    }

    /// The once-a-second check while recording: false when the source is gone and no other microphone can take its
    /// place (then the microphone is lost); moves to the default microphone when that has changed.
    private func stillRecording() -> Bool {
        guard let sources = PulseSourceProbe.sources() else { return true }
        let gone = sourceName.map { sources.named($0) == nil } ?? false
        // Straight to the new default microphone when there is one; lost when there is none.
        if followsDefault, let usable = sources.usableDefault, usable.name != sourceName,
           switchTo(usable, because: gone ? "The \(microphoneWords) is gone; now" : "Now") {
            return true
        }
        if gone { lose("the \(microphoneWords) is gone") }
        return !gone
    }

    /// Records from `source` from now on and says so (`because`: how the sentence starts when it is another source
    /// than before); false, with nothing changed, when it cannot be opened.
    private func switchTo(_ source: PulseSourceProbe.Source, because: String, resuming: Bool = false) -> Bool {
        guard let reopened = try? Self.open(source.name) else { return false }
        let same = source.name == sourceName
        stream = reopened
        lostAt = nil
        framesSinceCheck = 0
        sourceName = source.name
        spokenSource = source.spokenName
        let message = same ? "Microphone is back; voice commands work again."
            : "\(because) listening through \(source.spokenName)\(resuming ? "; voice commands work again" : "")."
        report(.back(message, source: source.name))
        return true
    }

    private func lose(_ why: String) {
        stream = nil
        lostAt = .now
        lastTry = .now
        report(.lost("\(why); voice commands are off until \(followsDefault ? "a microphone" : "it") is back, type commands instead."))
    }
}

/// Asks the sound server about its sources (the asynchronous API on a private main loop, blocking for at most
/// a second). nil when the server does not answer.
enum PulseSourceProbe {
    /// A source as the sound server describes it.
    struct Source: Sendable, Equatable {
        var name: String
        /// The description a person gave it or the driver made ("Built-in Audio Analog Stereo"); may be empty.
        var description: String
        /// A monitor of an output (what the speakers play), not a microphone.
        var isMonitor: Bool
        /// What to say: the description, or the name when there is none.
        var spokenName: String { description.isEmpty ? name : description }
    }

    /// The server's sources and its default source, asked over one connection.
    struct Sources: Sendable, Equatable {
        var all: [Source]
        var defaultName: String?
        func named(_ name: String) -> Source? { all.first { $0.name == name } }
        /// The default source when it is a microphone (not a monitor of an output).
        var usableDefault: Source? { defaultName.flatMap(named).flatMap { $0.isMonitor ? nil : $0 } }
    }

    /// Every source and the default one; nil when the server does not answer.
    static func sources() -> Sources? {
        final class Box { var list: [Source] = []; var listDone = false; var defaultName: String?; var serverDone = false }
        let box = Box()
        let ok = withContext { context, mainloop in
            let me = Unmanaged.passUnretained(box).toOpaque()
            let server = pa_context_get_server_info(context, { _, info, userdata in
                let box = Unmanaged<Box>.fromOpaque(userdata!).takeUnretainedValue()
                if let cName = info?.pointee.default_source_name { box.defaultName = String(cString: cName) }
                box.serverDone = true
            }, me)
            guard wait(for: server, mainloop, until: { box.serverDone }) else { return false }
            let list = pa_context_get_source_info_list(context, { _, info, eol, userdata in
                let box = Unmanaged<Box>.fromOpaque(userdata!).takeUnretainedValue()
                if let info = info?.pointee, let cName = info.name {
                    box.list.append(Source(name: String(cString: cName), description: info.description.map { String(cString: $0) } ?? "",
                                           isMonitor: info.monitor_of_sink != UInt32.max))
                }
                if eol != 0 { box.listDone = true }
            }, me)
            return wait(for: list, mainloop, until: { box.listDone })
        }
        return ok ? Sources(all: box.list, defaultName: box.defaultName) : nil
    }

    private static func wait(for op: OpaquePointer?, _ mainloop: OpaquePointer, until done: () -> Bool) -> Bool {
        guard let op else { return false }
        defer { pa_operation_unref(op) }
        let deadline = ContinuousClock.now + .seconds(1)
        while !done() && ContinuousClock.now < deadline {
            if pa_mainloop_iterate(mainloop, 0, nil) < 0 { return false }
            if !done() { usleep(1_000) }
        }
        return done()
    }

    /// Connects a context on a private main loop, runs `body` once it is ready, then disconnects.
    private static func withContext(_ body: (OpaquePointer, OpaquePointer) -> Bool) -> Bool {
        guard let mainloop = pa_mainloop_new() else { return false }
        defer { pa_mainloop_free(mainloop) }
        guard let context = pa_context_new(pa_mainloop_get_api(mainloop), "Soundscape microphone check") else { return false }
        defer { pa_context_disconnect(context); pa_context_unref(context) }
        guard pa_context_connect(context, nil, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else { return false }
        let deadline = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < deadline {
            let state = pa_context_get_state(context)
            if state == PA_CONTEXT_READY { return body(context, mainloop) }
            if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED { return false }
            if pa_mainloop_iterate(mainloop, 0, nil) < 0 { return false }
            usleep(1_000)
        }
        return false
    }
}
