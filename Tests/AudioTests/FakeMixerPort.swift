@testable import Audio
import Foundation

/// A render thread that is not there: records the commands the queue and the beacon send, and reports back
/// only what the test says (or, with `endsOnAdvance`, ends the oldest sound and a stopping beacon at each step).
final class FakeMixerPort: MixerPort, @unchecked Sendable {
    private let lock = NSLock()
    private var commands: [MixerCommand] = []
    private var wakeCount = 0
    private var finishedSounds: Set<UInt64> = []
    private var endedBeacons: Set<UInt64> = []
    private var refusing = false
    /// Offline-like: each ``advance()`` ends the oldest playing sound (completed) and a beacon asked to stop.
    let endsOnAdvance: Bool
    weak var queue: SoundQueue?
    weak var beacon: BeaconPlayer?

    init(endsOnAdvance: Bool = false) { self.endsOnAdvance = endsOnAdvance }

    /// A queue on this port that prepares sounds at once (no synthesizer).
    func makeQueue() -> SoundQueue {
        let q = SoundQueue(port: self, context: SoundContext(synthesizer: nil, earcons: EarconLibrary(directory: nil)), prepareOn: nil)
        queue = q
        return q
    }

    func makeBeacon(level: Float = 0.5) -> BeaconPlayer {
        let b = BeaconPlayer(port: self, listener: ListenerState(), sampleRate: 48_000, level: level)
        beacon = b
        return b
    }

    var sent: [MixerCommand] { lock.withLock { commands } }
    var kinds: [MixerCommand.Kind] { sent.map(\.kind) }
    var wakes: Int { lock.withLock { wakeCount } }
    /// Identifiers of the sounds started, in order.
    var started: [UInt64] { sent.filter { $0.kind == .start }.map(\.id) }
    /// While true, every command is refused as if the mixer's command queue were full.
    func refuse(_ on: Bool) { lock.withLock { refusing = on } }

    func send(_ command: MixerCommand, wake: Bool) -> Bool {
        lock.withLock {
            guard !refusing else { return false }
            commands.append(command)
            if wake { wakeCount += 1 }
            return true
        }
    }

    func advance() -> Bool {
        guard endsOnAdvance else { return false }
        let playing = lock.withLock { commands.first { $0.kind == .start && !finishedSounds.contains($0.id) }?.id }
        if let playing { finish(playing, completed: true) }
        let stopping = lock.withLock { () -> UInt64? in
            guard let stop = commands.lastIndex(where: { $0.kind == .beaconStop }),
                  let start = commands[..<stop].last(where: { $0.kind == .beaconStart }), !endedBeacons.contains(start.id)
            else { return nil }
            return start.id
        }
        if let stopping { endBeacon(stopping) }
        return true
    }

    /// Reports that sound `id` ended, handing its stream back as the mixer does.
    func finish(_ id: UInt64, completed: Bool) {
        let stream: Unmanaged<SampleStream>? = lock.withLock {
            finishedSounds.insert(id)
            return commands.first { $0.kind == .start && $0.id == id }?.stream
        }
        queue?.handle(MixerEvent(kind: .finished, id: id, stream: stream, completed: completed))
    }

    /// Reports that the beacon `id` ended, handing its assets back as the mixer does.
    func endBeacon(_ id: UInt64) {
        let assets: Unmanaged<BeaconAssets>? = lock.withLock {
            endedBeacons.insert(id)
            return commands.first { $0.kind == .beaconStart && $0.id == id }?.assets
        }
        beacon?.handle(MixerEvent(kind: .beaconEnded, id: id, assets: assets))
    }

    /// The stream of sound `id` (prepared at once, so complete).
    func stream(of id: UInt64) -> SampleStream? {
        sent.first { $0.kind == .start && $0.id == id }?.stream?.takeUnretainedValue()
    }
}
