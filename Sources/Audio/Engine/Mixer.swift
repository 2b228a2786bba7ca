import Foundation
import Synchronization

/// A command from the control side to the render thread.
struct MixerCommand {
    enum Kind: UInt8 {
        case start, stop, stopAll
        case beaconStart, beaconStop, beaconMute, beaconLocation, beaconRinging, beaconLevel
        case masterGain
    }
    var kind: Kind
    var id: UInt64 = 0
    var stream: Unmanaged<SampleStream>? = nil
    var assets: Unmanaged<BeaconAssets>? = nil
    var placement: Placement = .standard
    var value: Double = 0
    var value2: Double = 0
    var flag = false
}

/// A report from the render thread.
struct MixerEvent {
    enum Kind: UInt8 { case started, finished, beaconComponent, beaconEnded, dropped }
    var kind: Kind
    var id: UInt64 = 0
    var stream: Unmanaged<SampleStream>? = nil
    var assets: Unmanaged<BeaconAssets>? = nil
    var completed = false
    /// Mixer frame (since the engine started) where it happened.
    var frame = 0
    /// For beacon components: frames since the loop started, the component, the angle used.
    var phraseFrame = 0
    var component = 0
    var angle = Double.nan
    var nanos: UInt64 = 0
}

/// Where the listener is and which way they face; written by the control side, read by the render thread.
final class ListenerState: @unchecked Sendable {
    /// Degrees clockwise from north; NaN when unknown.
    let heading = AtomicDouble(.nan)
    /// The last finite heading (used to place sounds when there is none now).
    let lastHeading = AtomicDouble(0)
    let latitude = AtomicDouble(.nan)
    let longitude = AtomicDouble(.nan)
    /// Incremented with every heading update, with the time it was made (for the motion-to-sound figure).
    let headingSerial = Atomic<UInt64>(0)
    let headingNanos = Atomic<UInt64>(0)
    /// The beacon heading (spec §2.2: user → device → course), which chooses the beacon's part; NaN when none.
    let beaconHeading = AtomicDouble(.nan)
    /// Until a beacon heading is given, the beacon's part follows the listener heading.
    let beaconHeadingGiven = Atomic<Bool>(false)
}

/// One discrete sound being played (render-thread state).
struct VoiceSlot {
    var active = false
    var id: UInt64 = 0
    var stream: Unmanaged<SampleStream>? = nil
    var channels = 1
    var position = 0
    var placement: Placement = .standard
    var gain: Float = 1
    var stopping = false
    var started = false
}

/// Render-thread state of the beacon.
struct BeaconVoice {
    enum Stage { case intro, loop, outro }
    var active = false
    var id: UInt64 = 0
    var assets: Unmanaged<BeaconAssets>? = nil
    var data: UnsafeMutablePointer<Float>? = nil
    var count = 0, phrase = 0, beats = 0, perBeat = 0
    var intro: UnsafeMutablePointer<Float>? = nil, introFrames = 0
    var outro: UnsafeMutablePointer<Float>? = nil, outroFrames = 0
    var latitude = 0.0, longitude = 0.0, ringing = 15.0
    var stage = Stage.loop
    var position = 0          // in the intro or outro
    var clock = 0             // frames since the loop started
    var component = -1, previous = -1, crossfade = 0
    var stopPending = false, fadingOut = false
    var muted = false
    var level: Float = 1
    var gain: Float = 0
}

/// The real-time mixer: discrete voices and the beacon, spatialised with the HRTF bank, summed into
/// interleaved stereo blocks of `blockFrames` frames.
///
/// Everything `render` touches is preallocated. Commands arrive through a lock-free queue, listener
/// data through atomics, and finished streams go back to the control side (which releases them), so the
/// render thread never allocates, frees, locks, logs or awaits.
final class Mixer: @unchecked Sendable {
    let blockFrames: Int
    let sampleRate: Int
    let bank: HRTFBank
    let maxVoices: Int
    let commands = SPSCRing<MixerCommand>(capacity: 512)
    let events = SPSCRing<MixerEvent>(capacity: 4_096)
    let listener = ListenerState()

    private let slots: UnsafeMutablePointer<VoiceSlot>
    private let spatial: [Unmanaged<SpatialVoice>]
    private let beaconSpatial: Unmanaged<SpatialVoice>
    private var beacon = BeaconVoice()
    private let voiceBuffer: UnsafeMutablePointer<Float>   // 2 × block
    private let beaconBuffer: UnsafeMutablePointer<Float>  // block
    private var masterGain: Float = 1
    /// Frames rendered since the start (render thread only; published for readers).
    private(set) var renderedFrames = 0
    let publishedFrames = Atomic<Int>(0)
    /// The heading update last applied to a rendered block, and when that block was finished.
    let appliedHeadingSerial = Atomic<UInt64>(0)
    let appliedHeadingNanos = Atomic<UInt64>(0)
    /// Time spent rendering (ns) and blocks rendered, for the load figure.
    let renderNanos = Atomic<UInt64>(0)

