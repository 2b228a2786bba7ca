import App
import Audio
import Foundation
import MapData
import ProcessTestSupport
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
        // A scratch user database unless the test names one: tests never touch the real one.
        process.environment = ProcessInfo.processInfo.environment
            .merging(["SOUNDSCAPE_USER_DB": scratchUserDatabase]) { $1 }.merging(environment) { $1 }
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
    @Test(arguments: ["run", "import", "say", "listen", "simulate", "doctor", "config", "ptt", "sounds", "demo", "tiles serve"])
    func everySubcommandHasHelp(_ command: String) throws {
        let result = try Soundscape.run(command.split(separator: " ").map(String.init) + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: soundscape \(command)"), "\(result.stdout)")
        #expect(result.stdout.contains("--verbose"))
    }

    @Test func doctorSaysAllIsWellWhenEverythingIsThere() throws {
        let gpsd = try TestServices.gpsd()
        let result = try Soundscape.run(["doctor", "--gpsd", gpsd, "--db", Soundscape.helsinkiDatabase])
        let lines = result.stdout.split(separator: "\n").filter { !$0.hasPrefix("Map data") }
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(lines.count == 9, "\(result.stdout)")
        for part in ["Speech model", "Whisper", "Speech output", "Sound server", "Microphone", "HRTF", "GPS", "Map"] {
            #expect(lines.contains { $0.hasPrefix("OK") && $0.contains(part) }, "no OK line for \(part): \(result.stdout)")
        }
        // The microphone by the name a person gave it (the test server's virtual microphone).
        #expect(lines.contains { $0.hasPrefix("OK") && $0.contains("Microphone") && $0.contains("TestMicrophone (\(TestServices.source))") },
                "\(result.stdout)")
        // No compass on a test machine: a warning that names the other heading sources, not a failure.
        #expect(lines.contains { $0.hasPrefix("WARN") && $0.contains("Heading") && $0.contains("--head-tracker") })
        #expect(result.stdout.contains("© OpenStreetMap contributors"))
    }

    /// A sound server whose only sources are monitors of outputs: the doctor says there is no microphone (`run`
    /// would not listen to a monitor either) and how to get one.
    @Test func doctorSaysSoWhenTheDefaultSourceIsNoMicrophone() async throws {
        let gpsd = try TestServices.gpsd()
        let pulse = try PrivatePulseAudio()
        try await pulse.start()
        defer { pulse.kill9() }
        try await pulse.unloadMicrophone()
        let result = try Soundscape.run(["doctor", "--gpsd", gpsd, "--db", Soundscape.helsinkiDatabase], environment: pulse.clientEnvironment)
        let line = result.stdout.split(separator: "\n").first { $0.contains("Microphone") } ?? ""
        #expect(result.status == 1, "\(result.stdout)")
        #expect(line.hasPrefix("FAIL") && line.contains("not a microphone") && line.contains(".monitor)") && line.contains("To fix"), "\(result.stdout)")
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
        #expect(result.stdout.contains("soundscape import FILE.osm.pbf --db /nonexistent/map.sqlite"), "\(result.stdout)")
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

    @Test func doctorNamesADamagedOrEmptyMapAndHowToImportOneAgain() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = dir.appendingPathComponent("notes.sqlite").path
        try Data("these are my notes, not a map\n".utf8).write(to: URL(fileURLWithPath: text))
        let empty = dir.appendingPathComponent("empty.sqlite").path
        _ = try MapStore.openWritable(path: empty)   // the schema and nothing in it
        for path in [text, empty] {
            let result = await MapDatabaseCheck(path: path).run()
            #expect(result.status == .failed, "\(path): \(result.detail)")
            #expect(result.detail.contains(path), "\(result.detail)")
            #expect(result.fix?.contains("soundscape import FILE.osm.pbf --db \(path)") == true, "\(result.fix ?? "no fix")")
        }
    }

    @Test func sayAndListenNameAMissingMapAndHowToGetOne() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("quiet.wav").path
        try WAVFile.write(PCMBuffer(sampleRate: 16_000, channels: 1, samples: [Float](repeating: 0, count: 8_000)), to: wav)
        for arguments in [["say", "where am i"], ["listen", "--file", wav]] {
            let result = try Soundscape.run(arguments + ["--at", "60.16772,24.94600", "--db", "/nonexistent/map.sqlite"])
            #expect(result.status != 0)
            #expect(result.stderr.contains("no map database at /nonexistent/map.sqlite; import a map"), "\(arguments[0]): \(result.stderr)")
            #expect(result.stderr.contains("soundscape import FILE.osm.pbf --db /nonexistent/map.sqlite"), "\(arguments[0]): \(result.stderr)")
        }
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

    @Test func runSaysWhatIsWrongInTheSettingsAndUsesTheRest() throws {
        try TestServices.require()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("config.toml").path
        try "units = \"imperial\"\nbeacon_off_distance = 99\n".write(toFile: config, atomically: true, encoding: .utf8)
        let result = try Soundscape.run(["run", "--at", "60.16772,24.94600", "--heading", "90", "--db", Soundscape.helsinkiDatabase,
                                         "--quiet", "--no-voice", "--config", config], stdin: "quit\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Problem: \(config):2: beacon_off_distance = 99 is not allowed; beacon_off_distance takes a whole number from 0 to 50"),
                "\(result.stdout)")
        #expect(result.stdout.contains("Goodbye"))
    }

    @Test func runWalksTheSimulatedRouteAndAnswersTypedCommands() throws {
        try TestServices.require()
        let walk = TestServices.packageRoot.appendingPathComponent("Walks/helsinki-centre.gpx").path
        let result = try Soundscape.run(["run", "--db", Soundscape.helsinkiDatabase, "--quiet", "--gpsd", "127.0.0.1:1",
                                         "--walk", walk, "--speed", "100", "--exit-at-end-of-walk"],
                                        stdin: "help\n")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("Simulated walk. Map of Helsinki. Type a command and press Enter, or type help."))
        #expect(lines.contains { $0.hasPrefix("You can say:") })
        // The walk goes down Keskuskatu past Stockmann and along Pohjoisesplanadi (see Walks/README.md): the
        // intersection callouts name the roads, the departure callouts the street walked along.
        #expect(lines.contains("Heading south along Keskuskatu"))
        #expect(lines.contains("Heading east along Pohjoisesplanadi"))
        #expect(lines.contains("Approaching intersection"))
        #expect(lines.contains("Mikonkatu, goes left"))
        #expect(lines.contains { $0.hasPrefix("Stockmann") })
    }

    /// On Aleksanterinkatu between Mikonkatu and Kluuvikatu, facing east (checked against the extract: shops on
    /// both sides, Stockmann's block to the south-west).
    @Test(arguments: ["where am i", "around me", "what's ahead", "nearby markers", "help"])
    func sayAnswersEveryExplorationCommandAsJSON(_ command: String) throws {
        try TestServices.require()
        let result = try Soundscape.run(["say", command, "--at", "60.16887,24.94400", "--heading", "90",
                                         "--db", Soundscape.helsinkiDatabase, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(!lines.isEmpty, "\(result.stdout)")
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["text"] is String)
            #expect(object["kind"] is String)
            #expect(["standard", "localized", "relative", "compass"].contains(object["soundType"] as? String))
            #expect(object.keys.contains("bearing") && object.keys.contains("distance"))
            if object["soundType"] as? String == "localized" {
                let bearing = try #require(object["bearing"] as? Double)
                let distance = try #require(object["distance"] as? Double)
                #expect((0..<360).contains(bearing) && distance >= 0 && distance < 1000)
            }
        }
        let texts = lines.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["text"] as? String }
        switch command {
        case "where am i":
            #expect(texts == ["Heading east along Aleksanterinkatu"])
        case "around me":
            #expect((1...4).contains(texts.count))
        case "what's ahead":
            // On Aleksanterinkatu: the road ahead (its next intersection, a bend before it if any), then five places.
            let road = texts.prefix { $0.hasPrefix("Intersection with ") || $0.hasPrefix("The road ") }
            #expect(road.last?.hasPrefix("Intersection with ") == true, "\(texts)")
            #expect(texts.count - road.count == 5, "\(texts)")
            for line in lines {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let bearing = try #require(object["bearing"] as? Double)
                #expect(bearing >= 45 && bearing <= 135, "\(line) is not ahead (east)")
            }
        case "nearby markers":
            #expect(texts == ["There are no nearby markers to call out right now"])
        default:
            #expect(texts.first?.hasPrefix("You can say: where am I") == true)
        }
    }

    @Test func sayAnswersInGerman() throws {
        try TestServices.require()
        let result = try Soundscape.run(["say", "where am i", "--at", "60.16772,24.94600", "--heading", "90",
                                         "--db", Soundscape.helsinkiDatabase, "--quiet", "--language", "de"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "Unterwegs nach Osten entlang Pohjoisesplanadi")
    }

    /// A setting changed by one `say` is saved in its settings file, and the next `say` with that file uses it.
    @Test func sayChangesSettingsAndTheNextSayUsesThem() throws {
        try TestServices.require()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("config.toml").path
        func say(_ command: String, config: String) throws -> String {
            let result = try Soundscape.run(["say", command, "--at", "60.16772,24.94600", "--heading", "90",
                                             "--db", Soundscape.helsinkiDatabase, "--quiet", "--config", config])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try say("speak faster", config: config) == "Speech rate 200 words a minute")
        #expect(try say("speak faster", config: config) == "Speech rate 225 words a minute")
        #expect(try say("beacon style marimba", config: config) == "Beacon style Marimba")
        #expect(try say("use imperial", config: config) == "Distances in feet and miles")
        #expect(try say("beacon mute distance 10 meters", config: config) == "Beacon off distance 35 feet")
        let text = try String(contentsOfFile: config, encoding: .utf8)
        for line in ["speech_rate = 225", "beacon_style = 'Marimba'", "units = 'imperial'", "beacon_off_distance = 10"] {
            #expect(text.contains(line), "\(line) missing from\n\(text)")
        }
        // A file that cannot be written: said, and the answer is still given.
        let blocked = dir.appendingPathComponent("config.toml/config.toml").path
        let output = try say("speak slower", config: blocked)
        #expect(output.hasPrefix("Speech rate 150 words a minute"), "\(output)")  // the defaults, one step slower
        #expect(output.contains("Problem: \(blocked): cannot save the settings"), "\(output)")
    }
}

