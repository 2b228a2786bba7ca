import Audio
import Callouts
import Foundation
import Geo
import Guidance
import Location
import MapData
import Speech

/// What `soundscape say` was asked for.
public struct SayOptions: Sendable {
    /// The command, e.g. "where am i".
    public var command: String
    /// Where the user is.
    public var at: Coordinate
    /// The direction the user walks or faces, degrees from north.
    public var heading: Double?
    public var db: String?
    /// One JSON object per callout instead of the words.
    public var json = false
    public var userDb: String?
    /// Print the reply without speaking it.
    public var quiet = false
    /// Render the spoken reply into this WAV file instead of playing it.
    public var wav: String?
    public var hrtf: String?
    public var language: String?
    /// Feet and miles whatever the settings say.
    public var imperial = false
    public var config: String?

    public init(command: String, at: Coordinate) {
        self.command = command
        self.at = at
    }
}

extension AppBuilder {
    /// `soundscape say`: answers one command at one place through the assistant's pipeline.
    public func say(_ options: SayOptions) async throws {
        let mapPath = options.db ?? environment.mapDatabase
        let here = options.at
        let (store, loaded) = settings(file: options.config)
        for problem in loaded.problems { printError("Problem: \(problem)") }
        // Outside the imported area: the tiles around the place from the configured tile service, if any.
        var tilesNotice: String?
        if let tiles = try OutsideMapTiles(service: loaded.settings.tileService, databasePath: mapPath), !tiles.covers(here) {
            tilesNotice = await tiles.takeNotice()
            if let problem = await tiles.update(here).problem { printError("Problem: \(problem)") }
        }
        let map = try SpatialDataView(path: mapPath)
        let language = options.language ?? loaded.settings.language
        // The beacon has no sound in a one-shot answer.
        let guidance = await guidance(map: map, mapPath: mapPath, language: language,
                                      settings: options.imperial ? loaded.settings.with(units: .imperial) : loaded.settings,
                                      userDb: options.userDb, engine: nil, problem: { printError("Problem: \($0)") })
        let (intents, grammarProblem) = intentParser()
        if let grammarProblem { printError("Problem: \(grammarProblem); using the built-in phrases") }
        if let parsed = Assistant.parse(options.command, intents: intents), parsed.knownIntent == .takeMeTo, let place = parsed.slots["place"], !place.isEmpty {
            for line in try await GuidanceSay.takeMeTo(place: guidance.markerName(spoken: place) ?? place, at: here, heading: options.heading, mapPath: mapPath,
                                                       guidance: guidance, json: options.json) {
                print(line)
            }
            return
        }
        let units: UnitSystem = options.imperial ? .imperial : loaded.settings.units
        let phrasing = Phrasing(table: try StringTable(language: language), units: units)
        let audio = try AudioOptions(quiet: options.quiet || options.json && options.wav == nil, wav: options.wav, sink: nil, hrtf: options.hrtf,
                                     paths: environment.paths, voice: LiveSettings.voice(loaded.settings),
                                     levels: LiveSettings.levels(loaded.settings)).makeOutput(oneShot: true)
        defer { audio.engine?.shutdown() }
        if let tilesNotice { await audio.output.say(tilesNotice) }
        let now = Date()
        let assistant = Assistant(map: map, phrasing: phrasing, output: audio.output, followFixTimes: true,
                                  format: options.json ? .json : .text, startTime: now, guidance: guidance, intents: intents,
                                  settings: LiveSettings(store: store, settings: loaded.settings, audio: audio.engine),
                                  headingControl: OneShotHeading())
        // A heading is taken as the course of someone walking that way.
        let fix = LocationFix(coordinate: here, timestamp: now,
                              horizontalAccuracy: 5, speed: options.heading == nil ? nil : 1, course: options.heading)
        // Only the answer: what walking there would announce by itself is not wanted.
        await assistant.processor.setAutomaticCallouts(false)
        await assistant.locate(fix)
        await assistant.processor.setAutomaticCallouts(true)
        _ = await assistant.handle(command: options.command)
        await assistant.settle()
        if let wav = options.wav, let engine = audio.engine {
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
