import Audio
import Foundation
import Geo
import Logging
import MapData
import ServiceLifecycle
import Speech
import Synchronization

/// How voice input is set up (`soundscape run` options).
public struct VoiceInputOptions: Sendable {
    /// PulseAudio source; nil for the default source.
    public var source: String?
    /// Control socket path (``AppEnvironment/controlSocket`` by default).
    public var controlSocket: String
    /// Wake phrase ("hey soundscape"); nil for push-to-talk only.
    public var wakeWord: String?
    /// Input device and key for hold-to-talk (`/dev/input/event3`, KEY_RIGHTCTRL).
    public var keyDevice: String?
    public var keyCode: UInt16 = 97
    /// End utterances by themselves after this much silence (voice-activity endpointing).
    public var endpointSilence: Double?
    /// Where each microphone's cepstral mean is kept between runs (``MicrophoneAdaptationStore``,
    /// ``AppEnvironment/microphoneAdaptation`` by default).
    public var adaptationFile: String
    /// Keep every utterance as a WAV file in this folder (for checking a microphone); nil for none.
    public var recordingsDirectory: String?

    public init(source: String? = nil, controlSocket: String, wakeWord: String? = nil, keyDevice: String? = nil,
                keyCode: UInt16 = 97, endpointSilence: Double? = nil, adaptationFile: String, recordingsDirectory: String? = nil) {
        self.source = source
        self.controlSocket = controlSocket
        self.wakeWord = wakeWord
        self.keyDevice = keyDevice
        self.keyCode = keyCode
        self.endpointSilence = endpointSilence
        self.adaptationFile = adaptationFile
        self.recordingsDirectory = recordingsDirectory
    }
}

/// Voice commands for the running assistant: the microphone, push-to-talk from the control socket, an
/// input-device key, the terminal (an empty line toggles listening) or the wake word; the recognizer with
/// the places near the user in its grammar; earcons on press, recognition and rejection.
///
/// Recognized commands go to the assistant's input as they were decided (``AssistantInput/spoken(_:)``), with both
/// recognizers' evidence; nothing is turned back into words.
public final class VoiceService: Service, @unchecked Sendable {
    private let commands: AsyncStream<AssistantInput>.Continuation
    public let listener: CommandListener
    public let socket: ControlSocket
    private let key: EvdevKey?
    private let places: NearbyPlaceNames?
    private let extraSources: [any SlotSource]
    private let grammarWatch: GrammarWatch
    private let earcon: @Sendable (Earcon) async -> Void
    private let logger = Logger(label: "soundscape.voice")
    /// The microphone's cepstral mean, kept between runs under its source name.
    private let adaptation: MicrophoneAdaptationStore
    /// Why the kept adaptation could not be used (a damaged file), for the program to say; nil when all is well.
    public let adaptationProblem: String?
    /// Why RNNoise is not cleaning the microphone, for the program to say; nil when all is well.
    public let denoiserProblem: String?
    /// Why there is no second recognizer (PocketSphinx decides alone), for the program to say once; nil when there is one.
    public let secondRecognizerProblem: String?
    private let speak: @Sendable (String) async -> Void
    /// The wake phrase listened for, when there is one (for the "ready" line).
    private let wakePhrase: String?