// MARK: guidance: beacon, markers, routes

extension Soundscape {
    /// A fresh user database (markers, routes, the beacon) so that tests never touch the real one.
    /// The user database of every run that does not name its own (`--user-db`).
    static let scratchUserDatabase = temporaryUserDatabase()

    static func temporaryUserDatabase() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("soundscape-user-\(getpid())-\(UUID().uuidString.prefix(8)).sqlite").path
    }

    /// Runs `soundscape` typing `lines` one by one, `pause` seconds apart (as a person would: each reply is heard
    /// before the next command interrupts it).
    static func runTyped(_ arguments: [String], lines: [String], pause: Double = 1) throws -> Result {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("soundscape-typed-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // Files, not pipes: nothing has to drain them while the lines are typed.
        let outURL = dir.appendingPathComponent("out"), errURL = dir.appendingPathComponent("err")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["SOUNDSCAPE_USER_DB": scratchUserDatabase]) { $1 }
        let input = Pipe()
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = input
        try process.run()
        for line in lines {
            Thread.sleep(forTimeInterval: pause)
            input.fileHandleForWriting.write(Data((line + "\n").utf8))
        }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: try String(contentsOf: outURL, encoding: .utf8),
                      stderr: try String(contentsOf: errURL, encoding: .utf8))
    }
}

