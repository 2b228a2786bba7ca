import Foundation
import Geo
import Synchronization

/// The audio engine: the spatial mixer with HRTF rendering, the thread that renders it and its output —
/// PulseAudio in real time, or memory (`say --wav`) — composed with the ``SoundQueue`` of discrete sounds
/// and the ``BeaconPlayer``, which plays independently, on top.
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

    public let configuration: Configuration
    public let bank: HRTFBank
    public let earcons: EarconLibrary
    public var sampleRate: Int { configuration.sampleRate }
    /// The discrete sounds, one after another.
    public let queue: SoundQueue
    /// The audio beacon.
    public let beacon: BeaconPlayer
    let mixer: Mixer
    let output: PulseOutput?
    /// Real time: the render thread (nil offline). Offline: the recording (nil in real time).
    private let renderThread: RenderThread?
    private let recorder: OfflineRecorder?
    /// Commands in, reports out, for the queue and the beacon.
    private let link: MixerLink
    private let running = Atomic<Bool>(true)
    /// Frames already queued for the server when the first block with the newest heading was rendered.
    var queuedAheadOfHeading: Int { renderThread?.queuedAheadOfHeading.load(ordering: .relaxed) ?? 0 }

    public init(configuration: Configuration = Configuration(), synthesizer: EspeakSynthesizer?, bank: HRTFBank? = nil) throws {
        self.configuration = configuration
        let bank = try bank ?? HRTFBank(sofaPath: configuration.sofaPath, sampleRate: configuration.sampleRate,
                                        taps: configuration.hrtfTaps, resolution: configuration.hrtfResolution)
        precondition(bank.sampleRate == configuration.sampleRate, "the HRTF bank must be at the output rate")
        self.bank = bank
        earcons = EarconLibrary(directory: configuration.soundsDirectory)
        let context = SoundContext(sampleRate: configuration.sampleRate, synthesizer: synthesizer, voice: configuration.voice,
                                   earcons: earcons, levels: configuration.levels)
        mixer = Mixer(bank: bank, blockFrames: configuration.blockFrames, maxVoices: configuration.maxVoices)
        var offline = false
        switch configuration.output {
        case .offline: output = nil; offline = true
        case .null: output = nil
        case .pulseAudio(let options): output = PulseOutput(options: options)
        }
        if offline {
            recorder = OfflineRecorder(mixer: mixer, blockFrames: configuration.blockFrames, sampleRate: configuration.sampleRate)
            renderThread = nil
        } else {
            recorder = nil
            renderThread = RenderThread(mixer: mixer, output: output, blockFrames: configuration.blockFrames,
                                        sampleRate: configuration.sampleRate)
        }
        link = MixerLink(mixer: mixer, renderThread: renderThread, output: output, recorder: recorder)
        queue = SoundQueue(port: link, context: context,
                           prepareOn: offline ? nil : DispatchQueue(label: "soundscape.audio.prepare", qos: .userInitiated))
        beacon = BeaconPlayer(port: link, listener: mixer.listener, sampleRate: configuration.sampleRate,
                              level: configuration.levels.beacon)
        link.attach(queue: queue, beacon: beacon)
        if !offline {
            output?.start()
            renderThread?.start()
            link.startPump()
        }
    }

    deinit { shutdown() }

    /// Stops the render thread and the sound-server connection. Sounds still playing report `interrupted`.
    public func shutdown() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        link.stop()
        output?.stop()
        queue.close()
        beacon.close()
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

    /// The beacon heading, which chooses the beacon's part (``BeaconPlayer/setHeading(_:)``).
    public func setBeaconHeading(_ degrees: Double?) { beacon.setHeading(degrees) }

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
        link.send(MixerCommand(kind: .masterGain, value: Double(gain)), wake: false)
    }

    // MARK: offline

    /// Offline: renders `seconds` more audio into the recording (time passes for the beacon and anything
    /// playing). Real time: no effect.
    public func render(seconds: Double) {
        render(frames: Int((seconds * Double(configuration.sampleRate)).rounded()))
    }

    func render(frames: Int) {
        let blocks = (frames + configuration.blockFrames - 1) / configuration.blockFrames
        for _ in 0..<max(blocks, 0) { guard link.advance() else { return } }
    }

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
        Status(connected: output?.isConnected ?? (recorder != nil), connections: output?.connections.load(ordering: .relaxed) ?? 0,
               underruns: output?.underruns.load(ordering: .relaxed) ?? 0, serverLatency: output?.latency(),
               renderedSeconds: Double(renderedFrames) / Double(configuration.sampleRate))
    }
}

// MARK: live settings (voice commands)

extension AudioEngine {
    /// The voice for speech prepared from now on (a sentence already being prepared keeps its voice).
    public func setVoice(_ voice: VoiceSettings) { queue.setVoice(voice) }

    /// Levels of speech and earcons prepared from now on, and the beacon's level at once.
    public func setLevels(_ levels: AudioLevels) {
        queue.setLevels(levels)
        beacon.setLevel(levels.beacon)
    }
}
