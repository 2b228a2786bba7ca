import Foundation
import Logging

/// Discrete sounds (callouts, earcons) played one after another, as the App hands them over.
public protocol SoundQueuing: AnyObject, Sendable {
    /// Queues `sound` and returns when it has played (or was stopped, or failed).
    func play(_ sound: any Sound, type: SoundType) async -> PlaybackResult
    /// Plays `sound` at once, mixed over whatever plays (not queued); e.g. "listening" earcons.
    func playNow(_ sound: any Sound, type: SoundType) async -> PlaybackResult
    /// Stops the current sound and drops the queue; with `hush`, the hush earcon plays.
    func stopAll(hush: Bool)
    /// Drops the queued sounds; the one playing goes on.
    func clear()
}

/// The engine's queue of discrete sounds: each is prepared into a ``SampleStream`` (off the render thread) and
/// started in the mixer when the one before it ended; the mixer's reports end its ``PlaybackTicket``.
///
/// ``stopAll(hush:)`` interrupts the current sound and drops the queue; ``clear()`` drops only the queue.
/// Offline, time passes only when the port renders, so ``play(_:type:)`` renders until its sound ended.
public final class SoundQueue: SoundQueuing, @unchecked Sendable {
    private struct Item {
        var id: UInt64
        var sound: any Sound
        var type: SoundType
        var ticket: PlaybackTicket
    }

    private let port: any MixerPort
    /// Where sounds are prepared in real time; nil: at once, on the caller's thread (offline, tests).
    private let prepareQueue: DispatchQueue?
    private let logger = Logger(label: "soundscape.audio")

    // Guarded by `lock`; commands are sent to the port under it, so they reach the mixer in queue order.
    private let lock = NSLock()
    /// What sounds are prepared with (``setVoice(_:)``, ``setLevels(_:)``).
    private var context: SoundContext
    private var isOpen = true
    private var pending: [Item] = []
    private var currentID: UInt64?
    private var waiting: [UInt64: PlaybackTicket] = [:]
    private var failures: [UInt64: String] = [:]
    private var streams: [UInt64: SampleStream] = [:]
    private var nextID: UInt64 = 1
    private var startNanos: [UInt64: UInt64] = [:]
    private var latestFirst: Double?

    init(port: any MixerPort, context: SoundContext, prepareOn prepareQueue: DispatchQueue?) {
        self.port = port
        self.context = context
        self.prepareQueue = prepareQueue
    }

    /// Queues `sound` and returns when it has played (or was stopped, or failed).
    @discardableResult
    public func play(_ sound: any Sound, type: SoundType = .standard) async -> PlaybackResult {
        let ticket = enqueue(sound, type: type)
        drive(until: ticket)
        return await ticket.result()
    }

    /// Queues `sound` behind what is queued and returns at once; the ticket tells when it has ended.
    public func enqueue(_ sound: any Sound, type: SoundType = .standard) -> PlaybackTicket {
        lock.lock()
        let ticket = PlaybackTicket(id: nextIDLocked())
        guard isOpen else { lock.unlock(); ticket.fulfill(.interrupted); return ticket }
        pending.append(Item(id: ticket.id, sound: sound, type: type, ticket: ticket))
        let failed = currentID == nil ? startNextLocked() : []
        lock.unlock()
        for (t, r) in failed { t.fulfill(r) }
        return ticket
    }

    /// Plays `sound` at once, mixed over whatever is playing (not queued); e.g. "listening" earcons.
    @discardableResult
    public func playNow(_ sound: any Sound, type: SoundType = .standard) async -> PlaybackResult {
        let ticket = startNow(sound, type: type)
        drive(until: ticket)
        return await ticket.result()
    }

    private func startNow(_ sound: any Sound, type: SoundType) -> PlaybackTicket {
        lock.lock()
        let ticket = PlaybackTicket(id: nextIDLocked())
        guard isOpen else { lock.unlock(); ticket.fulfill(.interrupted); return ticket }
        waiting[ticket.id] = ticket
        let failed = startLocked(id: ticket.id, sound: sound, type: type)
        lock.unlock()
        for (t, r) in failed { t.fulfill(r) }
        return ticket
    }

    /// Stops the current sound now (a short fade) and drops everything queued; all of them report
    /// `interrupted`. With `hush`, the hush earcon plays.
    public func stopAll(hush: Bool = false) {
        lock.lock()
        let dropped = pending.map(\.ticket)
        pending.removeAll()
        for (_, s) in streams { s.cancel() }
        port.send(MixerCommand(kind: .stopAll), wake: false)
        var hushTicket: PlaybackTicket?
        var failed: [(PlaybackTicket, PlaybackResult)] = []
        if hush && isOpen {
            let ticket = PlaybackTicket(id: nextIDLocked())
            waiting[ticket.id] = ticket
            hushTicket = ticket
            failed = startLocked(id: ticket.id, sound: GlyphSound(.hush), type: .standard)
        }
        lock.unlock()
        for t in dropped { t.fulfill(.interrupted) }
        for (t, r) in failed { t.fulfill(r) }
        if let hushTicket { drive(until: hushTicket) }
    }

