import Foundation
import Geo
import Logging
import Synchronization

/// The audio engine: a queue of discrete sounds (callouts, earcons), the audio beacon, a spatial mixer
/// with HRTF rendering, and an output — PulseAudio in real time, or memory (`say --wav`).
///
/// Discrete sounds given to ``play(_:type:)`` play one after another in the order they were queued;
/// each call returns when its own sound ended (``PlaybackResult``). ``stopAll(hush:)`` interrupts the
/// current sound and drops the queue (optionally playing the hush earcon); ``clear()`` drops only the
/// queue. The beacon plays independently, on top.
public final class AudioEngine: @unchecked Sendable {
    public enum Output: Sendable {
        /// Real time into PulseAudio.
        case pulseAudio(PulseOutput.Options)
        /// Real time, but nowhere (the render thread keeps time with the clock). For benchmarks and machines without sound.
        case null
        /// Not real time: sounds are rendered as fast as possible into a recording (see ``recording()``).
        case offline
    }

    public struct Configuration: Sendable {
        public var output: Output
        /// SOFA file with the HRTF (default: MIT KEMAR from Debian's libmysofa1).
        public var sofaPath: String
        /// Filter length per ear after trimming, and the direction grid in degrees.
        public var hrtfTaps: Int
        public var hrtfResolution: Double
        /// Frames per render block (a multiple of 32).
        public var blockFrames: Int
        public var sampleRate: Int
        public var maxVoices: Int
        /// Folder with the earcon WAVs (`Sounds/`); missing files are synthesized.
        public var soundsDirectory: String?
        public var voice: VoiceSettings
        public var levels: AudioLevels

        public init(output: Output = .pulseAudio(PulseOutput.Options()), sofaPath: String = SOFAHRTF.debianDefaultPath,
                    hrtfTaps: Int = 128, hrtfResolution: Double = 5, blockFrames: Int = 256, sampleRate: Int = 48_000,
                    maxVoices: Int = 32, soundsDirectory: String? = nil, voice: VoiceSettings = VoiceSettings(),
                    levels: AudioLevels = AudioLevels()) {
            self.output = output
            self.sofaPath = sofaPath
            self.hrtfTaps = hrtfTaps
            self.hrtfResolution = hrtfResolution
            self.blockFrames = blockFrames
            self.sampleRate = sampleRate
            self.maxVoices = maxVoices
            self.soundsDirectory = soundsDirectory
            self.voice = voice
            self.levels = levels
        }
    }

    /// A beacon component change, as the render thread reported it.
    public struct BeaconComponentChange: Sendable, Equatable {
        /// Mixer frame at which the new component started.
        public var frame: Int
        /// Frames since the beacon loop started (a multiple of the beat length).
        public var phraseFrame: Int
        public var component: Int
        /// heading − bearing used for the choice, degrees; nil without a heading.
        public var angle: Double?
    }

    public let configuration: Configuration
    public let bank: HRTFBank
    public let earcons: EarconLibrary
    public var sampleRate: Int { configuration.sampleRate }
    let mixer: Mixer
    let output: PulseOutput?
    /// What sounds are prepared with; changed only under `lock` (``setVoice(_:)``, ``setLevels(_:)``).
    private var context: SoundContext
    private let logger = Logger(label: "soundscape.audio")
    private let isOffline: Bool
    private let prepareQueue = DispatchQueue(label: "soundscape.audio.prepare", qos: .userInitiated)

    // Control-side state, guarded by `lock`. Commands are pushed only under it (one producer at a time).
    private let lock = NSLock()
    private struct Item {
        var id: UInt64
        var sound: any Sound
        var type: SoundType
        var ticket: PlaybackTicket
    }
    private var pending: [Item] = []
    private var currentID: UInt64?
    private var waiting: [UInt64: PlaybackTicket] = [:]
    private var failures: [UInt64: String] = [:]
    private var finishedIDs: Set<UInt64> = []
    private var streams: [UInt64: SampleStream] = [:]
    private var nextID: UInt64 = 1
    private var beaconID: UInt64?
    private var beaconWaiters: [UInt64: [CheckedContinuation<Void, Never>]] = [:]
    private var beaconMutedState = false
    private var trace: [BeaconComponentChange] = []
    private var startNanos: [UInt64: UInt64] = [:]
    private var firstSampleLatency: [UInt64: Double] = [:]
    private var latestFirst: Double?

