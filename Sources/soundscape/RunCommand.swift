import App
import ArgumentParser
import Audio
import Callouts
import Foundation
import Geo
import Location
import Logging
import MapData
import ServiceLifecycle
import Speech

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Start the assistant: follow the position, call out streets and places, answer commands.",
        discussion: """
            Position comes from gpsd when it answers; otherwise from --walk (a simulated walk, by default the \
            bundled walk through central Helsinki) or --at. Type commands and press Enter ("where am i", \
            "what's ahead", "around me", "repeat", "help", "quit"). Every reply is printed and spoken.
            """)

    @OptionGroup var global: GlobalOptions

    @OptionGroup(title: "Voice commands") var voice: VoiceOptions

    @Option(help: "Map database.")
    var db: String?

    @Option(help: "gpsd address as HOST:PORT (default: the settings' gpsd, 127.0.0.1:2947).")
    var gpsd: String?

    @Option(help: "Stay at this position instead of following GPS (LAT,LON).")
    var at: CoordinateArgument?

    @Option(help: "With --at: the direction you face, degrees from north.")
    var heading: Double?

    @Option(help: "Simulate walking this GPX or NMEA file when gpsd does not answer.")
    var walk: String?

    @Option(help: "Speed factor of a simulated walk.")
    var speed: Double = 1

    @Option(help: ArgumentHelp("Follow a head tracker: OpenTrack UDP poses on this port (OpenTrack's default is 4242).",
                               discussion: "Phone IMU apps and webcam trackers send it; the 3-D audio then turns with your head."))
    var headTracker: UInt16?

    @Option(help: "With --head-tracker: the address to listen on (0.0.0.0 also accepts a phone on the same network).")
    var headTrackerHost = "127.0.0.1"

    @Option(help: ArgumentHelp("The D-Bus system bus on which iio-sensor-proxy offers a compass (default: $DBUS_SYSTEM_BUS_ADDRESS, else the standard socket).",
                               discussion: "Without a compass nothing changes; with one, the direction you face is known while you stand."))
    var systemBus: String?

    @Flag(help: "Do not read a compass.")
    var noCompass = false

    @Flag(help: "Stop when the simulated walk ends, once the commands given before its end are answered.")
    var exitAtEndOfWalk = false

    @Flag(help: "Print replies without speaking them.")
    var quiet = false

    @Option(help: "PulseAudio sink to speak to.")
    var sink: String?

    @Option(help: "SOFA file with your HRTF (default: MIT KEMAR).")
    var hrtf: String?

    @Option(help: "Language of the replies (\(StringTable.availableLanguages.joined(separator: ", "))); default: the settings'.")
    var language: String?

    @Option(help: "Settings file (default: $XDG_CONFIG_HOME/soundscape/config.toml).")
    var config: String?

    @Option(help: "User database (markers, routes, the beacon); default $SOUNDSCAPE_USER_DB, else ~/.local/share/soundscape/user.sqlite.")
    var userDb: String?

    func run() async throws {
        global.bootstrapLogging()
        let logger = Logger(label: "soundscape.run")
        let paths = ProjectPaths.locate()
        // Settings from the configuration file; options given on the command line win.
        let loaded = SettingsStore(path: config ?? SettingsStore.defaultPath()).load()
        let settings = loaded.settings
        let language = self.language ?? settings.language
        let gpsd = self.gpsd ?? settings.gpsd
        let dbPath = db ?? (settings.mapDatabase.isEmpty ? MapPaths.defaultDatabase() : settings.mapDatabase)
        let table = try StringTable(language: language)
        let phrasing = Phrasing(table: table, units: settings.units == "imperial" ? .imperial : .metric)

        let audio = try AudioOptions(quiet: quiet, wav: nil, sink: sink ?? (settings.audioSink.isEmpty ? nil : settings.audioSink),
                                     hrtf: hrtf ?? settings.hrtf, paths: paths,
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
            throw ExitCode(1)
        }
        let map: SpatialDataView
        do { map = try SpatialDataView(path: dbPath) } catch {
            await output.problem("\(error)")
            throw ExitCode(1)
        }

        // Position: --at, else gpsd if it answers, else a simulated walk.
        let (source, sourceStatus) = try await chooseSource(paths: paths, table: table, gpsd: gpsd)
        if case .fixed(let c, _) = source, outsideTiles == nil, !Self.covers(map.metadata, c) {
            await output.problem("the map has no data for \(c.latitude), \(c.longitude)")
        }
        let greeting = table("status.startup", sourceStatus, table("status.map", MapPaths.regionName(map.metadata)),
                             table("status.typed_commands"))
        printReply("Map data \(map.metadata.attribution)")

        // A head tracker binds its port now, so that a port in use is said at start-up.
        var tracker: OpenTrackReceiver?
        if let port = self.headTracker {
            do { tracker = try OpenTrackReceiver(host: headTrackerHost, port: port) } catch {
                await output.problem("no head tracking (\(error))")
            }
        }

        let (locations, locationContinuation) = AsyncStream<PositionEvent>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let (commands, commandContinuation) = AsyncStream<String>.makeStream()

        // MARK: voice input
        // Push-to-talk (control socket, an empty line in a terminal, an evdev key) or a wake word, the command
        // recognizer with the places nearby, earcons. Recognized commands' words join the typed commands.
        var voiceService: VoiceService?
        // Saved marker and route names for the recognizer, from the user database once it is open (below).
        let savedNames = [SavedNames(.markers), SavedNames(.routes)]
        if !voice.noVoice {
            do {
                let engine = audio.engine
                voiceService = try VoiceService(
                    paths: paths, options: voice.inputOptions(), map: map,
                    position: at.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude) },
                    slotSources: savedNames,
                    secondRecognizer: SecondRecognizer.load(paths: paths),
                    deliver: { commandContinuation.yield($0.words) },
                    earcon: { earcon in _ = await engine?.playNow(GlyphSound(earcon)) },
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
        var feedContinuation = voiceService?.positionInput(forwardingTo: locationContinuation) ?? locationContinuation
        var tileServices: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let outsideTiles {
            let (fixes, fixContinuation) = AsyncStream<PositionEvent>.makeStream(bufferingPolicy: .bufferingNewest(64))
            tileServices = [.init(service: OutsideMapTilesService(tiles: outsideTiles, input: fixes, forward: feedContinuation,
                                                                  say: { await output.say($0) },
                                                                  problem: { await output.problem($0) }),
                                  successTerminationBehavior: .ignore, serviceName: "map tiles")]
            feedContinuation = fixContinuation
        }
        let voiceServices: [ServiceGroupConfiguration.ServiceConfiguration] =
            voiceService.map { [.init(service: $0, successTerminationBehavior: .ignore, serviceName: "voice commands")] } ?? []
        // MARK: end of voice input

        // A replayed walk keeps the pipeline's time with its fixes, whatever the replay speed.
        var followFixTimes = false
        if case .replay = source { followFixTimes = true }
        let guidance = await GuidanceSetup(map: map, mapPath: dbPath, language: language,
                                           settings: settings,
                                           userDatabase: userDb, engine: audio.engine)
        for names in savedNames { names.attach(guidance.store) }
        let (intents, grammarProblem) = Assistant.intentParser(grammars: paths.grammars.path)
        if let grammarProblem { await output.problem("\(grammarProblem); typed commands use the built-in phrases") }
        // Headings go to the assistant through a short stream that keeps only the newest (a head tracker sends 50 a second).
        let (headings, headingContinuation) = AsyncStream<HeadingUpdate>.makeStream(bufferingPolicy: .bufferingNewest(4))
        let compassBus = systemBus ?? ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? SensorProxyCompass.systemBusAddress
        let compass = noCompass ? nil : SensorProxyCompass(configuration: .init(busAddress: compassBus))
        let location = LocationService(source: source, headTracker: tracker, compass: compass, continuation: feedContinuation,
                                       headings: { headingContinuation.yield($0) })
        let assistant = Assistant(map: map, phrasing: phrasing, output: output, followFixTimes: followFixTimes, guidance: guidance,
                                  intents: intents,
                                  settings: LiveSettings(store: SettingsStore(path: config ?? SettingsStore.defaultPath()),
                                                         settings: loaded.settings, audio: audio.engine),
                                  headingControl: location.manager)
        if let voiceService {
            await assistant.processor.observeSleep { asleep in voiceService.setListeningState(asleep ? .asleep : .awake) }
        }
        let services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: location, successTerminationBehavior: .ignore, serviceName: location.description),
            .init(service: TerminalCommands(continuation: typedContinuation), successTerminationBehavior: .ignore,
                  serviceName: "typed commands"),
            .init(service: AssistantService(assistant: assistant, greeting: greeting, locations: locations,
                                            commands: commands, headings: headings, stopAtEndOfWalk: exitAtEndOfWalk,
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
            throw ExitCode.failure
        }
    }

    private func chooseSource(paths: ProjectPaths, table: StringTable, gpsd: String) async throws -> (LocationSource, String) {
        if let at {
            return (.fixed(Coordinate(latitude: at.latitude, longitude: at.longitude), heading: heading), table("status.fixed_location"))
        }
        if walk == nil, let endpoint = GpsdEndpoint(gpsd), await Self.gpsdAnswers(endpoint) {
            return (.gpsd(endpoint), table("status.gps_ready"))
        }
        let file = walk ?? paths.home.appendingPathComponent("Walks/helsinki-centre.gpx").path
        let points = try WalkFile.load(file)
        guard !points.isEmpty else { throw ValidationError("\(file): no positions in the walk") }
        return (.replay(points, speed: speed, name: file), table("status.simulated_walk"))
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
