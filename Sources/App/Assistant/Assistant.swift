import Behaviors
import Callouts
import Foundation
import Geo
import Guidance
import Location
import MapData
import Speech

/// The assistant as the program runs it: the event pipeline (``EventProcessor`` with the default Soundscape
/// behavior and its ``CalloutCoordinator``) wired to a reply output, fed with positions and commands.
///
/// Thin by design: the decisions are in the Behaviors stage; this turns location events into pipeline events,
/// typed or spoken commands into actions (``CommandMap``), and keeps the pipeline's clock with the fixes when
/// a walk is replayed.
public final class Assistant: Sendable {
    public let processor: EventProcessor
    let output: any ReplyOutput
    /// The map (Street Preview's roads); nil when none is loaded.
    let map: SpatialDataView?
    /// Street Preview, while it runs.
    let preview = Locked<PreviewSession?>(nil)
    /// The phrases and units in force (they change with "use imperial", "language german").
    let phrasing: Locked<Phrasing>
    var table: StringTable { phrasing.value.table }
    /// The settings: current values, applied to the audio and saved to the settings file.
    public let settings: any SettingsControl
    /// Where "I am facing north" goes; nil: not available.
    let headingControl: (any HeadingControl)?
    /// The last changes, for "undo".
    let undoHistory = Locked(UndoHistory(limit: 10))
    /// Set when time follows the fixes (replayed walks): each fix moves it to its timestamp.
    private let fixClock: SimulatedClock?
    /// The pipeline's time (the fixes' time on replayed walks).
    private let pipelineClock: PipelineClock
    /// What a command waits on for the first fix (``locatedUser()``): the wall clock, or a test's clock.
    private let waitClock: any Clock<Duration>
    /// The pipeline's time now (the fixes' time on replayed walks).
    var pipelineNow: Date { pipelineClock.now }
    /// Beacon, markers and routes; nil: their commands are not available.
    public let guidance: GuidanceSetup?
    /// Headings from the location stage's heading sources (`run`); until one reports, the fixes' course is used.
    public let headings = HeadingRelay()
    private let positionObservers = Locked<[@Sendable (Coordinate) -> Void]>([])

    /// - Parameters:
    ///   - followFixTimes: take the pipeline's time from the fixes (replayed walks, `say`), not the wall clock.
    ///   - format: how callouts are printed as they are heard.
    ///   - settings: the settings to change by voice; nil: changes hold for this session only.
    ///   - headingControl: the heading sources ("I am facing north"); nil: not available.
    ///   - waitClock: the clock a command waits on for the first fix.
    private let intents: IntentParser?

    public init(map: SpatialDataView?, phrasing: Phrasing, output: any ReplyOutput, followFixTimes: Bool,
                format: CalloutOutputPlayer.Format = .text, startTime: Date = Date(),
                beacon: (any BeaconStateReader)? = nil, markers: (any MarkerReader)? = nil, guidance: GuidanceSetup? = nil,
                intents: IntentParser? = nil, settings: (any SettingsControl)? = nil,
                headingControl: (any HeadingControl)? = nil, waitClock: any Clock<Duration> = ContinuousClock()) {
        self.intents = intents
        self.waitClock = waitClock
        self.headingControl = headingControl
        self.map = map
        var sessionSettings = Settings()
        sessionSettings.units = phrasing.distances.units
        sessionSettings.language = phrasing.table.language
        let settings = settings ?? LiveSettings(store: nil, settings: sessionSettings, audio: nil)
        self.settings = settings
        let clock: PipelineClock
        if followFixTimes {
            let simulated = SimulatedClock()
            fixClock = simulated
            clock = PipelineClock(simulated, start: startTime)
        } else {
            fixClock = nil
            clock = .system()
        }
        pipelineClock = clock
        self.output = output
        self.phrasing = Locked(phrasing)
        self.guidance = guidance
        processor = EventProcessor(map: map, phrasing: phrasing, player: CalloutOutputPlayer(output: output, format: format),
                                   clock: clock, beacon: guidance?.beaconReader ?? beacon,
                                   markers: guidance?.markerReader ?? markers)
        guidance?.attach(processor)
        // Replies and problems join the callouts in the coordinator's one queue.
        output.route(through: processor.coordinator)
        processor.start()
        // The callout categories of the settings file (the master switch only when it is off: `say` turns
        // automatic callouts off and on around its answer).
        Task { [processor] in
            let s = await settings.current()
            await processor.setCalloutSenses(placesAndLandmarks: s.placesAndLandmarks, mobility: s.mobility,
                                             beaconDistance: s.beaconDistance)
            if !s.callouts { await processor.setAutomaticCallouts(false) }
        }
    }

    // MARK: inputs

    /// Handles one input, whatever its kind (``AssistantInput``). Returns false on "quit".
    public func handle(_ input: AssistantInput) async -> Bool {
        switch input {
        case .spoken(let spoken): return await handle(spoken)
        case .typed(let line): return await handle(command: line)
        case .control(.command(let line)): return await handle(command: line)
        case .location(let event): await handle(event)
        case .heading(let update): await handle(update)
        }
        return true
    }

    /// Told the coordinate of every fix handled (the voice input keeps the names of places nearby current with it).
    public func observePositions(_ observer: @escaping @Sendable (Coordinate) -> Void) {
        positionObservers.update { $0.append(observer) }
    }

