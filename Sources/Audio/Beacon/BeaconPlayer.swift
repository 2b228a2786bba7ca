import Foundation
import Geo

/// The audio beacon as the App drives it: start at a place, stop, mute, move, and the width of its centre window.
public protocol BeaconPlaying: AnyObject, Sendable {
    /// Starts `beacon` (replacing any other); it loops until stopped.
    func start(_ beacon: BeaconSound)
    /// Stops the beacon; with `playOutro`, returns after the style's end melody played.
    func stop(playOutro: Bool) async
    /// Mutes or unmutes with a short fade; the rhythm goes on.
    func setMuted(_ muted: Bool)
    var isActive: Bool { get }
    var isMuted: Bool { get }
    /// Moves the beacon (e.g. to a destination's nearest entrance).
    func setLocation(_ location: Coordinate)
    /// Half-width of the centre window, 5…20 degrees.
    func setRingingAngle(_ degrees: Double)
}

/// A change of the beacon's part, as the render thread reported it.
public struct BeaconComponentChange: Sendable, Equatable {
    /// Mixer frame at which the new component started.
    public var frame: Int
    /// Frames since the beacon loop started (a multiple of the beat length).
    public var phraseFrame: Int
    public var component: Int
    /// Beacon heading − bearing used for the choice, degrees; nil without a heading.
    public var angle: Double?
}

/// The engine's beacon: the control side of the looping, localized sound the mixer renders. The mixer picks the
/// part on each beat from the beacon heading (``setHeading(_:)``) and the bearing to the beacon, and reports the
/// changes (``trace``); level and mute fade there too. Offline, ``stop(playOutro:)`` renders until it has ended.
public final class BeaconPlayer: BeaconPlaying, @unchecked Sendable {
    private let port: any MixerPort
    private let listener: ListenerState
    private let sampleRate: Int

    // Guarded by `lock`; commands are sent to the port under it.
    private let lock = NSLock()
    private var isOpen = true
    private var current: UInt64?
    private var muted = false
    private var level: Float
    private var nextID: UInt64 = 1
    private var waiters: [UInt64: [CheckedContinuation<Void, Never>]] = [:]
    private var changes: [BeaconComponentChange] = []

    init(port: any MixerPort, listener: ListenerState, sampleRate: Int, level: Float) {
        self.port = port
        self.listener = listener
        self.sampleRate = sampleRate
        self.level = min(max(level, 0), 1)
    }

    public func start(_ beacon: BeaconSound) {
        let assets = BeaconAssets(style: beacon.style.resampled(to: sampleRate))
        lock.lock(); defer { lock.unlock() }
        guard isOpen else { return }
        let id = nextID
        nextID += 1
        let command = MixerCommand(kind: .beaconStart, id: id, assets: Unmanaged.passRetained(assets),
                                   placement: .localized(latitude: beacon.location.latitude, longitude: beacon.location.longitude),
                                   value: Double(level), value2: beacon.ringingAngle, flag: beacon.playIntro)
        guard port.send(command, wake: true) else { command.assets?.release(); return }
        current = id
        muted = false
    }

    /// Stops the beacon. With `playOutro` and a style that has an end melody, the melody starts on the next
    /// beat and this returns after it played; otherwise the beacon fades out within a few milliseconds.
    public func stop(playOutro: Bool = false) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let id: UInt64? = lock.withLock {
                guard let id = current else { return nil }
                waiters[id, default: []].append(c)
                port.send(MixerCommand(kind: .beaconStop, flag: playOutro), wake: false)
                return id
            }
            guard let id else { c.resume(); return }
            // Offline: time passes only as it is rendered (the ended report resumes `c`).
            while lock.withLock({ current == id }) && port.advance() {}
        }
    }

    public func setMuted(_ muted: Bool) {
        lock.withLock {
            self.muted = muted
            port.send(MixerCommand(kind: .beaconMute, flag: muted), wake: false)
        }
    }

    /// True while a beacon is playing (muted or not).
    public var isActive: Bool { lock.withLock { current != nil } }
    public var isMuted: Bool { lock.withLock { muted } }
    var isIdle: Bool { !isActive }

    public func setLocation(_ location: Coordinate) {
        send(MixerCommand(kind: .beaconLocation, placement: .localized(latitude: location.latitude, longitude: location.longitude)))
    }

    public func setRingingAngle(_ degrees: Double) {
        send(MixerCommand(kind: .beaconRinging, value: min(max(degrees, 5), 20)))
    }

    /// The beacon's level (0…1), at once and for the next start.
    public func setLevel(_ level: Float) {
        lock.withLock {
            self.level = min(max(level, 0), 1)
            port.send(MixerCommand(kind: .beaconLevel, value: Double(self.level)), wake: false)
        }
    }

    /// The heading that chooses the beacon's part (spec §2.2, user → device → course); nil when there is none (the
    /// behind part then plays, dimmed). Until this is called the listener heading chooses. Read by the render
    /// thread through atomics.
    public func setHeading(_ degrees: Double?) {
        listener.beaconHeading.value = degrees.flatMap { $0.isFinite ? $0 : nil } ?? .nan
        listener.beaconHeadingGiven.store(true, ordering: .releasing)
    }

    /// The part changes reported so far (newest last).
    public var trace: [BeaconComponentChange] { lock.withLock { changes } }

    /// Takes no more starts and lets every ``stop(playOutro:)`` return (the engine shut down).
    func close() {
        let all: [CheckedContinuation<Void, Never>] = lock.withLock {
            isOpen = false
            current = nil
            defer { waiters.removeAll() }
            return waiters.values.flatMap { $0 }
        }
        for c in all { c.resume() }
    }

    /// A report from the mixer about the beacon.
    func handle(_ event: MixerEvent) {
        switch event.kind {
        case .beaconComponent:
            lock.withLock {
                changes.append(BeaconComponentChange(frame: event.frame, phraseFrame: event.phraseFrame, component: event.component,
                                                     angle: event.angle.isNaN ? nil : event.angle))
                if changes.count > 10_000 { changes.removeFirst(5_000) }
            }
        case .beaconEnded:
            event.assets?.release()
            let resumed: [CheckedContinuation<Void, Never>] = lock.withLock {
                if current == event.id { current = nil }
                return waiters.removeValue(forKey: event.id) ?? []
            }
            for c in resumed { c.resume() }
        case .started, .finished, .dropped:
            break
        }
    }

    private func send(_ command: MixerCommand) {
        lock.withLock { _ = port.send(command, wake: false) }
    }
}