    init(bank: HRTFBank, blockFrames: Int = 256, maxVoices: Int = 32) {
        precondition(blockFrames % 32 == 0)
        self.bank = bank
        self.blockFrames = blockFrames
        self.sampleRate = bank.sampleRate
        self.maxVoices = maxVoices
        slots = .allocate(capacity: maxVoices)
        slots.initialize(repeating: VoiceSlot(), count: maxVoices)
        spatial = (0..<maxVoices).map { _ in Unmanaged.passRetained(SpatialVoice(bank: bank, blockSize: blockFrames)) }
        beaconSpatial = Unmanaged.passRetained(SpatialVoice(bank: bank, blockSize: blockFrames))
        voiceBuffer = .allocate(capacity: 2 * blockFrames)
        voiceBuffer.initialize(repeating: 0, count: 2 * blockFrames)
        beaconBuffer = .allocate(capacity: blockFrames)
        beaconBuffer.initialize(repeating: 0, count: blockFrames)
    }

    deinit {
        for i in 0..<maxVoices where slots[i].active { slots[i].stream?.release() }
        if beacon.active { beacon.assets?.release() }
        while let c = commands.pop() { c.stream?.release(); c.assets?.release() }
        slots.deallocate()
        for s in spatial { s.release() }
        beaconSpatial.release()
        voiceBuffer.deallocate()
        beaconBuffer.deallocate()
    }

    // MARK: render thread

    /// Renders one block of interleaved stereo into `output` (2 × blockFrames floats).
    func render(into output: UnsafeMutablePointer<Float>) {
        let t0 = monotonicNanos()
        while let command = commands.pop() { apply(command) }

        let serial = listener.headingSerial.load(ordering: .acquiring)
        let h = listener.heading.value
        let hasHeading = h.isFinite
        let heading = hasHeading ? h : listener.lastHeading.value
        let lat = listener.latitude.value, lon = listener.longitude.value

        output.update(repeating: 0, count: 2 * blockFrames)
        for i in 0..<maxVoices where slots[i].active {
            renderVoice(i, heading: heading, latitude: lat, longitude: lon, output: output)
        }
        if beacon.active {
            let own = listener.beaconHeadingGiven.load(ordering: .acquiring)
            let chooser = own ? listener.beaconHeading.value : h
            renderBeacon(heading: heading, chooser: chooser, latitude: lat, longitude: lon, output: output)
        }
        // Master gain and a soft knee above 0.8 instead of hard clipping.
        let g = masterGain
        for i in 0..<(2 * blockFrames) {
            let x = output[i] * g
            let m = abs(x)
            output[i] = m <= 0.8 ? x : (x < 0 ? -1 : 1) * (0.8 + 0.2 * tanhf((m - 0.8) / 0.2))
        }
        renderedFrames += blockFrames
        publishedFrames.store(renderedFrames, ordering: .releasing)
        let t1 = monotonicNanos()
        if serial != appliedHeadingSerial.load(ordering: .relaxed) {
            appliedHeadingNanos.store(t1, ordering: .relaxed)
            appliedHeadingSerial.store(serial, ordering: .releasing)
        }
        renderNanos.wrappingAdd(t1 - t0, ordering: .relaxed)
    }

    private func emit(_ e: MixerEvent) {
        if !events.push(e) {
            // The control side is far behind; nothing better to do than drop (it polls every few ms).
        }
    }

