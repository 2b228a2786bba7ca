import App
import ArgumentParser
import Audio
import Callouts
import Foundation
import Geo
import Location
import MapData

struct SayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "say",
        abstract: "Answer one command at a place, as the assistant would, and print (and speak) the reply.",
        discussion: "Example: soundscape say \"where am i\" --at 60.1699,24.9410 --heading 90")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The command, e.g. \"where am i\", \"what's ahead\", \"around me\".")
    var command: String

    @Option(help: "Where the user is (LAT,LON).")
    var at: CoordinateArgument

    @Option(help: "The direction the user faces, degrees from north.")
    var heading: Double?

    @Option(help: "Map database.")
    var db: String?

    @Flag(help: "Print the reply without speaking it.")
    var quiet = false

    @Option(help: "Render the spoken reply into this WAV file (48 kHz stereo, binaural) instead of playing it.")
    var wav: String?

    @Option(help: "SOFA file with your HRTF (default: MIT KEMAR).")
    var hrtf: String?

    @Option(help: "Language of the reply (\(StringTable.availableLanguages.joined(separator: ", "))).")
    var language: String = "en"

    func run() async throws {
        global.bootstrapLogging()
        let map = try SpatialDataView(path: db ?? MapPaths.defaultDatabase())
        let audio = try AudioOptions(quiet: quiet, wav: wav, sink: nil, hrtf: hrtf, paths: ProjectPaths.locate()).makeOutput(oneShot: true)
        let output = audio.output
        defer { audio.engine?.shutdown() }
        let assistant = Assistant(map: map, phrasing: Phrasing(table: try StringTable(language: language)), output: output)
        let fix = LocationFix(coordinate: Coordinate(latitude: at.latitude, longitude: at.longitude), timestamp: Date(),
                              horizontalAccuracy: 5, speed: heading == nil ? nil : 1, course: heading)
        await assistant.locate(fix)
        await output.moveListener(to: fix.coordinate, heading: heading)
        _ = await assistant.handle(command: command)
        await output.finish()
        if let wav, let engine = audio.engine {
            try engine.writeRecording(to: wav)
            printError("wrote \(wav) (48 kHz stereo, rendered through the HRTF)")
        }
    }
}