    /// Passes a location event into the pipeline and waits until it has been handled (so that the pipeline's
    /// time and the fixes stay together).
    public func handle(_ event: PositionEvent) async {
        switch event {
        case .update(let update):
            let fix = update.fix
            fixClock?.advance(by: .seconds(fix.timestamp.timeIntervalSince(pipelineClock.now)))
            // Street Preview: the walker stays where it is; the real position is kept for the return.
            if keepDuringPreview(fix) { break }
            headings.location = fix.coordinate
            if let resolved = update.headings { _ = headings.store(resolved) }
            for observer in positionObservers.value { observer(fix.coordinate) }
            processor.post(LocationUpdatedEvent(fix: fix, headings: headings.pipelineHeadings, motion: update.motion))
            await guidance?.update(location: fix.coordinate, now: fix.timestamp)
            // The listener faces the presentation heading; without heading sources, the course while walking (≥ 0.4 m/s).
            let facing = headings.isActive ? headings.listenerHeading : ((fix.speed ?? 0) >= 0.4 ? fix.course : nil)
            await output.moveListener(to: fix.coordinate, heading: facing)
            if headings.isActive { await output.turnBeacon(to: headings.current?.beacon?.degrees) }
        case .lost:
            processor.post(GPSStatusChangedEvent(.lost))
        case .restored:
            processor.post(GPSStatusChangedEvent(.restored))
        case .walkEnded:
            break
        }
        await processor.flush()
    }

    /// New headings from the location stage: the listener turns at once; the pipeline hears of changes that
    /// matter to what it says (a new source, or 5° or more).
    public func handle(_ update: HeadingUpdate) async {
        let tellPipeline = headings.store(update)
        // Street Preview: the walker's heading is the pipeline's and the listener's; real ones wait for the return.
        if isPreviewing { return }
        if let location = headings.location {
            await output.moveListener(to: location, heading: headings.listenerHeading)
        }
        await output.turnBeacon(to: update.beacon?.degrees)
        if tellPipeline, let pipeline = headings.pipelineHeadings { processor.post(HeadingsChangedEvent(pipeline)) }
    }

    /// Takes a position without waiting for the pipeline (`say`: the place the answer is given from).
    public func locate(_ fix: LocationFix) async {
        await handle(.fix(fix))
    }

    // MARK: commands

    /// A typed line: parsed (for now by the exact-phrase fallback), then handled. Returns false on "quit".
    public func handle(command raw: String) async -> Bool {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return true }
        guard let command = Self.parse(trimmed, intents: intents) else {
            processor.post(GenericAnnouncementEvent(table("command.not_understood", trimmed), glyph: .invalidFunction))
            await processor.flush()
            return true
        }
        return await handle(command)
    }

    /// The command for a typed line: the grammars of `Grammars/` decide (the same phrasings as speech); the
    /// exact-phrase table only answers when no grammar is loaded or it finds nothing.
    public static func parse(_ text: String, intents: IntentParser?) -> RecognizedCommand? {
        intents?.parse(text) ?? TypedCommandFallback.parse(text)
    }

    /// The typed-command parser built from the grammar folder; nil (with the reason) when the grammars do not load.
    public static func intentParser(grammars: String) -> (IntentParser?, String?) {
        do { return (IntentParser(grammar: try CommandRecognizer.loadGrammar(grammars)), nil) } catch {
            return (nil, "\(error)")
        }
    }

    /// A spoken command as the voice input decided it: handled as it is (never parsed again); a name outside the
    /// vocabulary comes from the transcript's words ("text" slot). Returns false on "quit".
    public func handle(_ spoken: SpokenCommand) async -> Bool {
        await handle(spoken.command)
    }

    /// A recognised command. Returns false on "quit".
    public func handle(_ command: RecognizedCommand) async -> Bool {
        switch CommandMap.action(for: command) {
        case .post(let event):
            // "Where am I" typed or said the moment the program has started is answered from the first fix, which
            // is on its way (a fixed location, or gpsd's first report), rather than with "not known yet".
            if event is ExplorationEvent { _ = await locatedUser() }
            processor.post(event)
        case .hush:
            await processor.hush()
            await guidance?.hush()
        case .guidance(let request):
            if let guidance {
                if let change = await guidance.perform(request, user: await locatedUser()) {
                    undoHistory.update { $0.push(.guidance(change)) }
                }
            } else {
                let event: any UserInitiatedEvent = request == .whereIsBeacon ? BeaconCalloutEvent() : UnavailableCommandEvent(words: command.words)
                processor.post(event)
            }
        case .sleep: await processor.sleep()
        case .wake: await processor.wake()
        case .snooze: await processor.snooze()
        case .setting(let change): await changeSetting(change, words: command.words)
        case .undo: await undo()
        case .redo: await redo()
        case .facing(let degrees): await face(degrees, words: command.words)
        case .preview(let request): await perform(request)
        case .quit:
            processor.post(GenericAnnouncementEvent(table("status.goodbye")))
            await settle()
            return false
        }
        await processor.flush()
        return true
    }

    /// The user as the pipeline knows them; a command that needs a position, given before the first fix, waits up to
    /// 2 s for one.
    func locatedUser() async -> UserState {
        await processor.flush()
        var user = await processor.currentUser
        for _ in 0..<20 where user.location == nil {
            try? await waitClock.sleep(for: .milliseconds(100))
            await processor.flush()
            user = await processor.currentUser
        }
        return user
    }

    /// Says something in turn (the greeting), through the pipeline.
    public func announce(_ text: String, glyph: Glyph? = nil) async {
        processor.post(GenericAnnouncementEvent(text, glyph: glyph, action: .enqueue))
        await processor.flush()
    }

    /// Returns when everything posted has been handled and heard.
    public func settle() async {
        await processor.settle()
        await output.finish()
    }
}
