import Foundation
import GRDB
import ProcessTestSupport
import Testing
import TOMLKit

/// The whole program, `soundscape run` as a child process, while the things it depends on fail under it:
/// it must say what went wrong (printed, naming the file or the service), keep working with what it has,
/// and never crash.
@Suite("soundscape run survives faults", .serialized)
struct FaultTests {
    // MARK: gpsd

    @Test func gpsdKilledAndRestartedIsOneLossThenFixesAgain() async throws {
        try Harness.require()
        let db = try await HelsinkiMap.shared.database()
        let dir = try Harness.temporaryDirectory("rel-gpsd")
        defer { try? FileManager.default.removeItem(at: dir) }
        let gpsd = GpsfakeDaemon(log: TestPlace.nmeaFixture)
        try await gpsd.start()
        defer { gpsd.kill9() }

        // --verbose: the fixes dropped and the reconnection attempts go to stderr, which a failure prints.
        let run = try SoundscapeRun.start(["--db", db, "--gpsd", gpsd.address, "--quiet", "--no-voice", "--verbose"], in: dir)
        #expect(await run.child.waitFor("GPS ready", timeout: 30), "\(run.child.stdout)\(run.child.stderr)")
        // Fixes arrive: "where am i" answers with a place, not with "location unknown".
        try await Task.sleep(for: .seconds(2))
        #expect(await run.ask("where am i"))

        gpsd.kill9()
        #expect(await run.child.waitFor("GPS signal lost", timeout: 15), "no loss reported: \(run.child.stdout)")
        // It keeps answering while the GPS is gone.
        #expect(await run.ask("help"))
        try await Task.sleep(for: .seconds(3))
        try await gpsd.start()
        #expect(await run.child.waitFor("GPS signal restored", timeout: 20), "no recovery reported: \(run.child.stdout)\(run.child.stderr)")
        // Said once each, not once per reconnection attempt.
        #expect(run.child.stdout.occurrences(of: "GPS signal lost") == 1, "\(run.child.stdout)")
        #expect(run.child.stdout.occurrences(of: "GPS signal restored") == 1, "\(run.child.stdout)")
        #expect(run.child.isRunning)
        #expect(await run.ask("where am i"))

        await run.quitsCleanly(timeout: 20)
    }

    // MARK: PulseAudio

    @Test func soundServerKilledAndRestartedIsReportedAndPlaysAgain() async throws {
        try Harness.require()
        let db = try await HelsinkiMap.shared.database()
        let dir = try Harness.temporaryDirectory("rel-pulse")
        defer { try? FileManager.default.removeItem(at: dir) }
        let pulse = try PrivatePulseAudio()
        try await pulse.start()
        defer { pulse.kill9() }

        let run = try SoundscapeRun.start(["--db", db, "--at", TestPlace.at, "--heading", TestPlace.heading, "--no-voice",
                                           "--sink", "spk"], in: dir, environment: pulse.clientEnvironment)
        #expect(await run.child.waitFor("Fixed location", timeout: 30), "\(run.child.stdout)\(run.child.stderr)")
        #expect(await run.ask("where am i", expecting: TestPlace.whereAmI))
        // Between replies (the one above has been spoken).
        try await Task.sleep(for: .seconds(5))

        pulse.kill9()
        try await Task.sleep(for: .milliseconds(500))
        // Replies still come, in print, and the loss is said once.
        #expect(await run.ask("where am i", expecting: TestPlace.whereAmI))
        #expect(await run.child.waitFor("Problem: no sound server", timeout: 5), "\(run.child.stdout)")
        #expect(await run.ask("help"))
        #expect(run.child.stdout.occurrences(of: "Problem: no sound server") == 1, "\(run.child.stdout)")

        try await pulse.start()
        // Record the speakers' monitor and ask until a reply is heard on it.
        let capture = dir.appendingPathComponent("after-restart.raw").path
        let recorder = try ChildProcess(["parec", "-d", "spk.monitor", "--raw", "--format=s16le", "--rate=48000", "--channels=2"],
                                        environment: pulse.clientEnvironment, stdout: capture)
        defer { recorder.signal(SIGKILL) }
        var loud = 0
        for _ in 0..<10 where loud == 0 {
            #expect(await run.ask("where am i", expecting: TestPlace.whereAmI))
            try await Task.sleep(for: .seconds(3))
            loud = Self.loudSamples(capture)
        }
        #expect(loud > 4_800, "nothing came out of the sink after the restart (\(loud) loud samples)")
        #expect(await run.child.waitFor("Sound is back", timeout: 5), "\(run.child.stdout)")
        #expect(run.child.isRunning)

        await run.quitsCleanly(timeout: 30)
    }

