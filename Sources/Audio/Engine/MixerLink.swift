import Foundation
import Synchronization

/// The render thread as the sound queue and the beacon reach it: they hand it commands, and its reports come back
/// to them through their `handle(_:)`. ``MixerLink`` is the engine's; unit tests use a fake that records the
/// commands and reports what the test chooses, so the queue's and the beacon's rules run without a device or time.
protocol MixerPort: AnyObject, Sendable {
    /// Hands `command` to the render thread; with `wake`, something is about to sound (the stream and the render
    /// thread resume). False when the command queue is full: the command was not taken.
    @discardableResult
    func send(_ command: MixerCommand, wake: Bool) -> Bool
    /// Offline: renders one more block, hands its reports on and returns true. Real time: returns false at once
    /// (time passes by itself there).
    func advance() -> Bool
}

/// The engine's ``MixerPort``: commands enter the mixer's single-producer ring one sender at a time, and the
/// mixer's reports go to the queue and the beacon — drained by the event pump in real time, by ``advance()`` offline.
///
/// The event pump polls every 3 ms while anything sounds (so an ended sound is reported promptly). When nothing
/// sounds it waits a quarter of a second for the last frames to be heard, pauses (corks) the stream, and sleeps
/// until something starts: an idle assistant wakes no CPU for audio.
final class MixerLink: MixerPort, @unchecked Sendable {
    let mixer: Mixer
    private let renderThread: RenderThread?
    private let output: PulseOutput?
    private let recorder: OfflineRecorder?
    private let commandLock = NSLock()
    /// One drainer of the mixer's reports at a time (the event ring is single-consumer).
    private let eventLock = NSLock()
    /// Wakes and the pump's decisions to go idle are made under this lock; `wakes` counts the wakes, so the pump
    /// goes idle only when none came in since it last looked at the queue and the beacon.
    private let wakeLock = NSLock()
    private var wakes: UInt64 = 0
    private let running = Atomic<Bool>(true)
    private let pumpWake = DispatchSemaphore(value: 0)
    private let pumpDone = DispatchSemaphore(value: 0)
    private weak var queue: SoundQueue?
    private weak var beacon: BeaconPlayer?

    /// Real time: give the render thread (and the output it feeds, if any). Offline: give the recorder.
    init(mixer: Mixer, renderThread: RenderThread?, output: PulseOutput?, recorder: OfflineRecorder?) {
        self.mixer = mixer
        self.renderThread = renderThread
        self.output = output
        self.recorder = recorder
    }

    /// Who hears the mixer's reports; called once by the engine before anything plays.
    func attach(queue: SoundQueue, beacon: BeaconPlayer) {
        eventLock.withLock {
            self.queue = queue
            self.beacon = beacon
        }
    }

    @discardableResult
    func send(_ command: MixerCommand, wake: Bool) -> Bool {
        let taken = commandLock.withLock { mixer.commands.push(command) }
        if taken && wake && recorder == nil { self.wake() }
        return taken
    }

    func advance() -> Bool {
        guard let recorder else { return false }
        recorder.renderBlock()
        processEvents()
        return true
    }

    /// Hands everything the render thread reported to the queue and the beacon.
    func processEvents() {
        eventLock.lock(); defer { eventLock.unlock() }
        while let e = mixer.events.pop() {
            switch e.kind {
            case .started, .finished, .dropped:
                if let queue { queue.handle(e) } else { e.stream?.release() }
            case .beaconComponent, .beaconEnded:
                if let beacon { beacon.handle(e) } else { e.assets?.release() }
            }
        }
    }

    /// Nothing playing, queued or beaconing.
    private var isIdle: Bool { (queue?.isIdle ?? true) && (beacon?.isIdle ?? true) }

    // MARK: real time

    /// Something is about to sound: the stream plays again and the threads wake.
    private func wake() {
        wakeLock.withLock {
            wakes &+= 1
            output?.setCorked(false)
            renderThread?.wakeUp()
        }
        pumpWake.signal()
    }

    /// Starts the event pump (real time only).
    func startPump() {
        guard renderThread != nil else { return }
        let pump = Thread { [unowned self] in self.pumpLoop() }
        pump.name = "soundscape-audio-events"
        pump.start()
    }

    /// Stops the render thread and the event pump and waits until they have; the last reports are handed on.
    func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing), let renderThread else { return }
        renderThread.stop()
        pumpWake.signal()
        pumpDone.wait()
    }

    private func pumpLoop() {
        while running.load(ordering: .acquiring) {
            processEvents()
            let seen = wakeLock.withLock { wakes }
            let idle = isIdle && wakeLock.withLock {
                guard wakes == seen else { return false }
                renderThread?.idleHint.store(true, ordering: .releasing)
                return true
            }
            guard idle else { usleep(3_000); continue }
            if pumpWake.wait(timeout: .now() + .milliseconds(250)) == .success { continue }
            let before = wakeLock.withLock { wakes }
            if isIdle {
                wakeLock.withLock {
                    if wakes == before && running.load(ordering: .acquiring) { output?.setCorked(true) }
                }
            }
            pumpWake.wait()
        }
        processEvents()
        pumpDone.signal()
    }
}