    // Real time: the render thread (nil offline) and the event pump, which reports ended sounds.
    private let renderThread: RenderThread?
    private let running = Atomic<Bool>(true)
    /// Wakes the event pump when a sound or the beacon starts.
    private let pumpWake = DispatchSemaphore(value: 0)
    private let pumpDone = DispatchSemaphore(value: 0)
    /// Frames already queued for the server when the first block with the newest heading was rendered.
    var queuedAheadOfHeading: Int { renderThread?.queuedAheadOfHeading.load(ordering: .relaxed) ?? 0 }

    /// Offline: the recording (nil in real time).
    private let recorder: OfflineRecorder?

    public init(configuration: Configuration = Configuration(), synthesizer: EspeakSynthesizer?, bank: HRTFBank? = nil) throws {
        self.configuration = configuration
        let bank = try bank ?? HRTFBank(sofaPath: configuration.sofaPath, sampleRate: configuration.sampleRate,
                                        taps: configuration.hrtfTaps, resolution: configuration.hrtfResolution)
        precondition(bank.sampleRate == configuration.sampleRate, "the HRTF bank must be at the output rate")
        self.bank = bank
        earcons = EarconLibrary(directory: configuration.soundsDirectory)
        context = SoundContext(sampleRate: configuration.sampleRate, synthesizer: synthesizer, voice: configuration.voice,
                               earcons: earcons, levels: configuration.levels)
        mixer = Mixer(bank: bank, blockFrames: configuration.blockFrames, maxVoices: configuration.maxVoices)
        switch configuration.output {
        case .offline:
            isOffline = true
            output = nil
        case .null:
            isOffline = false
            output = nil
        case .pulseAudio(let options):
            isOffline = false
            output = PulseOutput(options: options)
        }
        if isOffline {
            recorder = OfflineRecorder(mixer: mixer, blockFrames: configuration.blockFrames, sampleRate: configuration.sampleRate)
            renderThread = nil
        } else {
            recorder = nil
            renderThread = RenderThread(mixer: mixer, output: output, blockFrames: configuration.blockFrames,
                                        sampleRate: configuration.sampleRate)
            startThreads()
        }
    }

    deinit { shutdown() }

