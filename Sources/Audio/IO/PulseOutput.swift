import CPulseAudio
import Foundation
import Logging
import Synchronization

/// Real-time output to PulseAudio (or PipeWire's PulseAudio server) with the asynchronous API.
///
/// A threaded main loop runs PulseAudio's callbacks; its write callback copies rendered frames from a
/// lock-free FIFO (filled by the engine's render thread) into the stream, padding with silence if the
/// FIFO runs dry. The stream carries `application.name` and `media.role` (default "a11y") so the
/// desktop can route and duck it; it never asks for exclusive use of the device. When the server goes
/// away (crash, restart, `pulseaudio -k`) a supervisor thread tears the connection down and reconnects
/// with back-off (0.1 s doubling to 2 s); meanwhile the render thread keeps time with the clock.
public final class PulseOutput: @unchecked Sendable {
    public struct Options: Sendable, Equatable {
        /// Server address; nil for the default (`PULSE_SERVER` or the user's runtime directory).
        public var server: String?
        /// Sink name; nil for the server's default sink.
        public var sink: String?
        public var applicationName: String
        public var streamName: String
        /// PulseAudio media role: "a11y" (screen-reader-like), "event", "phone", …
        public var mediaRole: String
        /// Target length of the server-side buffer in seconds.
        public var targetLatency: Double
        public var sampleRate: Int

        public init(server: String? = nil, sink: String? = nil, applicationName: String = "Soundscape",
                    streamName: String = "Soundscape", mediaRole: String = "a11y", targetLatency: Double = 0.010,
                    sampleRate: Int = 48_000) {
            self.server = server
            self.sink = sink
            self.applicationName = applicationName
            self.streamName = streamName
            self.mediaRole = mediaRole
            self.targetLatency = targetLatency
            self.sampleRate = sampleRate
        }
    }

    public let options: Options
    let fifo: FrameFIFO
    /// Signalled after every write callback, so the render thread refills the FIFO.
    let consumed = DispatchSemaphore(value: 0)
    private let connected = Atomic<Bool>(false)
    private let failed = Atomic<Bool>(false)
    private let running = Atomic<Bool>(true)
    /// Blocks of silence padded because the FIFO was empty.
    public let underruns = Atomic<Int>(0)
    /// Successful connections so far (1 after the first; +1 for every reconnection).
    public let connections = Atomic<Int>(0)
    /// Largest single request (frames) the server has made; the render thread keeps this much ahead.
    let largestRequest = Atomic<Int>(0)
    /// True while the stream is to be paused (nothing sounds): the server asks for no data, so neither its thread
    /// nor the render thread wakes. A reconnected stream starts corked when this is set.
    private let corked = Atomic<Bool>(false)
    private let logger = Logger(label: "soundscape.audio.pulse")

    // Owned by the supervisor thread (and the PulseAudio thread under the main-loop lock).
    private var mainloop: OpaquePointer?
    /// Held while the supervisor frees the main loop, and while another thread uses it (``setCorked(_:)``).
    private let loopLock = NSLock()
    private var context: OpaquePointer?
    private var stream: OpaquePointer?
    private var supervisor: Thread?
    private let supervisorDone = DispatchSemaphore(value: 0)
    private let wake = DispatchSemaphore(value: 0)
    private let firstAttempt = DispatchSemaphore(value: 0)

    public init(options: Options = Options(), fifoFrames: Int = 8_192) {
        self.options = options
        fifo = FrameFIFO(capacityFrames: fifoFrames, channels: 2)
        signal(SIGPIPE, SIG_IGN)
    }

    deinit { stop() }

    public var isConnected: Bool { connected.load(ordering: .acquiring) }

    /// Starts connecting (in the background). Waits up to `wait` seconds for the first attempt.
    func start(wait: Double = 2) {
        let t = Thread { [unowned self] in self.supervise() }
        t.name = "soundscape-pulse-supervisor"
        supervisor = t
        t.start()
        _ = firstAttempt.wait(timeout: .now() + wait)
    }

