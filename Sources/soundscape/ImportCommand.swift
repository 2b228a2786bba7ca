import App
import ArgumentParser
import Foundation
import MapData

/// `soundscape import FILE.osm.pbf [--db PATH]`: builds the map database from an OpenStreetMap
/// PBF extract. The previous database stays untouched unless the whole import succeeds.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import an OpenStreetMap extract (.osm.pbf) into the map database.",
        discussion: """
            The database is built next to the target and renamed over it only when complete, so a bad \
            file never leaves a half-imported map. Map data © OpenStreetMap contributors (ODbL).
            """)

    @Argument(help: "The OpenStreetMap PBF file to import.")
    var file: String

    @Option(name: .long, help: ArgumentHelp("The map database to write.", valueName: "PATH"))
    var db: String?

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        global.bootstrapLogging()
        let path = db ?? AppEnvironment.read().mapDatabase
        let bar = !quiet && isatty(STDERR_FILENO) == 1 ? ImportProgressBar() : nil
        let summary: MapImportSummary
        do {
            var report: (@Sendable (MapImportProgress) -> Void)?
            if let bar { report = { progress in bar.update(progress) } }
            summary = try MapImporter.importPBF(at: file, into: path, progress: report)
        } catch let error as MapImportError {
            bar?.finish()
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(2)
        } catch {
            bar?.finish()
            FileHandle.standardError.write(Data("error: \(file): \(error)\n".utf8))
            throw ExitCode(1)
        }
        bar?.finish()
        if !quiet { print(summary) }
    }
}

/// A one-line progress bar on standard error, redrawn at most every 50 ms.
final class ImportProgressBar: @unchecked Sendable {
    private let lock = NSLock()
    private var lastDraw = Date.distantPast
    private var drawn = false

    func update(_ progress: MapImportProgress) {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.05 || progress.fraction >= 1 else { return }
        lastDraw = now
        let width = 30
        let filled = Int((min(max(progress.fraction, 0), 1) * Double(width)).rounded())
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        var phase = progress.phase.rawValue
        if let detail = progress.detail { phase += " \(detail)" }
        // While reading, the rate and the time left, from the bytes read so far.
        if progress.phase == .reading, progress.seconds > 0.5, progress.bytesDone > 0 {
            let rate = Double(progress.bytesDone) / progress.seconds
            let left = Double(progress.bytesTotal - progress.bytesDone) / rate
            phase += String(format: "  %.1f MB/s, %d:%02d left", rate / 1_048_576, Int(left) / 60, Int(left) % 60)
        }
        let line = "\r\(bar) \(String(format: "%3d", Int(progress.fraction * 100)))%  \(phase)\u{1B}[K"
        FileHandle.standardError.write(Data(line.utf8))
        drawn = true
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        drawn = false
    }
}
