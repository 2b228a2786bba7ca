import Audio
import Callouts
import Foundation
import Geo
import Location
import Logging
import MapData
import ServiceLifecycle
import Speech

/// What `soundscape run` was asked for: the command line's options, before the settings file fills the rest.
public struct RunOptions: Sendable {
    /// Map database; nil: the settings', else the default one.
    public var db: String?
    /// gpsd as HOST:PORT; nil: the settings'.
    public var gpsd: String?
    /// Stay here instead of following GPS.
    public var at: Coordinate?
    /// With `at`: the direction faced, degrees from north.
    public var heading: Double?
    /// A GPX or NMEA walk to simulate when gpsd does not answer; nil: the bundled walk.
    public var walk: String?
    public var speed: Double = 1
    /// OpenTrack UDP poses on this port and address.
    public var headTracker: UInt16?
    public var headTrackerHost = "127.0.0.1"
    /// The D-Bus system bus with iio-sensor-proxy's compass; nil: the environment's, else the standard socket.
    public var systemBus: String?
    public var noCompass = false
    public var exitAtEndOfWalk = false
    /// Print replies without speaking them.
    public var quiet = false
    public var sink: String?
    public var hrtf: String?
    public var language: String?
    /// Settings file; nil: the default one.
    public var config: String?
    /// User database; nil: the environment's, else the default one.
    public var userDb: String?
    /// Voice input; nil: no microphone.
    public var voice: VoiceInputOptions?

    public init() {}
}