    /// Disconnects and stops the supervisor.
    func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        wake.signal()
        if supervisor != nil { supervisorDone.wait() }
        consumed.signal()
    }

    /// True while the stream is paused because nothing sounds (see ``setCorked(_:)``).
    var isCorked: Bool { corked.load(ordering: .acquiring) }

    /// Pauses the stream when nothing sounds (`true`), or lets it play again. Uncorking wakes the render thread.
    /// Called by the engine's control side (never the render thread); takes the main-loop lock briefly.
    func setCorked(_ value: Bool) {
        guard corked.exchange(value, ordering: .acquiringAndReleasing) != value else { return }
        loopLock.lock()
        defer { loopLock.unlock() }
        if isConnected, let ml = mainloop {
            pa_threaded_mainloop_lock(ml)
            if let s = stream, pa_stream_get_state(s) == PA_STREAM_READY {
                if let op = pa_stream_cork(s, value ? 1 : 0, nil, nil) { pa_operation_unref(op) }
            }
            pa_threaded_mainloop_unlock(ml)
        }
        if !value { consumed.signal() }
    }

    /// Playback latency the server reports (time until a frame written now is heard), in seconds.
    public func latency() -> Double? {
        guard isConnected, let ml = mainloop else { return nil }
        pa_threaded_mainloop_lock(ml)
        defer { pa_threaded_mainloop_unlock(ml) }
        guard let s = stream else { return nil }
        var usec: pa_usec_t = 0
        var negative: Int32 = 0
        guard pa_stream_get_latency(s, &usec, &negative) == 0 else { return nil }
        return negative != 0 ? 0 : Double(usec) / 1_000_000
    }

    // MARK: supervisor

    private func supervise() {
        var backoff = 0.1
        var signalled = false
        while running.load(ordering: .acquiring) {
            if !connected.load(ordering: .acquiring) || failed.load(ordering: .acquiring) {
                let wasConnected = mainloop != nil
                teardown()
                if wasConnected { logger.warning("PulseAudio connection lost; reconnecting") }
                if connect() {
                    backoff = 0.1
                    let n = connections.wrappingAdd(1, ordering: .relaxed).newValue
                    if n > 1 { logger.notice("PulseAudio reconnected") }
                } else {
                    teardown()
                    if !signalled { signalled = true; firstAttempt.signal() }
                    // A failed attempt may have signalled `wake` (the context callback does); those signals are
                    // about the attempt just torn down, so drop them, then really wait out the back-off —
                    // otherwise a missing server turns this loop into a busy spin.
                    while wake.wait(timeout: .now()) == .success {}
                    let until = DispatchTime.now() + backoff
                    while running.load(ordering: .acquiring) && DispatchTime.now() < until {
                        _ = wake.wait(timeout: min(until, .now() + 0.05))
                    }
                    backoff = min(backoff * 2, 2)
                    continue
                }
                if !signalled { signalled = true; firstAttempt.signal() }
            }
            // Connected: the state callbacks signal `wake` when the connection fails, and `stop()` signals it.
            wake.wait()
        }
        teardown()
        supervisorDone.signal()
    }

    private func teardown() {
        connected.store(false, ordering: .releasing)
        loopLock.lock()
        defer { loopLock.unlock() }
        guard let ml = mainloop else { return }
        pa_threaded_mainloop_stop(ml)
        if let s = stream {
            pa_stream_set_write_callback(s, nil, nil)
            pa_stream_set_state_callback(s, nil, nil)
            pa_stream_disconnect(s)
            pa_stream_unref(s)
        }
        if let c = context {
            pa_context_set_state_callback(c, nil, nil)
            pa_context_disconnect(c)
            pa_context_unref(c)
        }
        pa_threaded_mainloop_free(ml)
        stream = nil
        context = nil
        mainloop = nil
        failed.store(false, ordering: .releasing)
    }

    /// One connection attempt; true when the stream is playing.
    private func connect() -> Bool {
        guard let ml = pa_threaded_mainloop_new() else { return false }
        mainloop = ml
        let me = Unmanaged.passUnretained(self).toOpaque()
        let props = pa_proplist_new()
        defer { pa_proplist_free(props) }
        pa_proplist_sets(props, "application.name", options.applicationName)
        pa_proplist_sets(props, "application.id", "org.soundscape.linux")
        pa_proplist_sets(props, "media.role", options.mediaRole)
        guard let ctx = pa_context_new_with_proplist(pa_threaded_mainloop_get_api(ml), options.applicationName, props) else { return false }
        context = ctx
        pa_context_set_state_callback(ctx, { c, userdata in
            guard let userdata else { return }
            let me = Unmanaged<PulseOutput>.fromOpaque(userdata).takeUnretainedValue()
            let state = pa_context_get_state(c)
            if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
                me.connected.store(false, ordering: .releasing)
                me.failed.store(true, ordering: .releasing)
                me.wake.signal()
            }
            if let ml = me.mainloop { pa_threaded_mainloop_signal(ml, 0) }
        }, me)
        guard pa_context_connect(ctx, options.server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else { return false }
        pa_threaded_mainloop_lock(ml)
        guard pa_threaded_mainloop_start(ml) >= 0 else { pa_threaded_mainloop_unlock(ml); return false }
        while true {
            let state = pa_context_get_state(ctx)
            if state == PA_CONTEXT_READY { break }
            if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED { pa_threaded_mainloop_unlock(ml); return false }
            pa_threaded_mainloop_wait(ml)
        }
        var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(options.sampleRate), channels: 2)
        var map = pa_channel_map()
        pa_channel_map_init_stereo(&map)
        let sprops = pa_proplist_new()
        defer { pa_proplist_free(sprops) }
        pa_proplist_sets(sprops, "media.role", options.mediaRole)
        pa_proplist_sets(sprops, "media.name", options.streamName)
        guard let s = pa_stream_new_with_proplist(ctx, options.streamName, &spec, &map, sprops) else {
            pa_threaded_mainloop_unlock(ml); return false
        }
        stream = s
        pa_stream_set_state_callback(s, { st, userdata in
            guard let userdata else { return }
            let me = Unmanaged<PulseOutput>.fromOpaque(userdata).takeUnretainedValue()
            let state = pa_stream_get_state(st)
            if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED {
                me.connected.store(false, ordering: .releasing)
                me.failed.store(true, ordering: .releasing)
                me.wake.signal()
            }
            if let ml = me.mainloop { pa_threaded_mainloop_signal(ml, 0) }
        }, me)
        pa_stream_set_write_callback(s, { st, nbytes, userdata in
            guard let userdata, let st else { return }
            Unmanaged<PulseOutput>.fromOpaque(userdata).takeUnretainedValue().write(stream: st, bytes: nbytes)
        }, me)
        let bytesPerFrame = 8
        let tlength = UInt32(Double(options.sampleRate) * options.targetLatency) * UInt32(bytesPerFrame)
        var attr = pa_buffer_attr(maxlength: UInt32.max, tlength: tlength, prebuf: UInt32.max,
                                  minreq: UInt32.max, fragsize: UInt32.max)
        let startCorked = corked.load(ordering: .acquiring)
        let flags = pa_stream_flags_t(rawValue: PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_AUTO_TIMING_UPDATE.rawValue
                                      | PA_STREAM_INTERPOLATE_TIMING.rawValue
                                      | (startCorked ? PA_STREAM_START_CORKED.rawValue : 0))
        guard pa_stream_connect_playback(s, options.sink, &attr, flags, nil, nil) >= 0 else {
            pa_threaded_mainloop_unlock(ml); return false
        }
        while true {
            let state = pa_stream_get_state(s)
            if state == PA_STREAM_READY { break }
            if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED { pa_threaded_mainloop_unlock(ml); return false }
            pa_threaded_mainloop_wait(ml)
        }
        connected.store(true, ordering: .releasing)
        // Corked or uncorked while connecting: the stream follows the latest wish.
        let wantCorked = corked.load(ordering: .acquiring)
        if wantCorked != startCorked, let op = pa_stream_cork(s, wantCorked ? 1 : 0, nil, nil) { pa_operation_unref(op) }
        pa_threaded_mainloop_unlock(ml)
        consumed.signal()
        return true
    }

    /// The write callback (PulseAudio's thread, main-loop lock held): FIFO → stream, silence if short.
    private func write(stream s: OpaquePointer, bytes: Int) {
        var remaining = bytes
        while remaining >= 8 {
            var data: UnsafeMutableRawPointer?
            var size = remaining
            guard pa_stream_begin_write(s, &data, &size) == 0, let data, size >= 8 else { return }
            let frames = min(size, remaining) / 8
            if frames > largestRequest.load(ordering: .relaxed) { largestRequest.store(frames, ordering: .relaxed) }
            let out = data.bindMemory(to: Float.self, capacity: frames * 2)
            let got = fifo.read(into: out, frames: frames)
            if got < frames {
                (out + got * 2).update(repeating: 0, count: (frames - got) * 2)
                if connections.load(ordering: .relaxed) > 0 { underruns.wrappingAdd(1, ordering: .relaxed) }
            }
            pa_stream_write(s, data, frames * 8, nil, 0, PA_SEEK_RELATIVE)
            remaining -= frames * 8
        }
        consumed.signal()
    }
}