    /// The sound server dies while a reply is being spoken and the user asks again: the question is answered
    /// again (printed), and the program goes on answering.
    @Test func soundServerDyingMidReplyStillPrintsTheNextReply() async throws {
        try Harness.require()
        let db = try await HelsinkiMap.shared.database()
        let dir = try Harness.temporaryDirectory("rel-pulse-mid")
        defer { try? FileManager.default.removeItem(at: dir) }
        let pulse = try PrivatePulseAudio()
        try await pulse.start()
        defer { pulse.kill9() }
        let run = try SoundscapeRun.start(["--db", db, "--at", TestPlace.at, "--heading", TestPlace.heading, "--no-voice",
                                           "--sink", "spk"], in: dir, environment: pulse.clientEnvironment)
        #expect(await run.child.waitFor("Fixed location", timeout: 30), "\(run.child.stdout)\(run.child.stderr)")
        #expect(await run.ask("where am i", expecting: TestPlace.whereAmI))
        pulse.kill9()
        try await Task.sleep(for: .milliseconds(300))
        // Asked again while the first answer is still (silently) playing: it is cut off and the answer comes again.
        #expect(await run.ask("where am i", expecting: TestPlace.whereAmI, timeout: 8), "\(run.child.stdout)")
        // Whatever happened to that reply, the program goes on answering.
        try await Task.sleep(for: .seconds(4))
        #expect(await run.ask("where am i", expecting: TestPlace.whereAmI))
        await run.quitsCleanly(timeout: 30)
    }

    /// Samples louder than −40 dBFS in a raw s16le file.
    static func loudSamples(_ path: String) -> Int {
        guard let data = FileManager.default.contents(atPath: path) else { return 0 }
        return data.withUnsafeBytes { raw in
            raw.bindMemory(to: Int16.self).reduce(0) { $0 + (abs(Int32($1)) > 328 ? 1 : 0) }
        }
    }

