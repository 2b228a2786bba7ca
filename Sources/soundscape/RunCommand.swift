import App
import ArgumentParser
import Callouts
import Geo
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
        var options = RunOptions()
        options.db = db
        options.gpsd = gpsd
        options.at = at?.coordinate
        options.heading = heading
        options.walk = walk
        options.speed = speed
        options.headTracker = headTracker
        options.headTrackerHost = headTrackerHost
        options.systemBus = systemBus
        options.noCompass = noCompass
        options.exitAtEndOfWalk = exitAtEndOfWalk
        options.quiet = quiet
        options.sink = sink
        options.hrtf = hrtf
        options.language = language
        options.config = config
        options.userDb = userDb
        let environment = AppEnvironment.read()
        options.voice = voice.noVoice ? nil : try voice.inputOptions(environment)
        try await AppBuilder.commandLine(environment) { try await $0.run(options) }
    }
}
