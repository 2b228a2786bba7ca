import App
import ArgumentParser
import Callouts

struct SayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "say",
        abstract: "Answer one command at a place through the assistant's pipeline, and print (and speak) the callouts.",
        discussion: """
            Example: soundscape say "around me" --at 60.1699,24.9410 --heading 90
            With --json each callout is printed as one JSON object a line: text, kind, soundType \
            (standard / localized / relative / compass), bearing (true bearing from you to what is spoken \
            about, or null), distance (metres, or null), glyph and group.
            Guidance commands work too: "set beacon on Kauppatori" sets the beacon (kept in the user database) \
            and reads it back; "take me to Kauppatori" prints the planned route's announcements in order (with \
            --json one JSON object a line: text, kind, maneuver, index, phase, distanceAlong).
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The command, e.g. \"where am i\", \"what's ahead\", \"around me\", \"help\".")
    var command: String

    @Option(help: "Where the user is (LAT,LON).")
    var at: CoordinateArgument

    @Option(help: "The direction the user walks or faces, degrees from north.")
    var heading: Double?

    @Option(help: "Map database.")
    var db: String?

    @Flag(help: "Print one JSON object per callout instead of the words.")
    var json = false

    @Option(help: "User database (markers, routes, the beacon); default $SOUNDSCAPE_USER_DB, else ~/.local/share/soundscape/user.sqlite.")
    var userDb: String?

    @Flag(help: "Print the reply without speaking it.")
    var quiet = false

    @Option(help: "Render the spoken reply into this WAV file (48 kHz stereo, binaural) instead of playing it.")
    var wav: String?

    @Option(help: "SOFA file with your HRTF (default: MIT KEMAR).")
    var hrtf: String?

    @Option(help: "Language of the reply (\(StringTable.availableLanguages.joined(separator: ", "))); default: the settings'.")
    var language: String?

    @Flag(help: "Speak distances in feet and miles (default: the settings' units).")
    var imperial = false

    @Option(help: "Settings file (default: $XDG_CONFIG_HOME/soundscape/config.toml). A setting changed by the command is saved there.")
    var config: String?

    func run() async throws {
        global.bootstrapLogging()
        var options = SayOptions(command: command, at: at.coordinate)
        options.heading = heading
        options.db = db
        options.json = json
        options.userDb = userDb
        options.quiet = quiet
        options.wav = wav
        options.hrtf = hrtf
        options.language = language
        options.imperial = imperial
        options.config = config
        try await AppBuilder.commandLine { try await $0.say(options) }
    }
}
