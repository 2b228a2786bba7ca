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
/// assistant itself), looks for the source again every second, and says when it is back.
public final class PulseMicrophone: AudioCapture {
    private var stream: PulseSimpleStream?
    /// The source recorded from: the chosen one, or the default source when the microphone was opened.
    public let sourceName: String?
    private let report: @Sendable (MicrophoneChange) -> Void
    private var framesSinceCheck = 0
    private var lostAt: ContinuousClock.Instant?
    private var lastTry: ContinuousClock.Instant?

    public enum MicrophoneChange: Sendable, Equatable {
        case lost(String)
        case back(String)
    }

    /// - Parameter source: a PulseAudio source name (`pactl list short sources`); nil for the default.
    public init(source: String? = nil, report: @escaping @Sendable (MicrophoneChange) -> Void = { _ in }) throws {
        stream = try Self.open(source)
        sourceName = source ?? PulseSourceProbe.defaultSource()
        self.report = report
    }

    private static func open(_ source: String?) throws -> PulseSimpleStream {
        try PulseSimpleStream(direction: .record, sampleRate: 16_000, channels: 1, device: source,
                              streamName: "Soundscape voice commands", latency: 0.02)
    }

    private var describedSource: String { sourceName.map { "the microphone (\($0))" } ?? "the microphone" }

    public func read(frames: Int) throws -> [Int16] {
        if let stream, lostAt == nil {
            do {
                let samples = try stream.read(frames: frames)
                framesSinceCheck += frames
                // Once a second, make sure the stream still records from our source.
                if framesSinceCheck >= 16_000 {
                    framesSinceCheck = 0
                    if let sourceName, PulseSourceProbe.sourceExists(sourceName) == false {
                        lose("\(describedSource) is gone")
                        return [Int16](repeating: 0, count: frames)
                    }
                }
                return samples.map { Int16(max(-32768, min(32767, ($0 * 32767).rounded()))) }
            } catch {
                lose("\(describedSource) stopped: \(error)")
            }
        }
        // Lost: silence at the pace of real audio, and another try every second.
        Thread.sleep(forTimeInterval: Double(frames) / 16_000)
        let now = ContinuousClock.now
        if lastTry.map({ now - $0 >= .seconds(1) }) ?? true {
            lastTry = now
            if sourceName.map({ PulseSourceProbe.sourceExists($0) == true }) ?? true, let reopened = try? Self.open(sourceName) {
                stream = reopened
                lostAt = nil
                framesSinceCheck = 0
                report(.back("Microphone is back; voice commands work again."))
            }
        }
        return [Int16](repeating: 0, count: frames)
    }

    private func lose(_ why: String) {
        stream = nil
        lostAt = .now
        lastTry = .now
        report(.lost("\(why); voice commands are off until it is back, type commands instead."))
    }
}

/// Asks the sound server about its sources (the asynchronous API on a private main loop, blocking for at most
/// a second). nil when the server does not answer.
enum PulseSourceProbe {
    static func sourceExists(_ name: String) -> Bool? {
        final class Box { var found: Bool? }
        let box = Box()
        let ok = withContext { context, mainloop in
            let op = name.withCString { cName in
                pa_context_get_source_info_by_name(context, cName, { _, info, eol, userdata in
                    let box = Unmanaged<Box>.fromOpaque(userdata!).takeUnretainedValue()
                    if info != nil { box.found = true } else if eol != 0, box.found == nil { box.found = false }
                }, Unmanaged.passUnretained(box).toOpaque())
            }
            return wait(for: op, mainloop) { box.found != nil }
        }
        return ok ? box.found : nil
    }

    static func defaultSource() -> String? {
        final class Box { var name: String?; var done = false }
        let box = Box()
        _ = withContext { context, mainloop in
            let op = pa_context_get_server_info(context, { _, info, userdata in
                let box = Unmanaged<Box>.fromOpaque(userdata!).takeUnretainedValue()
                if let cName = info?.pointee.default_source_name { box.name = String(cString: cName) }
                box.done = true
            }, Unmanaged.passUnretained(box).toOpaque())
            return wait(for: op, mainloop) { box.done }
        }
        return box.name
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