    /// - Parameters:
    ///   - map: for the names of places near the user (`$places`).
    ///   - position: where the user is, when fixed (`--at`); later positions come through ``userMoved(to:)``.
    ///   - commands: the assistant's input, where recognized commands go.
    ///   - slotSources: markers and routes, when the program has them.
    ///   - microphoneChanged: told once when the microphone goes away and once when one records again (by default
    ///     printed, the loss as a "Problem:"); give the assistant's output to have it spoken as well.
    ///   - secondRecognizer: the neural second opinion and, when there is none, why (``SecondRecognizer/load(paths:model:everyUtterance:transcriber:)``).
    ///   - speak: says "Say that again?" when the two recognizers disagree (by default printed).
    public init(paths: ProjectPaths, options: VoiceInputOptions, map: SpatialDataView?, position: Coordinate?,
                slotSources: [any SlotSource] = [],
                secondRecognizer: (secondOpinion: SecondOpinion?, problem: String?) = (nil, nil),
                commands: AsyncStream<AssistantInput>.Continuation,
                earcon: @escaping @Sendable (Earcon) async -> Void,
                speak: @escaping @Sendable (String) async -> Void = { printReply($0) },
                microphoneChanged: @escaping @Sendable (PulseMicrophone.MicrophoneChange) -> Void = VoiceService.printMicrophoneChange) throws {
        let recognizer = try CommandRecognizer(paths: paths)
        denoiserProblem = recognizer.denoiserProblem
        secondRecognizerProblem = secondRecognizer.problem
        self.speak = speak
        adaptation = MicrophoneAdaptationStore(path: options.adaptationFile)
        // The microphone in use, under whose name the adaptation is kept.
        let keeper = MicrophoneAdaptationKeeper(store: adaptation)
        let attached = AttachedListener()
        let logger = logger
        // When voice input moves to another microphone (the default source changed), the recognizer and the
        // wake-word spotter start from what was kept for that one. The report comes on the listener's thread, so
        // the utterances before it are filed under the old microphone; both take the kept mean before the next
        // utterance starts.
        let microphone = try PulseMicrophone(source: options.source) { change in
            if case .back(_, let source) = change {
                do {
                    if let mean = try keeper.switchedTo(source) {
                        attached.listener?.adapt(cepstralMean: mean) { error in
                            logger.warning("voice: what was kept for \(source) does not fit the speech model (\(error))")
                        }
                    }
                } catch {
                    logger.warning("voice: \(error)")
                }
            }
            microphoneChanged(change)
        }
        // The source the microphone records from (the default one, by name): what was kept for it, if anything.
        let microphoneName = microphone.sourceName ?? "default"
        // The recognizer's dictionary (the extra words in it), shared rather than read a second time.
        let wake = try options.wakeWord.map { try WakeWordSpotter(phrase: $0, lexicon: recognizer.recognizer.lexicon) }
        wakePhrase = wake?.phrase
        do {
            if let mean = try keeper.switchedTo(microphoneName) {
                do {
                    try recognizer.recognizer.adapt(cepstralMean: mean)
                    try wake?.adapt(cepstralMean: mean)
                } catch {
                    throw MicrophoneAdaptationStore.ReadError(description: "\(adaptation.path): what was kept for \(microphoneName) does not fit the speech model (\(error)); starting from the model's defaults")
                }
            }
            adaptationProblem = nil
        } catch {
            // Not fatal: the recognizer starts from the model's defaults, and the next save replaces the file.
            adaptationProblem = "\(error)"
        }
        var listenerOptions = CommandListener.Options()
        listenerOptions.endpointSilence = options.endpointSilence
        listenerOptions.recordingsDirectory = options.recordingsDirectory
        // After each utterance, what the recognizer learned is kept for the microphone that heard it.
        listener = CommandListener(recognizer: recognizer.recognizer, capture: microphone, wakeWord: wake, options: listenerOptions,
                                   secondOpinion: secondRecognizer.secondOpinion) { recognizer in
            do { try keeper.save(recognizer.cepstralMean) } catch {
                logger.warning("voice: cannot keep the microphone's adaptation in \(keeper.store.path): \(error.localizedDescription)")
            }
        }
        attached.listener = listener
        let listener = self.listener
        socket = try ControlSocket(path: options.controlSocket,
                                   command: { commands.yield(.control(.command($0))) }) { listener.send($0) }
        key = try options.keyDevice.map { try EvdevKey(device: $0, key: options.keyCode) { listener.send($0) } }
        places = map.map { NearbyPlaceNames(map: $0) }
        if let position { places?.move(to: position) }
        extraSources = slotSources + (map.map { [LandmarkNames(map: $0)] } ?? [])
        grammarWatch = recognizer.grammarWatch
        self.commands = commands
        self.earcon = earcon
    }

    /// Prints a microphone change: the loss as a problem, the return as a plain line.
    @Sendable public static func printMicrophoneChange(_ change: PulseMicrophone.MicrophoneChange) {
        switch change {
        case .lost(let message): printReply("Problem: \(message)")
        case .back(let message, _): printReply(message)
        }
    }

    /// Listens for what can be said in `state` from the next utterance on: "wake up" only while the assistant
    /// sleeps, everything else only while it is awake (``ListeningState``).
    public func setListeningState(_ state: ListeningState) {
        let logger = logger
        listener.perform { recognizer in
            do { try recognizer.setListeningState(state) } catch {
                logger.warning("voice: cannot listen for the commands of the \(state.rawValue) state: \(error)")
            }
        }
    }

    /// Push-to-talk from code (tests, the terminal).
    public func send(_ action: PushToTalk) { listener.send(action) }

    /// The user is here now (the assistant tells it of each fix): the names of places nearby follow at the next refresh.
    public func userMoved(to position: Coordinate) {
        places?.move(to: position)
    }

