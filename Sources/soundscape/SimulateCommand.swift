import App
import ArgumentParser
import Foundation
import Location

struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Replay a recorded walk (GPX or NMEA) in real time and print each position as the assistant would receive it.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "A .gpx file, or a file of NMEA sentences (.nmea, .log, .txt).")
    var file: String

    @Option(help: "Replay speed factor (4 = four times faster than recorded).")
    var speed: Double = 1

    func validate() throws {
        guard speed > 0 && speed <= 1000 else { throw ValidationError("--speed must be between 0 and 1000, not \(speed)") }
    }

    func run() async throws {
        global.bootstrapLogging()
        let points = try WalkFile.load(file)
        guard !points.isEmpty else { throw ValidationError("\(file): no positions in the file") }
        let replay = TrackReplay(points: points, speed: speed, clock: ContinuousClock())
        var count = 0
        for await fix in replay.fixes() {
            count += 1
            var line = String(format: "%.6f %.6f", fix.coordinate.latitude, fix.coordinate.longitude)
            if let s = fix.speed { line += String(format: "  %.1f m/s", s) }
            if let c = fix.course { line += String(format: "  course %.0f°", c) }
            print(line)
        }
        printError("\(count) positions replayed from \(file)")
    }
}
