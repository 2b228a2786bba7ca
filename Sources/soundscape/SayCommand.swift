import App
import ArgumentParser
import Audio
import Callouts
import Foundation
import Geo
import Guidance
import Location
import MapData
import Speech

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
        let mapPath = db ?? MapPaths.defaultDatabase()
        let here = Coordinate(latitude: at.latitude, longitude: at.longitude)
        let store = SettingsStore(path: config ?? SettingsStore.defaultPath())
        let loaded = store.load()
        for problem in loaded.problems { printError("Problem: \(problem)") }
        // Outside the imported area: the tiles around the place from the configured tile service, if any.
        var tilesNotice: String?
        if let tiles = try OutsideMapTiles(service: loaded.settings.tileService, databasePath: mapPath), !tiles.covers(here) {
            tilesNotice = await tiles.takeNotice()
            if let problem = await tiles.update(here).problem { printError("Problem: \(problem)") }
        }
        let map = try SpatialDataView(path: mapPath)
        let language = self.language ?? loaded.settings.language
        // The beacon has no sound in a one-shot answer.
        let guidance = await GuidanceSetup(map: map, mapPath: mapPath, language: language,
                                           settings: imperial ? loaded.settings.with(units: "imperial") : loaded.settings,
                                           userDatabase: userDb, engine: nil, problem: { printError("Problem: \($0)") })
        let (intents, grammarProblem) = Assistant.intentParser(grammars: ProjectPaths.locate().grammars.path)
        if let grammarProblem { printError("Problem: \(grammarProblem); using the built-in phrases") }
        if let parsed = Assistant.parse(command, intents: intents), parsed.knownIntent == .takeMeTo, let place = parsed.slots["place"], !place.isEmpty {
            for line in try await GuidanceSay.takeMeTo(place: guidance.markerName(spoken: place) ?? place, at: here, heading: heading, mapPath: mapPath,
                                                       guidance: guidance, json: json) {
                print(line)
            }
            return
        }
        let imperial = self.imperial || loaded.settings.units == "imperial"
        let phrasing = Phrasing(table: try StringTable(language: language), units: imperial ? .imperial : .metric)
        let audio = try AudioOptions(quiet: quiet || json && wav == nil, wav: wav, sink: nil, hrtf: hrtf,
                                     paths: ProjectPaths.locate(), voice: LiveSettings.voice(loaded.settings),
                                     levels: LiveSettings.levels(loaded.settings)).makeOutput(oneShot: true)
        defer { audio.engine?.shutdown() }
        if let tilesNotice { await audio.output.say(tilesNotice) }
        let now = Date()
        let assistant = Assistant(map: map, phrasing: phrasing, output: audio.output, followFixTimes: true,
                                  format: json ? .json : .text, startTime: now, guidance: guidance, intents: intents,
                                  settings: LiveSettings(store: store, settings: loaded.settings, audio: audio.engine),
                                  headingControl: OneShotHeading())
        // A heading is taken as the course of someone walking that way.
        let fix = LocationFix(coordinate: here, timestamp: now,
                              horizontalAccuracy: 5, speed: heading == nil ? nil : 1, course: heading)
        // Only the answer: what walking there would announce by itself is not wanted.
        await assistant.processor.setAutomaticCallouts(false)
        await assistant.locate(fix)
        await assistant.processor.setAutomaticCallouts(true)
        _ = await assistant.handle(command: command)
        await assistant.settle()
        if let wav, let engine = audio.engine {
            try engine.writeRecording(to: wav)
            printError("wrote \(wav) (48 kHz stereo, rendered through the HRTF)")
        }
    }
}

/// "I am facing …" in a one-shot answer: read back, and nothing after it to turn (`run` gives the heading to the
/// location stage).
private struct OneShotHeading: HeadingControl {
    func setManualHeading(_ degrees: Double) async {}
    func clearManualHeading() async {}
}
