import Foundation
import Synchronization

/// The real-time render thread: renders the mixer in fixed blocks, paced by the sound server (or by the clock when
/// there is none). It sleeps while the stream is corked or, without a server, while nothing sounds: an idle engine
/// wakes no CPU. It never allocates, locks or awaits after it started.
final class RenderThread: @unchecked Sendable {
    private let mixer: Mixer
    private let output: PulseOutput?
    private let blockFrames: Int
    private let sampleRate: Int
    private let running = Atomic<Bool>(true)
    /// True when nothing plays, queues or beacons (kept by the engine's control side); without a server the thread
    /// then sleeps instead of rendering silence.
    let idleHint = Atomic<Bool>(false)
    /// Wakes the thread when there is no sound server (with one, uncorking the stream wakes it).
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    /// Frames kept queued ahead of the sound server.
    let fifoTarget: Int
    /// Frames already queued for the server when the first block with the newest heading was rendered.
    let queuedAheadOfHeading = Atomic<Int>(0)

    init(mixer: Mixer, output: PulseOutput?, blockFrames: Int, sampleRate: Int) {
        self.mixer = mixer
        self.output = output
        self.blockFrames = blockFrames
        self.sampleRate = sampleRate
        fifoTarget = blockFrames
    }

    func start() {
        let thread = Thread { [unowned self] in self.loop() }
        thread.name = "soundscape-render"
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    /// Something is about to sound: render again (the control side calls this after pushing its mixer command).
    func wakeUp() {
        idleHint.store(false, ordering: .releasing)
        wake.signal()
    }

    /// Stops the thread and waits until it has.
    func stop() {
        running.store(false, ordering: .releasing)
        output?.consumed.signal()
        wake.signal()
        done.wait()
    }

    private func loop() {
        let n = blockFrames
        let block = UnsafeMutablePointer<Float>.allocate(capacity: 2 * n)
        block.initialize(repeating: 0, count: 2 * n)
        defer { block.deallocate() }
        let blockNanos = UInt64(n) * 1_000_000_000 / UInt64(sampleRate)
        var deadline = monotonicNanos()
        while running.load(ordering: .acquiring) {
            if let out = output, out.isCorked {
                // Nothing sounds: the server asks for nothing; uncorking (or stopping) signals `consumed`.
                out.consumed.wait()
                deadline = monotonicNanos()
            } else if let out = output, out.isConnected {
                let ahead = max(fifoTarget, out.largestRequest.load(ordering: .relaxed))
                while out.fifo.fill < ahead {
                    let before = mixer.appliedHeadingSerial.load(ordering: .relaxed)
                    mixer.render(into: block)
                    if mixer.appliedHeadingSerial.load(ordering: .relaxed) != before {
                        queuedAheadOfHeading.store(out.fifo.fill, ordering: .relaxed)
                    }
                    out.fifo.write(block, frames: n)
                }
                _ = out.consumed.wait(timeout: .now() + .milliseconds(20))
                deadline = monotonicNanos()
            } else {
                // No sound server: keep time with the clock so sounds still end and callers still hear back.
                let now = monotonicNanos()
                if idleHint.load(ordering: .acquiring) && mixer.commands.isEmpty {
                    // Nothing plays and nothing is asked for: sleep until a sound starts (``wakeUp()``).
                    wake.wait()
                    deadline = monotonicNanos()
                } else if now >= deadline {
                    mixer.render(into: block)
                    deadline += blockNanos
                    if now > deadline + 100_000_000 { deadline = now }
                } else {
                    let wait = deadline - now
                    var ts = timespec(tv_sec: Int(wait / 1_000_000_000), tv_nsec: Int(wait % 1_000_000_000))
                    nanosleep(&ts, nil)
                }
            }
        }
        done.signal()
    }
}

/// The offline output (`say --wav`, tests): renders the mixer block by block into memory, as fast as asked.
final class OfflineRecorder: @unchecked Sendable {
    private let mixer: Mixer
    private let blockFrames: Int
    private let sampleRate: Int
    private let lock = NSLock()
    private var recorded: [Float] = []

    init(mixer: Mixer, blockFrames: Int, sampleRate: Int) {
        self.mixer = mixer
        self.blockFrames = blockFrames
        self.sampleRate = sampleRate
    }

    /// Renders one more block onto the end of the recording.
    func renderBlock() {
        lock.lock()
        defer { lock.unlock() }
        let n = blockFrames * 2
        let start = recorded.count
        recorded.append(contentsOf: repeatElement(0, count: n))
        recorded.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress! + start) }
    }

    /// Everything rendered so far, interleaved stereo.
    func recording() -> PCMBuffer {
        lock.lock(); defer { lock.unlock() }
        return PCMBuffer(sampleRate: sampleRate, channels: 2, samples: recorded)
    }
}