    /// A continuation to give the terminal reader: an empty line toggles listening, other lines pass to `next`.
    public func terminalInput(forwardingTo next: AsyncStream<AssistantInput>.Continuation) -> AsyncStream<AssistantInput>.Continuation {
        let (stream, continuation) = AsyncStream<AssistantInput>.makeStream()
        let listener = self.listener
        Task {
            for await input in stream {
                if case .typed(let line) = input, line.trimmingCharacters(in: .whitespaces).isEmpty { listener.send(.toggle) } else { next.yield(input) }
            }
            next.finish()
        }
        return continuation
    }

    public func run() async throws {
        logger.info("voice commands: push-to-talk on \(socket.path)")
        // The names of places nearby are queued first, so that the listener takes them before it reads any audio.
        await refreshSlots(force: true)
        listener.start()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.handleEvents() }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(2))
                    await self.refreshSlots(force: false)
                    self.reloadGrammarIfChanged()
                }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        listener.stop()
        socket.shutdown()
    }

    private func handleEvents() async {
        var released = false
        // Both recognizers' report comes just before the command it decided.
        var evidence: TwoRecognizerReport?
        for await event in listener.events {
            switch event {
            case .ready:
                logger.info("voice: ready\(wakePhrase.map { ", listening for \"\($0)\"" } ?? "")")
            case .listening(let byWakeWord):
                logger.info("voice: listening\(byWakeWord ? " (wake word)" : "")")
                await earcon(.listeningStart)
            case .released:
                // "Heard you", at once; the decision follows.
                released = true
                await earcon(.listeningStop)
            case .checked(let report):
                evidence = report
                logger.info("voice: PocketSphinx heard \"\(report.firstText)\" (\(String(format: "%.2f", report.firstConfidence))), the second recognizer \(report.transcript.map { "wrote \"\($0)\", snapped to \"\(report.snapped ?? "")\" (distance \(report.snapDistance.map { String(format: "%.2f", $0) } ?? "-"))" } ?? "was not asked\(report.problem.map { " (\($0))" } ?? "")"): \(report.decision.outcome.rawValue), \(report.decision.reason)")
            case .recognized(let command, let latency):
                logger.info("voice: heard \"\(command.words)\" → \(command.intent) \(command.slots) confidence \(String(format: "%.2f", command.confidence)), \(Int(latency.voiceMilliseconds)) ms after release")
                if !released { await earcon(.listeningStop) }
                released = false
                commands.yield(.spoken(SpokenCommand(command, evidence: evidence)))
                evidence = nil
            case .rejected(let result, let latency):
                released = false
                evidence = nil
                logger.info("voice: not understood (\(result.rejection ?? "")\(result.text.isEmpty ? "" : ", heard \"\(result.text)\""), \(Int(latency.voiceMilliseconds)) ms)")
                await earcon(.invalidFunction)
            case .askAgain(let report, let latency):
                released = false
                evidence = nil
                logger.info("voice: asking again (\(report.decision.reason)), \(Int(latency.voiceMilliseconds)) ms")
                await earcon(.invalidFunction)
                await speak("Say that again?")
            case .cancelled:
                await earcon(.listeningStop)
            case .problem(let message):
                logger.warning("voice: \(message)")
            }
            if Task.isCancelled { return }
        }
    }

    private let revisions = Mutex<[String: Int]>([:])

    private func refreshSlots(force: Bool) async {
        var sources = extraSources
        if let places { sources.append(places) }
        for source in sources {
            let revision = await source.revision()
            let changed = revisions.withLock { r -> Bool in
                defer { r[source.source] = revision }
                return force || r[source.source] != revision
            }
            guard changed else { continue }
            let phrases = await source.phrases()
            let name = source.source
            let logger = self.logger
            listener.perform { recognizer in
                do { try recognizer.setPhrases(phrases, for: name) } catch {
                    logger.warning("voice: cannot listen for the \(name) names: \(error)")
                }
            }
        }
    }

    /// A `.gram` file was edited: load it; when it has an error, say where and keep the last good grammar.
    private func reloadGrammarIfChanged() {
        guard let changed = grammarWatch.reloadIfChanged() else { return }
        let logger = self.logger
        do {
            let grammar = try changed.get()
            listener.perform { recognizer in
                do {
                    try recognizer.replaceGrammar(grammar)
                    logger.notice("voice: reloaded the edited grammar")
                } catch {
                    logger.error("voice: grammar error: \(error); the last good grammar stays in use")
                }
            }
        } catch {
            logger.error("voice: grammar error: \(error); the last good grammar stays in use")
        }
    }
}

private extension Duration {
    var voiceMilliseconds: Double {
        let (s, a) = components
        return Double(s) * 1000 + Double(a) / 1e15
    }
}

/// The listener, once there is one, for the microphone's reports (which can come before it exists).
private final class AttachedListener: Sendable {
    private let value = Mutex<CommandListener?>(nil)
    var listener: CommandListener? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
