import Audio
import Foundation
import Testing

/// The `soundscape` executable as a user runs it.
enum Soundscape {
    /// The built executable, next to the test bundle in .build/<configuration>/.
    static var executable: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("soundscape")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return TestServices.packageRoot.appendingPathComponent(".build/debug/soundscape")
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// A map database imported once per test run from the bundled Helsinki extract, by the real `import` command.
    static let helsinkiDatabase: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("soundscape-cli-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let db = dir.appendingPathComponent("helsinki.sqlite").path
        let pbf = TestServices.dataDirectory.appendingPathComponent("osm/Helsinki.osm.pbf").path
        let result = try? run(["import", pbf, "--db", db])
        precondition(result?.status == 0, "importing \(pbf) failed: \(result?.stderr ?? "could not start soundscape")")
        return db
    }()
}

@Suite("The soundscape command line", .serialized)
struct CommandLineTests {
    @Test(arguments: ["run", "import", "say", "listen", "simulate", "bench", "doctor"])
    func everySubcommandHasHelp(_ command: String) throws {
        let result = try Soundscape.run([command, "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: soundscape \(command)"), "\(result.stdout)")
        #expect(result.stdout.contains("--verbose"))
    }

    @Test func doctorSaysAllIsWellWhenEverythingIsThere() throws {
        let gpsd = try TestServices.gpsd()
        let result = try Soundscape.run(["doctor", "--gpsd", gpsd, "--db", Soundscape.helsinkiDatabase])
        let lines = result.stdout.split(separator: "\n").filter { !$0.hasPrefix("Map data") }
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(lines.count == 7)
        for part in ["Speech model", "Speech output", "Sound server", "Microphone", "HRTF", "GPS", "Map"] {
            #expect(lines.contains { $0.hasPrefix("OK") && $0.contains(part) }, "no OK line for \(part): \(result.stdout)")
        }
        #expect(result.stdout.contains("© OpenStreetMap contributors"))
    }

    @Test func doctorSaysSoWhenTheSoundServerIsStopped() throws {
        let gpsd = try TestServices.gpsd()
        // A server address where no server runs: what a user sees after PulseAudio has stopped.
        let result = try Soundscape.run(["doctor", "--gpsd", gpsd, "--db", Soundscape.helsinkiDatabase],
                                        environment: ["PULSE_SERVER": "unix:/nonexistent/pulse/native"])
        #expect(result.status == 1)
        let soundLine = result.stdout.split(separator: "\n").first { $0.contains("Sound server") } ?? ""
        #expect(soundLine.hasPrefix("FAIL"), "\(result.stdout)")
        #expect(soundLine.contains("no sound server"))
        #expect(soundLine.contains("To fix"))
        // The other parts are still checked and reported.
        #expect(result.stdout.split(separator: "\n").contains { $0.hasPrefix("OK") && $0.contains("HRTF") })
    }

    @Test func doctorNamesAMissingMapAndGpsd() throws {
        try TestServices.require()
        let result = try Soundscape.run(["doctor", "--gpsd", "127.0.0.1:1", "--gps-wait", "1", "--db", "/nonexistent/map.sqlite"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAIL  Map              no map database at /nonexistent/map.sqlite"), "\(result.stdout)")
        let gpsLine = result.stdout.split(separator: "\n").first { $0.contains("GPS") } ?? ""
        #expect(gpsLine.hasPrefix("FAIL") && gpsLine.contains("no gpsd daemon") && gpsLine.contains("127.0.0.1:1"), "\(gpsLine)")
    }

    @Test func sayAnswersWhereAmIWithTheRealStreet() throws {
        try TestServices.require()
        // On the north side of the Esplanadi park, facing east along Pohjoisesplanadi (checked against the
        // extract with `osmium export`: the Pohjoisesplanadi ways run at 60.1676–60.1679 N here).
        let result = try Soundscape.run(["say", "where am i", "--at", "60.16772,24.94600", "--heading", "90",
                                         "--db", Soundscape.helsinkiDatabase, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "Heading east along Pohjoisesplanadi")
    }

    @Test func sayRendersTheSpokenReplyIntoABinauralWAV() throws {
        try TestServices.require()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("reply.wav").path
        let result = try Soundscape.run(["say", "where am i", "--at", "60.16772,24.94600", "--heading", "90",
                                         "--db", Soundscape.helsinkiDatabase, "--wav", wav])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Heading east along Pohjoisesplanadi"))
        let soxi = try run("soxi", [wav])
        #expect(soxi.contains("Channels       : 2"))
        #expect(soxi.contains("Sample Rate    : 48000"))
        let seconds = Double(try run("soxi", ["-D", wav]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(seconds > 1.5 && seconds < 8, "\(seconds) s for one sentence and two earcons")
        let audio = try WAVFile.read(wav)
        #expect(audio.rms() > 0.01, "the reply is silent")
    }

    @Test func runWalksTheSimulatedRouteAndAnswersTypedCommands() throws {
        try TestServices.require()
        let walk = TestServices.packageRoot.appendingPathComponent("Walks/helsinki-centre.gpx").path
        let result = try Soundscape.run(["run", "--db", Soundscape.helsinkiDatabase, "--quiet", "--gpsd", "127.0.0.1:1",
                                         "--walk", walk, "--speed", "200", "--exit-at-end-of-walk"],
                                        stdin: "help\n")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("Simulated walk. Map of Helsinki. Type a command and press Enter, or type help."))
        #expect(lines.contains { $0.hasPrefix("You can say:") })
        // The walk goes down Keskuskatu past Stockmann and along Pohjoisesplanadi (see Walks/README.md).
        #expect(lines.contains("Now on Keskuskatu"))
        #expect(lines.contains("Now on Pohjoisesplanadi"))
        #expect(lines.contains { $0.hasPrefix("Stockmann") })
    }
}