    private func apply(_ c: MixerCommand) {
        switch c.kind {
        case .start:
            guard let stream = c.stream else { return }
            var free = -1
            for i in 0..<maxVoices where !slots[i].active { free = i; break }
            guard free >= 0 else {
                emit(MixerEvent(kind: .finished, id: c.id, stream: stream, completed: false, frame: renderedFrames))
                return
            }
            spatial[free]._withUnsafeGuaranteedRef { $0.reset() }
            slots[free] = VoiceSlot(active: true, id: c.id, stream: stream,
                                    channels: stream._withUnsafeGuaranteedRef { $0.channels },
                                    position: 0, placement: c.placement, gain: 1, stopping: false, started: false)
        case .stop:
            for i in 0..<maxVoices where slots[i].active && slots[i].id == c.id { slots[i].stopping = true }
        case .stopAll:
            for i in 0..<maxVoices where slots[i].active { slots[i].stopping = true }
        case .beaconStart:
            guard let assets = c.assets else { return }
            if beacon.active { endBeacon() }
            beacon = assets._withUnsafeGuaranteedRef { a in
                BeaconVoice(active: true, id: c.id, assets: assets, data: a.data, count: a.componentCount,
                            phrase: a.phraseFrames, beats: a.beats, perBeat: a.phraseFrames / a.beats,
                            intro: a.intro, introFrames: a.introFrames, outro: a.outro, outroFrames: a.outroFrames,
                            latitude: c.placement.latitude, longitude: c.placement.longitude, ringing: c.value2,
                            stage: c.flag && a.intro != nil ? .intro : .loop, position: 0, clock: 0,
                            component: -1, previous: -1, crossfade: 0, stopPending: false, fadingOut: false,
                            muted: false, level: Float(c.value), gain: Float(c.value))
            }
            beaconSpatial._withUnsafeGuaranteedRef { $0.reset() }
        case .beaconStop:
            guard beacon.active else { return }
            if c.flag && beacon.outro != nil { beacon.stopPending = true } else { beacon.fadingOut = true }
        case .beaconMute:
            beacon.muted = c.flag
        case .beaconLocation:
            beacon.latitude = c.placement.latitude
            beacon.longitude = c.placement.longitude
        case .beaconRinging:
            beacon.ringing = c.value
        case .beaconLevel:
            beacon.level = Float(c.value)
        case .masterGain:
            masterGain = Float(c.value)
        }
    }

    private func renderVoice(_ i: Int, heading: Double, latitude: Double, longitude: Double, output: UnsafeMutablePointer<Float>) {
        let slot = slots + i
        guard let stream = slot.pointee.stream else { slot.pointee.active = false; return }
        let n = blockFrames
        let channels = slot.pointee.channels
        // Read "finished" before the frames: if it was set, every frame is already published.
        let finished = stream._withUnsafeGuaranteedRef { $0.isFinished }
        let got = stream._withUnsafeGuaranteedRef { $0.read(from: slot.pointee.position, count: n, into: voiceBuffer) }
        let stopping = slot.pointee.stopping
        if got == 0 && !finished && !stopping { return }   // speech not synthesized yet: wait, keep the place
        if got < n { (voiceBuffer + got * channels).update(repeating: 0, count: (n - got) * channels) }
        slot.pointee.position += got
        if !slot.pointee.started && got > 0 {
            slot.pointee.started = true
            emit(MixerEvent(kind: .started, id: slot.pointee.id, frame: renderedFrames, nanos: monotonicNanos()))
        }
        let g0 = slot.pointee.gain
        let g1: Float = stopping ? 0 : g0
        if case .standard = slot.pointee.placement {
            let step = (g1 - g0) / Float(n)
            if channels == 2 {
                for k in 0..<n {
                    let g = g0 + step * Float(k)
                    output[2 * k] += g * voiceBuffer[2 * k]
                    output[2 * k + 1] += g * voiceBuffer[2 * k + 1]
                }
            } else {
                for k in 0..<n {
                    let v = (g0 + step * Float(k)) * voiceBuffer[k] * 0.7071
                    output[2 * k] += v
                    output[2 * k + 1] += v
                }
            }
        } else {
            let azimuth = Self.azimuth(slot.pointee.placement, heading: heading, latitude: latitude, longitude: longitude)
            let direction = bank.index(forAzimuth: azimuth)
            spatial[i]._withUnsafeGuaranteedRef { v in
                if channels == 1 {
                    v.input.update(from: voiceBuffer, count: n)
                } else {
                    for k in 0..<n { v.input[k] = 0.5 * (voiceBuffer[2 * k] + voiceBuffer[2 * k + 1]) }
                }
                v.process(target: direction, gainFrom: g0, gainTo: g1, output: output)
            }
        }
        slot.pointee.gain = g1
        if stopping || (finished && got < n) {
            slot.pointee.active = false
            emit(MixerEvent(kind: .finished, id: slot.pointee.id, stream: stream, completed: !stopping, frame: renderedFrames + got))
            slot.pointee.stream = nil
        }
    }

    /// Azimuth in the listener's frame (degrees clockwise from ahead) for a placement.
    @inline(__always)
    static func azimuth(_ p: Placement, heading: Double, latitude: Double, longitude: Double) -> Double {
        switch p {
        case .standard: return 0
        case .relative(let d): return d
        case .compass(let b): return b - heading
        case .localized(let la, let lo):
            guard latitude.isFinite, longitude.isFinite else { return 0 }
            return initialBearing(latitude, longitude, la, lo) - heading
        }
    }

    /// Great-circle initial bearing in degrees (allocation-free; same formula as Geo).
    @inline(__always)
    static func initialBearing(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = Double.pi / 180
        let φ1 = lat1 * r, φ2 = lat2 * r, Δλ = (lon2 - lon1) * r
        let y = sin(Δλ) * cos(φ2)
        let x = cos(φ1) * sin(φ2) - sin(φ1) * cos(φ2) * cos(Δλ)
        return atan2(y, x) / r
    }