extension AppBuilder {
    /// `soundscape run`: builds the assistant with its inputs and outputs and runs it until it stops.
    public func run(_ options: RunOptions) async throws {
        let logger = Logger(label: "soundscape.run")
        let paths = environment.paths
        // Settings from the configuration file; options given on the command line win.
        let (store, loaded) = settings(file: options.config)
        let settings = loaded.settings
        let language = options.language ?? settings.language
        let gpsd = options.gpsd ?? settings.gpsd
        let dbPath = options.db ?? (settings.mapDatabase.isEmpty ? environment.mapDatabase : settings.mapDatabase)
        let table = try StringTable(language: language)
        let phrasing = Phrasing(table: table, units: settings.units)

        let audio = try AudioOptions(quiet: options.quiet, wav: nil, sink: options.sink ?? (settings.audioSink.isEmpty ? nil : settings.audioSink),
                                     hrtf: options.hrtf ?? settings.hrtf, paths: paths,
                                     voice: VoiceSettings(voice: settings.voice, rate: settings.speechRate),
                                     levels: AudioLevels(speech: Float(settings.speechVolume) / 100,
                                                         beacon: Float(settings.beaconVolume) / 100,
                                                         earcons: Float(settings.soundVolume) / 100))
            .makeOutput(oneShot: false)
        let output = audio.output
        defer { audio.engine?.shutdown() }
        for problem in loaded.problems { await output.problem(problem) }

        // Outside the imported area, tiles from the configured tile service (none configured: no network).
        let outsideTiles: OutsideMapTiles?
        do { outsideTiles = try OutsideMapTiles(service: settings.tileService, databasePath: dbPath) } catch {
            await output.problem("\(error)")
            throw AppExit(code: 1)
        }
        let map: SpatialDataView
        do { map = try SpatialDataView(path: dbPath) } catch {
            await output.problem("\(error)")
            throw AppExit(code: 1)
        }

        // Position: --at, else gpsd if it answers, else a simulated walk.
        let (source, sourceStatus) = try await chooseSource(options, paths: paths, table: table, gpsd: gpsd)
        if case .fixed(let c, _) = source, outsideTiles == nil, !Self.covers(map.metadata, c) {
            await output.problem("the map has no data for \(c.latitude), \(c.longitude)")
        }
        let greeting = table("status.startup", sourceStatus, table("status.map", MapPaths.regionName(map.metadata)),
                             table("status.typed_commands"))
        printReply("Map data \(map.metadata.attribution)")

        // A head tracker binds its port now, so that a port in use is said at start-up.
        var tracker: OpenTrackReceiver?
        if let port = options.headTracker {
            do { tracker = try OpenTrackReceiver(host: options.headTrackerHost, port: port) } catch {
                await output.problem("no head tracking (\(error))")
            }
        }

        let (locations, locationContinuation) = AsyncStream<AssistantInput>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let (commands, commandContinuation) = AsyncStream<AssistantInput>.makeStream()

        // MARK: voice input
        // Push-to-talk (control socket, an empty line in a terminal, an evdev key) or a wake word, the command
        // recognizer with the places nearby, earcons. Recognized commands join the typed ones, as decided.
        var voiceService: VoiceService?
        // Saved marker and route names for the recognizer, from the user database once it is open (below).
        let savedNames = [SavedNames(.markers), SavedNames(.routes)]
        if let voiceOptions = options.voice {
            do {
                let engine = audio.engine
                voiceService = try VoiceService(
                    paths: paths, options: voiceOptions, map: map,
                    position: options.at,
                    slotSources: savedNames,
                    secondRecognizer: SecondRecognizer.load(paths: paths),
                    commands: commandContinuation,
                    earcon: { earcon in _ = await engine?.queue.playNow(GlyphSound(earcon)) },
                    speak: { await output.say($0) },
                    microphoneChanged: { change in
                        // Said and printed, like every problem: the microphone went away, or came back.
                        Task {
                            switch change {
                            case .lost(let message): await output.problem(message)
                            case .back(let message, _): await output.say(message)
                            }
                        }
                    })
            } catch {
                await output.problem("voice commands are off (\(error)); type commands instead")
            }
            if let problem = voiceService?.adaptationProblem { await output.problem(problem) }
            if let problem = voiceService?.denoiserProblem { await output.problem(problem) }
            if let problem = voiceService?.secondRecognizerProblem { await output.problem(problem) }
        }
        let typedContinuation = isatty(0) == 1 ? (voiceService?.terminalInput(forwardingTo: commandContinuation) ?? commandContinuation)
                                               : commandContinuation
        let voiceServices: [ServiceGroupConfiguration.ServiceConfiguration] =
            voiceService.map { [.init(service: $0, successTerminationBehavior: .ignore, serviceName: "voice commands")] } ?? []
        // MARK: end of voice input

        // A replayed walk keeps the pipeline's time with its fixes, whatever the replay speed.
        var followFixTimes = false
        if case .replay = source { followFixTimes = true }
        let guidance = await guidance(map: map, mapPath: dbPath, language: language, settings: settings,
                                      userDb: options.userDb, engine: audio.engine)
        for names in savedNames { names.attach(guidance.store) }
        let (intents, grammarProblem) = intentParser()
        if let grammarProblem { await output.problem("\(grammarProblem); typed commands use the built-in phrases") }
        // Headings go to the assistant through a short stream that keeps only the newest (a head tracker sends 50 a second).
        var feedContinuation = locationContinuation
        var tileServices: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let outsideTiles {
            let (fixes, fixContinuation) = AsyncStream<AssistantInput>.makeStream(bufferingPolicy: .bufferingNewest(64))
            tileServices = [.init(service: OutsideMapTilesService(tiles: outsideTiles, input: fixes, forward: locationContinuation,
                                                                  say: { await output.say($0) },
                                                                  problem: { await output.problem($0) }),
                                  successTerminationBehavior: .ignore, serviceName: "map tiles")]
            feedContinuation = fixContinuation
        }
        let (headings, headingContinuation) = AsyncStream<AssistantInput>.makeStream(bufferingPolicy: .bufferingNewest(4))
        let compassBus = options.systemBus ?? environment.systemBus ?? SensorProxyCompass.systemBusAddress
        let compass = options.noCompass ? nil : SensorProxyCompass(configuration: .init(busAddress: compassBus))
        let location = LocationService(source: source, headTracker: tracker, compass: compass, continuation: feedContinuation,
                                       headings: { headingContinuation.yield(.heading($0)) })
        let assistant = Assistant(map: map, phrasing: phrasing, output: output, followFixTimes: followFixTimes, guidance: guidance,
                                  intents: intents,
                                  settings: LiveSettings(store: store, settings: loaded.settings, audio: audio.engine),
                                  headingControl: location.manager)
        if let voiceService {
            await assistant.processor.observeSleep { asleep in voiceService.setListeningState(asleep ? .asleep : .awake) }
            assistant.observePositions { voiceService.userMoved(to: $0) }
        }
        let services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: location, successTerminationBehavior: .ignore, serviceName: location.description),
            .init(service: TerminalCommands(continuation: typedContinuation), successTerminationBehavior: .ignore,
                  serviceName: "typed commands"),
            .init(service: AssistantService(assistant: assistant, greeting: greeting, locations: locations,
                                            commands: commands, headings: headings, stopAtEndOfWalk: options.exitAtEndOfWalk,
                                            endCommands: { commandContinuation.finish() }),
                  successTerminationBehavior: .gracefullyShutdownGroup, serviceName: "assistant"),
        ] + voiceServices + tileServices
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            await output.problem("the assistant stopped: \(error)")
            await output.finish()   // heard before the program ends
            throw AppExit(code: 1)
        }
    }

    private func chooseSource(_ options: RunOptions, paths: ProjectPaths, table: StringTable, gpsd: String) async throws -> (LocationSource, String) {
        if let at = options.at {
            return (.fixed(at, heading: options.heading), table("status.fixed_location"))
        }
        if options.walk == nil, let endpoint = GpsdEndpoint(gpsd), await Self.gpsdAnswers(endpoint) {
            return (.gpsd(endpoint), table("status.gps_ready"))
        }
        let file = options.walk ?? paths.home.appendingPathComponent("Walks/helsinki-centre.gpx").path
        let points = try WalkFile.load(file)
        guard !points.isEmpty else { throw AppUsageError("\(file): no positions in the walk") }
        return (.replay(points, speed: options.speed, name: file), table("status.simulated_walk"))
    }

    /// Whether gpsd accepts a connection within a second.
    static func gpsdAnswers(_ endpoint: GpsdEndpoint) async -> Bool {
        do {
            for try await _ in GpsdConnection.reports(from: endpoint, connectTimeout: 1) { return true }
        } catch {}
        return false
    }

    static func covers(_ metadata: MapMetadata, _ c: Coordinate) -> Bool {
        guard let b = metadata.bbox, b.count == 4 else { return true }
        return c.latitude >= b[0] - 0.01 && c.latitude <= b[2] + 0.01 && c.longitude >= b[1] - 0.01 && c.longitude <= b[3] + 0.01
    }
}