    /// Stops the render thread and the sound-server connection. Sounds still playing report `interrupted`.
    public func shutdown() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        if !isOffline {
            renderThread?.stop()
            pumpWake.signal()
            pumpDone.wait()
            output?.stop()
        }
        lock.lock()
        let all = Array(waiting.values) + pending.map(\.ticket)
        waiting.removeAll()
        pending.removeAll()
        let beaconAll = beaconWaiters.values.flatMap { $0 }
        beaconWaiters.removeAll()
        lock.unlock()
        for t in all { t.fulfill(.interrupted) }
        for c in beaconAll { c.resume() }
    }

    // MARK: listener

    /// The presentation heading in degrees clockwise from north; nil when unknown.
    public func setHeading(_ degrees: Double?) {
        let l = mixer.listener
        if let d = degrees, d.isFinite {
            l.heading.value = d
            l.lastHeading.value = d
        } else {
            l.heading.value = .nan
        }
        l.headingNanos.store(monotonicNanos(), ordering: .relaxed)
        l.headingSerial.wrappingAdd(1, ordering: .releasing)
    }

    /// The beacon heading (spec §2.2, user → device → course), which chooses the beacon's part; nil when there is
    /// none (the behind part then plays, dimmed). Until this is called the listener heading chooses.
    public func setBeaconHeading(_ degrees: Double?) {
        let l = mixer.listener
        l.beaconHeading.value = degrees.flatMap { $0.isFinite ? $0 : nil } ?? .nan
        l.beaconHeadingGiven.store(true, ordering: .releasing)
    }

    /// The listener's location; nil when unknown.
    public func setLocation(_ location: Coordinate?) {
        mixer.listener.latitude.value = location?.latitude ?? .nan
        mixer.listener.longitude.value = location?.longitude ?? .nan
    }

    public func setListener(location: Coordinate?, heading: Double?) {
        setLocation(location)
        setHeading(heading)
    }

    /// Overall output gain (linear).
    public func setMasterGain(_ gain: Float) {
        lock.lock(); defer { lock.unlock() }
        mixer.commands.push(MixerCommand(kind: .masterGain, value: Double(gain)))
    }

    // MARK: discrete sounds

    /// Queues `sound` and returns when it has played (or was stopped, or failed).
    @discardableResult
    public func play(_ sound: any Sound, type: SoundType = .standard) async -> PlaybackResult {
        let ticket = enqueue(sound, type: type)
        if isOffline { drive(until: ticket.id) }
        return await ticket.result()
    }

    /// Queues `sound` behind what is queued and returns at once; the ticket tells when it has ended. Offline,
    /// time passes only with ``render(seconds:)`` (or a ``play(_:type:)`` after it).
    public func enqueue(_ sound: any Sound, type: SoundType = .standard) -> PlaybackTicket {
        lock.lock()
        let ticket = PlaybackTicket(id: nextIDLocked())
        guard running.load(ordering: .acquiring) else { lock.unlock(); ticket.fulfill(.interrupted); return ticket }
        pending.append(Item(id: ticket.id, sound: sound, type: type, ticket: ticket))
        if currentID == nil { startNextLocked() }
        lock.unlock()
        return ticket
    }

    /// Plays `sound` at once, mixed over whatever is playing (not queued); e.g. "listening" earcons.
    @discardableResult
    public func playNow(_ sound: any Sound, type: SoundType = .standard) async -> PlaybackResult {
        let ticket = startNow(sound, type: type)
        if isOffline { drive(until: ticket.id) }
        return await ticket.result()
    }

    private func startNow(_ sound: any Sound, type: SoundType) -> PlaybackTicket {
        lock.lock(); defer { lock.unlock() }
        let ticket = PlaybackTicket(id: nextIDLocked())
        guard running.load(ordering: .acquiring) else { ticket.fulfill(.interrupted); return ticket }
        waiting[ticket.id] = ticket
        startLocked(id: ticket.id, sound: sound, type: type)
        return ticket
    }

    /// Stops the current sound now (a short fade) and drops everything queued; all of them report
    /// `interrupted`. With `hush`, the hush earcon plays.
    public func stopAll(hush: Bool = false) {
        lock.lock()
        let dropped = pending.map(\.ticket)
        pending.removeAll()
        for (_, s) in streams { s.cancel() }
        mixer.commands.push(MixerCommand(kind: .stopAll))
        var hushID: UInt64?
        if hush {
            let id = nextIDLocked()
            hushID = id
            startLocked(id: id, sound: GlyphSound(.hush), type: .standard)
        }
        lock.unlock()
        for t in dropped { t.fulfill(.interrupted) }
        if isOffline, let hushID { drive(until: hushID) }
    }

    /// Drops the queued sounds (they report `interrupted`); the one playing goes on.
    public func clear() {
        lock.lock()
        let dropped = pending.map(\.ticket)
        pending.removeAll()
        lock.unlock()
        for t in dropped { t.fulfill(.interrupted) }
    }

    /// Nothing playing, queued, streaming or beaconing (call under `lock`).
    private var isIdleLocked: Bool {
        currentID == nil && pending.isEmpty && streams.isEmpty && waiting.isEmpty && beaconID == nil
    }

    /// Something is about to sound (call under `lock`): the stream plays again and the threads wake.
    private func wakeLocked() {
        guard !isOffline else { return }
        output?.setCorked(false)
        renderThread?.wakeUp()
        pumpWake.signal()
    }

    /// Sounds queued but not started.
    public var queuedCount: Int { lock.lock(); defer { lock.unlock() }; return pending.count }
    /// True while a queued sound is playing.
    public var isPlaying: Bool { lock.lock(); defer { lock.unlock() }; return currentID != nil }

    private func nextIDLocked() -> UInt64 { defer { nextID += 1 }; return nextID }

    private func startNextLocked() {
        guard currentID == nil, !pending.isEmpty else { return }
        let item = pending.removeFirst()
        currentID = item.id
        waiting[item.id] = item.ticket
        startLocked(id: item.id, sound: item.sound, type: item.type)
    }

    /// Creates the stream, starts preparing the sound into it and tells the mixer to play it.
    private func startLocked(id: UInt64, sound: any Sound, type: SoundType) {
        wakeLocked()
        let stream = SampleStream(channels: type.isSpatial ? 1 : 2)
        streams[id] = stream
        startNanos[id] = monotonicNanos()
        let sink = SoundSink(stream: stream, sampleRate: configuration.sampleRate)
        let context = self.context
        let prepare: @Sendable () -> String? = {
            defer { stream.finish() }
            do { try sound.render(into: sink, context: context); return nil } catch { return "\(error)" }
        }
        if isOffline {
            if let failure = prepare() { failures[id] = failure; logger.warning("cannot play \(sound): \(failure)") }
        } else {
            prepareQueue.async { [weak self] in
                if let failure = prepare(), let self {
                    self.lock.lock(); self.failures[id] = failure; self.lock.unlock()
                    self.logger.warning("cannot play \(sound): \(failure)")
                }
            }
        }
        let command = MixerCommand(kind: .start, id: id, stream: Unmanaged.passRetained(stream), placement: type.placement)
        if !mixer.commands.push(command) {
            command.stream?.release()
            failures[id] = "the audio mixer's command queue is full"
            if let (t, r) = finishLocked(id: id, completed: false) { t.fulfill(r) }
        }
    }

    /// Bookkeeping when the mixer reports a sound ended; returns continuations to resume (outside the lock).
    private func finishLocked(id: UInt64, completed: Bool) -> (PlaybackTicket, PlaybackResult)? {
        streams[id] = nil
        startNanos[id] = nil
        finishedIDs.insert(id)
        if finishedIDs.count > 10_000 { finishedIDs.removeAll() }
        let failure = failures.removeValue(forKey: id)
        if currentID == id {
            currentID = nil
            startNextLocked()
        }
        guard let c = waiting.removeValue(forKey: id) else { return nil }
        let result: PlaybackResult = failure.map { .failed($0) } ?? (completed ? .completed : .interrupted)
        return (c, result)
    }

    /// Handles everything the render thread reported.
    private func processEvents() {
        var resumes: [(PlaybackTicket, PlaybackResult)] = []
        var beaconResumes: [CheckedContinuation<Void, Never>] = []
        lock.lock()
        while let e = mixer.events.pop() {
            switch e.kind {
            case .started:
                if let t0 = startNanos[e.id], e.nanos >= t0 {
                    firstSampleLatency[e.id] = Double(e.nanos - t0) / 1e9
                    latestFirst = Double(e.nanos - t0) / 1e9
                    if firstSampleLatency.count > 1_000 { firstSampleLatency.removeAll() }
                }
            case .finished:
                e.stream?.release()
                if let r = finishLocked(id: e.id, completed: e.completed) { resumes.append(r) }
            case .beaconComponent:
                trace.append(BeaconComponentChange(frame: e.frame, phraseFrame: e.phraseFrame, component: e.component,
                                                   angle: e.angle.isNaN ? nil : e.angle))
                if trace.count > 10_000 { trace.removeFirst(5_000) }
            case .beaconEnded:
                e.assets?.release()
                if beaconID == e.id { beaconID = nil }
                beaconResumes += beaconWaiters.removeValue(forKey: e.id) ?? []
            case .dropped:
                break
            }
        }
        lock.unlock()
        for (t, r) in resumes { t.fulfill(r) }
        for c in beaconResumes { c.resume() }
    }

    /// Seconds from `play` to the mixer rendering the sound's first sample, for a recent sound.
    func firstSampleLatency(of id: UInt64) -> Double? { lock.lock(); defer { lock.unlock() }; return firstSampleLatency[id] }
    /// Seconds from `play` to the first rendered sample of the sound that started most recently.
    public var latestFirstSampleLatency: Double? { lock.lock(); defer { lock.unlock() }; return latestFirst }
    func resetFirstSampleLatency() { lock.lock(); latestFirst = nil; lock.unlock() }
    var lastIdentifier: UInt64 { lock.lock(); defer { lock.unlock() }; return nextID - 1 }

    // MARK: beacon

    /// Starts the beacon (replacing any other). Loops until stopped.
    public func startBeacon(_ beacon: BeaconSound) {
        let style = beacon.style.resampled(to: configuration.sampleRate)
        let assets = BeaconAssets(style: style)
        lock.lock()
        let id = nextIDLocked()
        beaconID = id
        beaconMutedState = false
        wakeLocked()
        mixer.commands.push(MixerCommand(kind: .beaconStart, id: id, assets: Unmanaged.passRetained(assets),
                                         placement: .localized(latitude: beacon.location.latitude, longitude: beacon.location.longitude),
                                         value: Double(context.levels.beacon), value2: beacon.ringingAngle,
                                         flag: beacon.playIntro))
        lock.unlock()
        if isOffline { render(seconds: 0) }
    }

    /// Stops the beacon. With `playOutro` and a style that has an end melody, the melody starts on the next
    /// beat and this returns after it played; otherwise the beacon fades out within a few milliseconds.
    public func stopBeacon(playOutro: Bool = false) async {
        guard let id = currentBeaconID else { return }
        if isOffline {
            mixerPush(MixerCommand(kind: .beaconStop, flag: playOutro))
            while isBeaconActive(id: id) { render(frames: configuration.blockFrames) }
            return
        }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            lock.lock()
            guard beaconID == id else { lock.unlock(); c.resume(); return }
            beaconWaiters[id, default: []].append(c)
            mixer.commands.push(MixerCommand(kind: .beaconStop, flag: playOutro))
            lock.unlock()
        }
    }

    private var currentBeaconID: UInt64? { lock.lock(); defer { lock.unlock() }; return beaconID }

    private func isBeaconActive(id: UInt64) -> Bool { lock.lock(); defer { lock.unlock() }; return beaconID == id }

    /// True while a beacon is playing (muted or not).
    public var isBeaconActive: Bool { lock.lock(); defer { lock.unlock() }; return beaconID != nil }

    /// Mutes or unmutes the beacon with a short fade (≈50 ms); its rhythm keeps going.
    public func setBeaconMuted(_ muted: Bool) {
        lock.lock(); defer { lock.unlock() }
        beaconMutedState = muted
        mixer.commands.push(MixerCommand(kind: .beaconMute, flag: muted))
    }

    public var isBeaconMuted: Bool { lock.lock(); defer { lock.unlock() }; return beaconMutedState }

    /// Moves the beacon (e.g. to a destination's nearest entrance).
    public func setBeaconLocation(_ location: Coordinate) {
        mixerPush(MixerCommand(kind: .beaconLocation, placement: .localized(latitude: location.latitude, longitude: location.longitude)))
    }

    /// Half-width of the beacon's centre window, 5…20 degrees.
    public func setBeaconRingingAngle(_ degrees: Double) {
        mixerPush(MixerCommand(kind: .beaconRinging, value: min(max(degrees, 5), 20)))
    }

    /// The beacon's level (0…1).
    public func setBeaconLevel(_ level: Float) {
        mixerPush(MixerCommand(kind: .beaconLevel, value: Double(min(max(level, 0), 1))))
    }

    /// The beacon component changes reported so far (newest last).
    public var beaconTrace: [BeaconComponentChange] { lock.lock(); defer { lock.unlock() }; return trace }

    private func mixerPush(_ c: MixerCommand) {
        lock.lock(); defer { lock.unlock() }
        mixer.commands.push(c)
    }

    // MARK: offline

    /// Offline: renders `seconds` more audio into the recording (time passes for the beacon and anything
    /// playing). Real time: no effect.
    public func render(seconds: Double) {
        render(frames: Int((seconds * Double(configuration.sampleRate)).rounded()))
    }

    func render(frames: Int) {
        guard isOffline else { return }
        let blocks = (frames + configuration.blockFrames - 1) / configuration.blockFrames
        for _ in 0..<max(blocks, frames == 0 ? 0 : 1) { renderOfflineBlock() }
        processEvents()
    }

    /// Offline: renders until sound `id` has ended.
    private func drive(until id: UInt64) {
        while true {
            lock.lock()
            let done = finishedIDs.contains(id)
            lock.unlock()
            if done { return }
            renderOfflineBlock()
            processEvents()
        }
    }

    private func renderOfflineBlock() { recorder?.renderBlock() }

    /// Offline: everything rendered so far, 48 kHz interleaved stereo (empty in real time).
    public func recording() -> PCMBuffer {
        recorder?.recording() ?? PCMBuffer(sampleRate: configuration.sampleRate, channels: 2, samples: [])
    }

    /// Offline: writes the recording as a 16-bit stereo WAV (after a short tail for the filters to ring out).
    public func writeRecording(to path: String, tail: Double = 0.05) throws {
        render(seconds: tail)
        try WAVFile.write(recording(), to: path)
    }

    /// Frames the mixer has rendered since the engine started.
    public var renderedFrames: Int { mixer.publishedFrames.load(ordering: .acquiring) }

    // MARK: real time

    private func startThreads() {
        output?.start()
        renderThread?.start()
        let pump = Thread { [unowned self] in self.pumpLoop() }
        pump.name = "soundscape-audio-events"
        pump.start()
    }

    /// The event pump: every 3 ms while anything sounds (so a finished sound is reported promptly). When nothing
    /// sounds it waits a quarter of a second for the last frames to be heard, pauses (corks) the stream, and then
    /// sleeps until a sound or the beacon starts: an idle assistant wakes no CPU for audio.
    private func pumpLoop() {
        while running.load(ordering: .acquiring) {
            processEvents()
            lock.lock()
            let idle = isIdleLocked
            if idle { renderThread?.idleHint.store(true, ordering: .releasing) }
            lock.unlock()
            guard idle else { usleep(3_000); continue }
            if pumpWake.wait(timeout: .now() + .milliseconds(250)) == .success { continue }
            lock.lock()
            if isIdleLocked && running.load(ordering: .acquiring) { output?.setCorked(true) }
            lock.unlock()
            pumpWake.wait()
        }
        processEvents()
        pumpDone.signal()
    }

    /// Output status for diagnostics and `doctor`.
    public struct Status: Sendable {
        public var connected: Bool
        public var connections: Int
        public var underruns: Int
        public var serverLatency: Double?
        public var renderedSeconds: Double

        public init(connected: Bool, connections: Int, underruns: Int = 0, serverLatency: Double? = nil, renderedSeconds: Double = 0) {
            self.connected = connected
            self.connections = connections
            self.underruns = underruns
            self.serverLatency = serverLatency
            self.renderedSeconds = renderedSeconds
        }
    }

    public var status: Status {
        Status(connected: output?.isConnected ?? isOffline, connections: output?.connections.load(ordering: .relaxed) ?? 0,
               underruns: output?.underruns.load(ordering: .relaxed) ?? 0, serverLatency: output?.latency(),
               renderedSeconds: Double(renderedFrames) / Double(configuration.sampleRate))
    }
}

// MARK: live settings (voice commands)

extension AudioEngine {
    /// The voice for speech prepared from now on (a sentence already being prepared keeps its voice).
    /// Control side only: the context is read under `lock` when a sound starts, never on the render thread.
    public func setVoice(_ voice: VoiceSettings) {
        lock.lock(); defer { lock.unlock() }
        context.voice = voice
    }

    /// Levels of speech and earcons prepared from now on, and the beacon's level at once (through the
    /// mixer's command queue, like ``setBeaconLevel(_:)``).
    public func setLevels(_ levels: AudioLevels) {
        lock.lock()
        context.levels = levels
        lock.unlock()
        setBeaconLevel(levels.beacon)
    }
}