    private func endBeacon() {
        emit(MixerEvent(kind: .beaconEnded, id: beacon.id, assets: beacon.assets, frame: renderedFrames))
        beacon = BeaconVoice()
    }

    /// `heading` places the beacon around the listener; `chooser` (the beacon heading, NaN when none) picks its part.
    private func renderBeacon(heading: Double, chooser: Double, latitude: Double, longitude: Double,
                              output: UnsafeMutablePointer<Float>) {
        let n = blockFrames
        let relative = Self.azimuth(.localized(latitude: beacon.latitude, longitude: beacon.longitude),
                                    heading: heading, latitude: latitude, longitude: longitude)
        // Spec §4.4: angle = beacon heading − bearing; no heading → the last ("behind") component, dimmed.
        let hasHeading = chooser.isFinite
        let selectionAngle: Double? = hasHeading && latitude.isFinite
            ? chooser - Self.initialBearing(latitude, longitude, beacon.latitude, beacon.longitude) : nil
        var ended = false
        var i = 0
        let buf = beaconBuffer
        while i < n {
            switch beacon.stage {
            case .intro:
                let run = min(n - i, beacon.introFrames - beacon.position)
                (buf + i).update(from: beacon.intro! + beacon.position, count: run)
                beacon.position += run
                i += run
                if beacon.position >= beacon.introFrames { beacon.stage = .loop; beacon.clock = 0 }
            case .loop:
                let p = beacon.clock % beacon.phrase
                let intoBeat = p % beacon.perBeat
                if intoBeat == 0 {
                    if beacon.stopPending {
                        beacon.stage = .outro
                        beacon.position = 0
                        continue
                    }
                    let want = BeaconStyle.component(forAngle: selectionAngle, componentCount: beacon.count, ringing: beacon.ringing)
                    if want != beacon.component {
                        beacon.previous = beacon.component
                        beacon.crossfade = beacon.previous >= 0 ? 256 : 0
                        beacon.component = want
                        emit(MixerEvent(kind: .beaconComponent, id: beacon.id, frame: renderedFrames + i,
                                        phraseFrame: beacon.clock, component: want, angle: selectionAngle ?? .nan))
                    }
                }
                let run = min(n - i, beacon.perBeat - intoBeat)
                let cur = beacon.data! + beacon.component * beacon.phrase + p
                if beacon.crossfade > 0 {
                    let prev = beacon.data! + beacon.previous * beacon.phrase + p
                    for k in 0..<run {
                        let w = beacon.crossfade > 0 ? Float(beacon.crossfade) / 256 : 0
                        buf[i + k] = cur[k] + w * (prev[k] - cur[k])
                        if beacon.crossfade > 0 { beacon.crossfade -= 1 }
                    }
                } else {
                    (buf + i).update(from: cur, count: run)
                }
                beacon.clock += run
                i += run
            case .outro:
                let run = min(n - i, beacon.outroFrames - beacon.position)
                if run <= 0 {
                    (buf + i).update(repeating: 0, count: n - i)
                    i = n
                    ended = true
                } else {
                    (buf + i).update(from: beacon.outro! + beacon.position, count: run)
                    beacon.position += run
                    i += run
                    if beacon.position >= beacon.outroFrames { (buf + i).update(repeating: 0, count: n - i); i = n; ended = true }
                }
            }
        }
        // Level: muted → 0; no heading → pulled back to 5 m (≈ −8 dB); fades of ≈50 ms.
        var target: Float = beacon.muted || beacon.fadingOut ? 0 : beacon.level * (hasHeading ? 1 : 0.4)
        if beacon.fadingOut { target = 0 }
        let maxStep = max(beacon.level, 0.05) * Float(n) / (0.05 * Float(sampleRate)) * (beacon.fadingOut ? 2 : 1)
        let g0 = beacon.gain
        let g1 = g0 + min(max(target - g0, -maxStep), maxStep)
        beacon.gain = g1
        let direction = bank.index(forAzimuth: relative)
        beaconSpatial._withUnsafeGuaranteedRef { v in
            if g0 == 0 && g1 == 0 {
                v.reset()
            } else {
                v.input.update(from: buf, count: n)
                v.process(target: direction, gainFrom: g0, gainTo: g1, output: output)
            }
        }
        if ended || (beacon.fadingOut && g1 == 0) { endBeacon() }
    }
}

extension Placement {
    var latitude: Double { if case .localized(let la, _) = self { return la } else { return .nan } }
    var longitude: Double { if case .localized(_, let lo) = self { return lo } else { return .nan } }
}