    /// Drops the queued sounds (they report `interrupted`); the one playing goes on.
    public func clear() {
        lock.lock()
        let dropped = pending.map(\.ticket)
        pending.removeAll()
        lock.unlock()
        for t in dropped { t.fulfill(.interrupted) }
    }

    /// Sounds queued but not started.
    public var queuedCount: Int { lock.withLock { pending.count } }
    /// True while a queued sound is playing.
    public var isPlaying: Bool { lock.withLock { currentID != nil } }
    /// Nothing playing (queued or at once), queued or still streaming.
    var isIdle: Bool { lock.withLock { currentID == nil && pending.isEmpty && streams.isEmpty && waiting.isEmpty } }

    /// Seconds from `play` to the mixer rendering the first sample of the sound that started most recently.
    public var latestFirstSampleLatency: Double? { lock.withLock { latestFirst } }
    func resetFirstSampleLatency() { lock.withLock { latestFirst = nil } }

    /// The voice for speech prepared from now on (a sentence already being prepared keeps its voice).
    func setVoice(_ voice: VoiceSettings) { lock.withLock { context.voice = voice } }
    /// Levels of speech and earcons prepared from now on.
    func setLevels(_ levels: AudioLevels) { lock.withLock { context.levels = levels } }

    /// Takes no more sounds; everything waiting or playing reports `interrupted` (the engine shut down).
    func close() {
        lock.lock()
        isOpen = false
        let all = Array(waiting.values) + pending.map(\.ticket)
        waiting.removeAll()
        pending.removeAll()
        lock.unlock()
        for t in all { t.fulfill(.interrupted) }
    }

    /// Offline: renders until `ticket` has ended. Real time: returns at once.
    private func drive(until ticket: PlaybackTicket) {
        while ticket.outcomeIfEnded == nil && port.advance() {}
    }

    /// A report from the mixer about a discrete sound.
    func handle(_ event: MixerEvent) {
        switch event.kind {
        case .started:
            lock.withLock {
                if let t0 = startNanos[event.id], event.nanos >= t0 { latestFirst = Double(event.nanos - t0) / 1e9 }
            }
        case .finished:
            event.stream?.release()
            lock.lock()
            let ended = finishLocked(id: event.id, completed: event.completed)
            lock.unlock()
            for (t, r) in ended { t.fulfill(r) }
        case .dropped, .beaconComponent, .beaconEnded:
            break
        }
    }

    // MARK: under `lock`

    private func nextIDLocked() -> UInt64 { defer { nextID += 1 }; return nextID }

    /// Starts the next queued sound; returns the tickets to end (outside the lock) when it could not start.
    private func startNextLocked() -> [(PlaybackTicket, PlaybackResult)] {
        guard currentID == nil, !pending.isEmpty else { return [] }
        let item = pending.removeFirst()
        currentID = item.id
        waiting[item.id] = item.ticket
        return startLocked(id: item.id, sound: item.sound, type: item.type)
    }

    /// Creates the stream, starts preparing the sound into it and tells the mixer to play it. Returns the tickets to
    /// end when the mixer's command queue was full (this sound's, and those queued behind it).
    private func startLocked(id: UInt64, sound: any Sound, type: SoundType) -> [(PlaybackTicket, PlaybackResult)] {
        let stream = SampleStream(channels: type.isSpatial ? 1 : 2)
        streams[id] = stream
        startNanos[id] = monotonicNanos()
        let sink = SoundSink(stream: stream, sampleRate: context.sampleRate)
        let context = self.context
        let prepare: @Sendable () -> String? = {
            defer { stream.finish() }
            do { try sound.render(into: sink, context: context); return nil } catch { return "\(error)" }
        }
        if let prepareQueue {
            prepareQueue.async { [weak self] in
                if let failure = prepare(), let self {
                    self.lock.withLock { self.failures[id] = failure }
                    self.logger.warning("cannot play \(sound): \(failure)")
                }
            }
        } else if let failure = prepare() {
            failures[id] = failure
            logger.warning("cannot play \(sound): \(failure)")
        }
        let command = MixerCommand(kind: .start, id: id, stream: Unmanaged.passRetained(stream), placement: type.placement)
        guard !port.send(command, wake: true) else { return [] }
        command.stream?.release()
        failures[id] = "the audio mixer's command queue is full"
        return finishLocked(id: id, completed: false)
    }

    /// Bookkeeping when a sound ended; returns the tickets to end (outside the lock): its own, and the next
    /// sound's when that could not start.
    private func finishLocked(id: UInt64, completed: Bool) -> [(PlaybackTicket, PlaybackResult)] {
        streams[id] = nil
        startNanos[id] = nil
        let failure = failures.removeValue(forKey: id)
        var ended: [(PlaybackTicket, PlaybackResult)] = []
        if let ticket = waiting.removeValue(forKey: id) {
            ended.append((ticket, failure.map { .failed($0) } ?? (completed ? .completed : .interrupted)))
        }
        if currentID == id {
            currentID = nil
            ended += startNextLocked()
        }
        return ended
    }
}