    /// Unloads the virtual microphone's module and expects the running program to report the loss.
    static func unplugTheMicrophone(of pulse: PrivatePulseAudio, heardBy run: SoundscapeRun,
                                    sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await pulse.unloadMicrophone()
        #expect(await run.child.waitForOutput(timeout: 10) { $0.contains("Problem:") && $0.lowercased().contains("microphone") },
                "the lost microphone was not reported: \(run.child.stdout)", sourceLocation: sourceLocation)
    }

    /// `soundscape run` with voice input on and printing what it hears (`--verbose`), on a PulseAudio of its own
    /// (``PrivatePulseAudio``: the virtual microphone `vmic`, fed from `micsink`) and with a data folder of its own;
    /// ready once it has said where it is. ``close()`` stops the sound server and removes the folder.
    struct VoiceRun {
        let pulse: PrivatePulseAudio
        let run: SoundscapeRun
        let directory: URL
        let environment: [String: String]

        static func start(_ name: String) async throws -> VoiceRun {
            try Harness.require()
            let db = try await HelsinkiMap.shared.database()
            let dir = try Harness.temporaryDirectory(name)
            let pulse = try PrivatePulseAudio()
            try await pulse.start()
            var environment = pulse.clientEnvironment
            environment["XDG_DATA_HOME"] = dir.appendingPathComponent("data").path
            let run = try SoundscapeRun.start(["--db", db, "--at", TestPlace.at, "--heading", TestPlace.heading, "--quiet", "--verbose"],
                                              in: dir, environment: environment)
            #expect(await run.child.waitFor("Fixed location", timeout: 60), "\(run.child.stdout)\(run.child.stderr)")
            try await Task.sleep(for: .seconds(2))
            return VoiceRun(pulse: pulse, run: run, directory: dir, environment: environment)
        }

        func close() {
            pulse.kill9()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// Says `text` (espeak-ng) into the null sink `sink`, whose monitor feeds a microphone, between a push-to-talk
    /// press and release over the control socket (as a desktop key would); true when the program heard it
    /// (it must run with `--verbose`). `environment`: the program's, for its runtime folder.
    static func say(_ text: String, into sink: String, of pulse: PrivatePulseAudio, to run: SoundscapeRun,
                    environment: [String: String]) async throws -> Bool {
        let speech = run.directory.appendingPathComponent("said-\(UUID().uuidString).wav").path
        _ = try await runToEnd(["espeak-ng", "-v", "en-us", "-s", "150", "-w", speech, text])
        _ = try await runToEnd([Harness.soundscape, "ptt", "press"], environment: environment)
        try await Task.sleep(for: .milliseconds(300))
        _ = try await runToEnd(["paplay", "--device=\(sink)", speech], environment: pulse.clientEnvironment)
        try await Task.sleep(for: .milliseconds(500))
        _ = try await runToEnd([Harness.soundscape, "ptt", "release"], environment: environment)
        let heard = await run.child.waitForOutput(timeout: 20) { _ in (run.child.stdout + run.child.stderr).contains("voice: heard \"\(text)\"") }
        if !heard { print("\"\(text)\" was not heard: \((run.child.stdout + run.child.stderr).suffix(3000))") }
        return heard
    }

    // MARK: microphone

    @Test func microphoneRemovedIsReportedAndTypedCommandsStillWork() async throws {
        try Harness.require()
        let db = try await HelsinkiMap.shared.database()
        let dir = try Harness.temporaryDirectory("rel-mic")
        defer { try? FileManager.default.removeItem(at: dir) }
        let pulse = try PrivatePulseAudio()
        try await pulse.start()
        defer { pulse.kill9() }

        let run = try SoundscapeRun.start(["--db", db, "--at", TestPlace.at, "--heading", TestPlace.heading, "--quiet"],
                                          in: dir, environment: pulse.clientEnvironment)
        #expect(await run.child.waitFor("Fixed location", timeout: 60), "\(run.child.stdout)\(run.child.stderr)")
        #expect(!run.child.stdout.contains("voice commands are off") && !run.child.stderr.contains("voice commands are off"),
                "voice must be on for this test: \(run.child.stderr)")
        try await Task.sleep(for: .seconds(2))

        try await Self.unplugTheMicrophone(of: pulse, heardBy: run)
        #expect(await run.ask("where am i", expecting: TestPlace.whereAmI))

        // Put the microphone back: voice input picks it up again and says so.
        try await pulse.pactl(["load-module", "module-remap-source", "master=micsink.monitor", "source_name=vmic", "channels=1"])
        try await pulse.pactl(["set-default-source", "vmic"])
        #expect(await run.child.waitFor("Microphone is back", timeout: 15), "\(run.child.stdout)")
        let problems = run.child.stdoutLines.filter { $0.hasPrefix("Problem:") && $0.lowercased().contains("microphone") }
        #expect(problems.count == 1, "reported once: \(problems)")
        #expect(run.child.isRunning)

        await run.quitsCleanly(timeout: 30)
    }

    /// No microphone chosen: voice input follows the default source. The only microphone goes away and the
    /// default falls to a monitor of an output, which is not listened to; another microphone is plugged in and
    /// made the default, and voice input moves to it at once, says so by name, and hears a command through it.
    /// What the recognizer learns there is kept under the new microphone's name.
    @Test func voiceInputFollowsTheDefaultMicrophoneButNeverAMonitor() async throws {
        let voice = try await VoiceRun.start("rel-mic-follow")
        defer { voice.close() }
        let (pulse, run, dir, environment) = (voice.pulse, voice.run, voice.directory, voice.environment)

        // The microphone goes: the default source is now a monitor, and voice input must not take it.
        try await Self.unplugTheMicrophone(of: pulse, heardBy: run)
        try await Task.sleep(for: .seconds(3))
        #expect(!run.child.stdout.contains("listening through"), "voice input moved to a monitor: \(run.child.stdout)")

        // Another microphone is plugged in and becomes the default.
        try await pulse.pactl(["load-module", "module-null-sink", "sink_name=laptopfeed", "rate=16000", "channels=1"])
        try await pulse.pactl(["load-module", "module-remap-source", "master=laptopfeed.monitor", "source_name=laptopmic", "channels=1",
                               "source_properties=\"device.description='Laptop Microphone'\""])
        try await pulse.pactl(["set-default-source", "laptopmic"])
        #expect(await run.child.waitFor("Now listening through Laptop Microphone", timeout: 10), "\(run.child.stdout)")

        // A command said into it is heard.
        #expect(try await Self.say("where am i", into: "laptopfeed", of: pulse, to: run, environment: environment))
        #expect(await run.child.waitFor(TestPlace.whereAmI, timeout: 10), "\(run.child.stdout)")

        // What was learned from it is kept for the new microphone.
        let kept = dir.appendingPathComponent("data/soundscape/microphones.json")
        let file = String(decoding: (try? Data(contentsOf: kept)) ?? Data(), as: UTF8.self)
        #expect(file.contains("\"laptopmic\""), "nothing kept for the new microphone: \(file)")
        await run.quitsCleanly(timeout: 30)
    }

    /// The sound server dies and comes back while voice input is on: the loss is said, the microphone is found
    /// again on the new server, and a spoken command is heard through it.
    @Test func soundServerRestartedBringsVoiceInputBack() async throws {
        let voice = try await VoiceRun.start("rel-mic-server")
        defer { voice.close() }
        let (pulse, run, environment) = (voice.pulse, voice.run, voice.environment)

        pulse.kill9()
        #expect(await run.child.waitForOutput(timeout: 10) { $0.contains("Problem:") && $0.lowercased().contains("microphone") },
                "the lost microphone was not reported: \(run.child.stdout)")
        try await pulse.start()
        #expect(await run.child.waitFor("Microphone is back", timeout: 15), "\(run.child.stdout)")
        #expect(try await Self.say("where am i", into: "micsink", of: pulse, to: run, environment: environment))
        #expect(run.child.isRunning)
        await run.quitsCleanly(timeout: 30)
    }

    // MARK: databases

    @Test func corruptMapDatabaseIsAClearErrorNamingTheFile() async throws {
        try Harness.require()
        let dir = try Harness.temporaryDirectory("rel-map")
        defer { try? FileManager.default.removeItem(at: dir) }
        let map = dir.appendingPathComponent("map.sqlite").path
        var generator = SystemRandomNumberGenerator()
        try Data((0..<65_536).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: map))

        let run = try SoundscapeRun.start(["--db", map, "--at", TestPlace.at, "--quiet", "--no-voice"], in: dir)
        let end = await run.child.wait(timeout: 30)
        let all = run.child.stdout + run.child.stderr
        #expect(end.exitCode != nil && end.exitCode != 0, "\(end): \(all)")
        #expect(!end.timedOut)
        #expect(all.contains(map), "the message must name the file: \(all)")
        #expect(SoundscapeRun.crashSigns(all).isEmpty, "\(all)")
    }

    @Test func lockedUserDatabaseIsReportedAndTheRestWorks() async throws {
        try Harness.require()
        let db = try await HelsinkiMap.shared.database()
        let dir = try Harness.temporaryDirectory("rel-lock")
        defer { try? FileManager.default.removeItem(at: dir) }
        let userDB = dir.appendingPathComponent("user.sqlite").path
        // A user database made by the program itself, with a marker in it.
        let first = try SoundscapeRun.start(["--db", db, "--at", TestPlace.at, "--quiet", "--no-voice", "--user-db", userDB], in: dir)
        #expect(await first.child.waitFor("Fixed location", timeout: 30))
        #expect(await first.ask("save marker as home"))
        first.child.type("quit")
        #expect(await first.child.wait(timeout: 20).exitCode == 0)

        // Another program holds an exclusive lock on it.
        let holder = try ChildProcess(["sqlite3", userDB])
        defer { holder.signal(SIGKILL) }
        holder.type("BEGIN EXCLUSIVE;")
        holder.type("SELECT 'lock' || 'held';")
        #expect(await holder.waitFor("lockheld", timeout: 10), "sqlite3 did not take the lock: \(holder.stderr)")

        // The user database is in WAL mode: reading goes on under the lock, writing a marker cannot.
        let run = try SoundscapeRun.start(["--db", db, "--at", TestPlace.at, "--heading", TestPlace.heading, "--quiet", "--no-voice",
                                           "--user-db", userDB], in: dir)
        #expect(await run.child.waitFor("Fixed location", timeout: 30), "\(run.child.stdout)\(run.child.stderr)")
        #expect(await run.ask("save marker as gym", expecting: "locked", timeout: 30), "the lock was not reported: \(run.child.stdout)")
        let lockLine = run.child.stdoutLines.first { $0.contains("locked") } ?? ""
        #expect(lockLine.hasPrefix("Problem:") && lockLine.contains(userDB), "\(lockLine)")
        #expect(await run.ask("where am i", expecting: TestPlace.whereAmI, timeout: 30), "\(run.child.stdout)")
        #expect(run.child.isRunning)
        await run.quitsCleanly(timeout: 30)
    }

    @Test func corruptUserDatabaseIsReportedAndTheRestWorks() async throws {
        try Harness.require()
        let db = try await HelsinkiMap.shared.database()
        let dir = try Harness.temporaryDirectory("rel-userdb")
        defer { try? FileManager.default.removeItem(at: dir) }
        let userDB = dir.appendingPathComponent("user.sqlite").path
        try Data(repeating: 0xA5, count: 8192).write(to: URL(fileURLWithPath: userDB))

        let run = try SoundscapeRun.start(["--db", db, "--at", TestPlace.at, "--heading", TestPlace.heading, "--quiet", "--no-voice",
                                           "--user-db", userDB], in: dir)
        #expect(await run.child.waitForOutput(timeout: 30) { $0.contains("Problem:") && $0.contains(userDB) },
                "the corrupt file was not named: \(run.child.stdout)\(run.child.stderr)")
        #expect(await run.ask("where am i", expecting: TestPlace.whereAmI), "\(run.child.stdout)")
        await run.quitsCleanly(timeout: 30)
    }

    // MARK: configuration

    @Test(arguments: ["binary", "broken TOML"])
    func corruptConfigurationIsReportedWithItsLineAndDefaultsApply(_ kind: String) async throws {
        try Harness.require()
        let db = try await HelsinkiMap.shared.database()
        let dir = try Harness.temporaryDirectory("rel-config")
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("config.toml").path
        let contents: Data = kind == "binary"
            ? Data([0x00, 0xFF, 0xFE, 0x1B, 0x7F, 0x0A, 0xC3, 0x28, 0x00, 0x01, 0x0A] + Array(repeating: 0x9F, count: 200))
            : Data("units = \"imperial\"\nspeech_rate = [1, 2\nvoice = \"en\"\n".utf8)
        try contents.write(to: URL(fileURLWithPath: config))

        let run = try SoundscapeRun.start(["--db", db, "--at", TestPlace.at, "--heading", TestPlace.heading, "--quiet", "--no-voice",
                                           "--config", config], in: dir)
        #expect(await run.child.waitFor("Fixed location", timeout: 30), "\(run.child.stdout)\(run.child.stderr)")
        let problem = run.child.stdoutLines.first { $0.hasPrefix("Problem: \(config):") }
        #expect(problem != nil, "no problem naming \(config): \(run.child.stdout)")
        // file:line — a line number follows the file name ("FILE:2:" or "FILE: line 2,"), the line the damage is on.
        let afterName = problem.map { String($0.dropFirst("Problem: \(config):".count)) } ?? ""
        let line = afterName.hasPrefix(" line ") ? afterName.dropFirst(6).prefix { $0.isNumber } : afterName.prefix { $0.isNumber }
        // (The array left open on line 2 is found on line 3, where the parser meets the next key.)
        #expect((kind == "binary" ? [1] : [2, 3]).contains(Int(line) ?? 0), "no or the wrong line number in \(problem ?? "")")
        // The defaults apply: metric units (the broken file asked for imperial).
        #expect(await run.ask("where am i", expecting: TestPlace.whereAmI))
        await run.quitsCleanly(timeout: 30)
        // The broken file is left as it was for the user to mend.
        #expect(FileManager.default.contents(atPath: config) == contents)
    }

    // MARK: kill -9 during writes

    @Test func killedWhileSavingMarkersLeavesAUsableDatabase() async throws {
        try Harness.require()
        let db = try await HelsinkiMap.shared.database()
        let dir = try Harness.temporaryDirectory("rel-kill-markers")
        defer { try? FileManager.default.removeItem(at: dir) }
        let userDB = dir.appendingPathComponent("user.sqlite").path
        let labels = ["home", "work", "office", "school", "gym", "entrance", "parking"]
        for round in 0..<4 {
            let run = try SoundscapeRun.start(["--db", db, "--at", TestPlace.at, "--quiet", "--no-voice", "--user-db", userDB], in: dir)
            #expect(await run.child.waitFor("Fixed location", timeout: 30), "\(run.child.stdout)\(run.child.stderr)")
            for i in 0..<60 { run.child.type("save marker as \(labels[(i + round) % labels.count])") }
            // Kill it somewhere in the middle of the writes.
            try await Task.sleep(for: .milliseconds(150 + 200 * round))
            run.child.signal(SIGKILL)
            let end = await run.child.wait(timeout: 10)
            #expect(end.signal == SIGKILL, "round \(round): \(end)")
            let check = try await runToEnd(["sqlite3", userDB, "PRAGMA integrity_check;"]).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(check == "ok", "round \(round): \(check)")
        }
        // The program opens it again without a problem.
        let run = try SoundscapeRun.start(["--db", db, "--at", TestPlace.at, "--heading", TestPlace.heading, "--quiet", "--no-voice",
                                           "--user-db", userDB], in: dir)
        // Like every other start in this suite: ready first (it opens a database four kills have been through).
        #expect(await run.child.waitFor("Fixed location", timeout: 30), "\(run.child.stdout)\(run.child.stderr)")
        #expect(await run.ask("where am i", expecting: TestPlace.whereAmI, timeout: 30), "\(run.child.stdout)")
        run.child.type("quit")
        #expect(await run.child.wait(timeout: 20).exitCode == 0)
        #expect(!run.child.stdout.contains("Problem:"), "\(run.child.stdout)")
        // What was committed before the kills is there.
        let markers = try await DatabaseQueue(path: userDB).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM markers") }
        #expect((markers ?? 0) > 0, "no marker survived")
    }

    @Test func killedWhileSavingSettingsLeavesTheOldOrTheNewFile() async throws {
        try Harness.require()
        let dir = try Harness.temporaryDirectory("rel-kill-settings")
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("config.toml").path
        try await runToEnd([Harness.soundscape, "config", "--file", config, "set", "units", "imperial"])
        var killed = 0
        for round in 0..<30 {
            let value = round % 2 == 0 ? "metric" : "imperial"
            let child = try ChildProcess([Harness.soundscape, "config", "--file", config, "set", "units", value])
            try await Task.sleep(for: .milliseconds(Int.random(in: 5...60)))
            if child.isRunning { child.signal(SIGKILL); killed += 1 }
            _ = await child.wait(timeout: 10)
            let text = try String(contentsOfFile: config, encoding: .utf8)
            let table = try TOMLTable(string: text)
            let units = table["units"]?.string
            #expect(units == "metric" || units == "imperial", "round \(round): \(text)")
        }
        #expect(killed > 0, "no run was killed; the test killed nothing")
    }
}
