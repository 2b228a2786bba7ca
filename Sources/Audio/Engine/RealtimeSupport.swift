import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Monotonic time in nanoseconds, safe to read on the render thread (vDSO, no allocation, no lock).
@inline(__always)
func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// A bounded single-producer single-consumer queue of plain values, preallocated at creation.
///
/// One thread may `push`, one other thread may `pop`; neither ever blocks, allocates or takes a lock.
/// Used for commands to the render thread and for its reports back.
final class SPSCRing<Element: BitwiseCopyable>: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<Element>
    private let capacity: Int
    private let head = Atomic<Int>(0)   // next slot to read (consumer owns)
    private let tail = Atomic<Int>(0)   // next slot to write (producer owns)

    init(capacity: Int) {
        precondition(capacity > 1)
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    /// Adds an element; false when the queue is full (the element is dropped).
    @discardableResult
    func push(_ element: Element) -> Bool {
        let t = tail.load(ordering: .relaxed)
        let next = t + 1 == capacity ? 0 : t + 1
        if next == head.load(ordering: .acquiring) { return false }
        (storage + t).initialize(to: element)
        tail.store(next, ordering: .releasing)
        return true
    }

    /// Takes the oldest element, or nil when empty.
    func pop() -> Element? {
        let h = head.load(ordering: .relaxed)
        if h == tail.load(ordering: .acquiring) { return nil }
        let element = storage[h]
        head.store(h + 1 == capacity ? 0 : h + 1, ordering: .releasing)
        return element
    }

    var isEmpty: Bool { head.load(ordering: .acquiring) == tail.load(ordering: .acquiring) }
}

/// A lock-free single-producer single-consumer ring of interleaved float frames (the render thread
/// writes, the sound-server callback reads).
final class FrameFIFO: @unchecked Sendable {
    let channels: Int
    let capacityFrames: Int
    private let storage: UnsafeMutablePointer<Float>
    private let writeCount = Atomic<Int>(0)   // total frames ever written
    private let readCount = Atomic<Int>(0)    // total frames ever read

    init(capacityFrames: Int, channels: Int) {
        self.capacityFrames = capacityFrames
        self.channels = channels
        storage = .allocate(capacity: capacityFrames * channels)
        storage.initialize(repeating: 0, count: capacityFrames * channels)
    }

    deinit { storage.deallocate() }

    var fill: Int { writeCount.load(ordering: .acquiring) - readCount.load(ordering: .acquiring) }

    /// Writes up to `frames` frames; returns how many fitted.
    @discardableResult
    func write(_ source: UnsafePointer<Float>, frames: Int) -> Int {
        let w = writeCount.load(ordering: .relaxed)
        let r = readCount.load(ordering: .acquiring)
        let n = min(frames, capacityFrames - (w - r))
        if n <= 0 { return 0 }
        var done = 0
        while done < n {
            let at = (w + done) % capacityFrames
            let run = min(n - done, capacityFrames - at)
            (storage + at * channels).update(from: source + done * channels, count: run * channels)
            done += run
        }
        writeCount.store(w + n, ordering: .releasing)
        return n
    }

    /// Reads up to `frames` frames; returns how many were available.
    @discardableResult
    func read(into destination: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        let r = readCount.load(ordering: .relaxed)
        let w = writeCount.load(ordering: .acquiring)
        let n = min(frames, w - r)
        if n <= 0 { return 0 }
        var done = 0
        while done < n {
            let at = (r + done) % capacityFrames
            let run = min(n - done, capacityFrames - at)
            (destination + done * channels).update(from: storage + at * channels, count: run * channels)
            done += run
        }
        readCount.store(r + n, ordering: .releasing)
        return n
    }

    /// Drops up to `frames` frames (used to keep time when no sound server is consuming).
    func discard(frames: Int) {
        let r = readCount.load(ordering: .relaxed)
        let w = writeCount.load(ordering: .acquiring)
        readCount.store(r + min(frames, w - r), ordering: .releasing)
    }
}

/// A `Double` kept in an atomic, so the render thread can read a value the control side writes.
final class AtomicDouble: @unchecked Sendable {
    private let bits: Atomic<UInt64>
    init(_ value: Double) { bits = Atomic(value.bitPattern) }
    var value: Double {
        get { Double(bitPattern: bits.load(ordering: .acquiring)) }
        set { bits.store(newValue.bitPattern, ordering: .releasing) }
    }
}