extension CommandLineTests {
    /// The market square, as the map names it (fi "Kauppatori", sv "Salutorget", en "Market Square").
    static let kauppatoriNames = ["Kauppatori", "Market Square", "Salutorget"]

    @Test func sayingSetBeaconSetsItAndReadsItBack() throws {
        let userDB = Soundscape.temporaryUserDatabase()
        defer { try? FileManager.default.removeItem(atPath: userDB) }
        let result = try Soundscape.run(["say", "set beacon on Kauppatori", "--at", "60.1710,24.9430", "--heading", "180",
                                         "--db", Soundscape.helsinkiDatabase, "--quiet", "--user-db", userDB])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("Beacon set on") }, "\(result.stdout)")
        #expect(Self.kauppatoriNames.contains { line.contains($0) }, "\(line)")
        #expect(line.contains(/\d+ meters/), "\(line)")
        // The beacon is kept in the user database: the next `say` knows it.
        let again = try Soundscape.run(["say", "where is the beacon", "--at", "60.1710,24.9430", "--heading", "180",
                                        "--db", Soundscape.helsinkiDatabase, "--quiet", "--user-db", userDB])
        #expect(again.stdout.hasPrefix("Beacon on "), "\(again.stdout)")
    }

    /// A name no place has, but close to exactly one name of the map (a transcript's "Lyamerican Mar" for American Bar):
    /// that place; a name close to none is still not found.
    @Test func takeMeToANameCloseToOnlyOnePlaceGoesThere() throws {
        let userDB = Soundscape.temporaryUserDatabase()
        defer { try? FileManager.default.removeItem(atPath: userDB) }
        let close = try Soundscape.run(["say", "take me to Lyamerican Mar", "--at", "60.1780,24.9480",
                                        "--db", Soundscape.helsinkiDatabase, "--quiet", "--user-db", userDB])
        #expect(close.stdout.hasPrefix("Walking route to American Bar, "), "\(close.stdout)")
        let none = try Soundscape.run(["say", "take me to Zzqx Pub", "--at", "60.1780,24.9480",
                                       "--db", Soundscape.helsinkiDatabase, "--quiet", "--user-db", userDB])
        #expect(none.stdout.hasPrefix("I could not find Zzqx Pub"), "\(none.stdout)")
    }

    @Test func sayingTakeMeToPrintsTheRouteAnnouncementsInOrder() throws {
        let userDB = Soundscape.temporaryUserDatabase()
        defer { try? FileManager.default.removeItem(atPath: userDB) }
        let result = try Soundscape.run(["say", "take me to Kauppatori", "--at", "60.1710,24.9430",
                                         "--db", Soundscape.helsinkiDatabase, "--json", "--user-db", userDB])
        #expect(result.status == 0, "\(result.stderr)")
        struct Line: Decodable { var text: String; var kind: String; var maneuver: String?; var distanceAlong: Double? }
        let lines = try result.stdout.split(separator: "\n").map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        #expect(lines.count >= 5, "\(result.stdout)")
        #expect(lines.first?.kind == "summary")
        #expect(lines.last?.maneuver == "arrive", "\(result.stdout)")
        #expect(Self.kauppatoriNames.contains { lines.last?.text.contains($0) == true }, "\(result.stdout)")
        let along = lines.compactMap(\.distanceAlong)
        #expect(along == along.sorted(), "announcements out of order: \(along)")
        // Real Helsinki streets on the way.
        #expect(lines.contains { $0.text.contains("katu") || $0.text.contains("esplanadi") }, "\(result.stdout)")
    }

    @Test func typedBeaconAndMarkerCommandsAreReadBack() throws {
        let userDB = Soundscape.temporaryUserDatabase()
        defer { try? FileManager.default.removeItem(atPath: userDB) }
        let result = try Soundscape.runTyped(["run", "--at", "60.1710,24.9430", "--heading", "180", "--db", Soundscape.helsinkiDatabase,
                                              "--quiet", "--user-db", userDB],
                                             lines: ["set beacon on Kauppatori", "where is the beacon", "mute beacon",
                                                     "save marker as Meeting Point", "quit"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let set = try #require(lines.firstIndex { $0.hasPrefix("Beacon set on") }, "\(result.stdout)")
        let where_ = try #require(lines.firstIndex { $0.hasPrefix("Beacon on ") }, "\(result.stdout)")
        let muted = try #require(lines.firstIndex(of: "Beacon muted"), "\(result.stdout)")
        let marker = try #require(lines.firstIndex(of: "Marker created, Meeting Point"), "\(result.stdout)")
        #expect(set < where_ && where_ < muted && muted < marker, "\(result.stdout)")
        #expect(Self.kauppatoriNames.contains { lines[where_].contains($0) }, "\(lines[where_])")
    }
}

extension CommandLineTests {
    /// Beacon read-backs follow the units setting like every other distance (they used to be metric always).
    @Test func beaconReadBacksUseTheUsersUnits() throws {
        try TestServices.require()
        let userDB = Soundscape.temporaryUserDatabase()
        defer { try? FileManager.default.removeItem(atPath: userDB) }
        let common = ["--at", "60.16887,24.94400", "--heading", "90", "--db", Soundscape.helsinkiDatabase, "--quiet", "--user-db", userDB]
        let imperial = try Soundscape.run(["say", "set beacon on Kauppatori", "--imperial"] + common)
        #expect(imperial.status == 0, "\(imperial.stderr)")
        #expect(imperial.stdout.contains("miles") || imperial.stdout.contains("feet"), "\(imperial.stdout)")
        #expect(!imperial.stdout.contains("meters"), "\(imperial.stdout)")
        let metric = try Soundscape.run(["say", "where is the beacon"] + common)
        #expect(metric.stdout.contains("meters"), "\(metric.stdout)")
    }
}
