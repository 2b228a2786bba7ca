import Foundation
import ProcessTestSupport
import Testing

/// Two hours of walking, replayed fast: memory must level off, and every queue between the position source and
/// the speech must drop or coalesce when it cannot keep up, not grow.
@Suite("soundscape run over a long walk", .serialized)
struct LongWalkTests {
    /// A 2-hour walk (7,200 fixes, one a second at 1.4 m/s) back and forth across central Helsinki, made by
    /// scripts/make-walk.py: rows 150 m apart from Kamppi to Katajanokka, so that the walk keeps meeting new streets.
    static func twoHourWalk(in dir: URL) async throws -> String {
        var waypoints: [String] = []
        for row in 0..<8 {
            let lat = 60.1590 + Double(row) * 0.00135
            let (west, east) = ("24.9270", "24.9600")
            waypoints += row % 2 == 0 ? ["\(lat),\(west)", "\(lat),\(east)"] : ["\(lat),\(east)", "\(lat),\(west)"]
        }
        let gpx = try await runToEnd(["python3", Harness.packageRoot.appendingPathComponent("scripts/make-walk.py").path,
                                      "two hours across the centre", "1.4"] + waypoints)
        // Keep the first 7,200 points (two hours).
        var lines = gpx.split(separator: "\n", omittingEmptySubsequences: false)
        let points = lines.indices.filter { lines[$0].contains("<trkpt") }
        try #require(points.count >= 7_200, "the walk has only \(points.count) points")
        lines.removeSubrange(points[7_200]...points.last!)
        let path = dir.appendingPathComponent("two-hours.gpx").path
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    struct Sample { var seconds: Double; var kib: Int }

    /// Runs the walk and samples the resident memory every `interval` seconds until the program ends.
    static func walk(_ walk: String, speed: Int, interval: Double, in dir: URL) async throws
        -> (samples: [Sample], run: SoundscapeRun, end: ChildProcess.Termination, seconds: Double) {
        let db = try await HelsinkiMap.shared.database()
        let run = try SoundscapeRun.start(["--db", db, "--gpsd", "127.0.0.1:1", "--walk", walk, "--speed", String(speed),
                                           "--quiet", "--no-voice", "--exit-at-end-of-walk"], in: dir)
        let start = Date()
        var samples: [Sample] = []
        while run.child.isRunning && Date().timeIntervalSince(start) < 600 {
            if let kib = run.child.residentKiB { samples.append(Sample(seconds: Date().timeIntervalSince(start), kib: kib)) }
            try await Task.sleep(for: .seconds(interval))
        }
        let end = await run.child.wait(timeout: 30)
        return (samples, run, end, Date().timeIntervalSince(start))
    }

    @Test func twoHoursAtTwoHundredTimesSpeedKeepsMemoryLevel() async throws {
        try Harness.require()
        let dir = try Harness.temporaryDirectory("rel-long-walk")
        defer { try? FileManager.default.removeItem(at: dir) }
        let gpx = try await Self.twoHourWalk(in: dir)
        let (samples, run, end, seconds) = try await Self.walk(gpx, speed: 200, interval: 1, in: dir)

        #expect(end.exitCode == 0, "\(end): \(run.child.stderr.suffix(2000))")
        #expect(SoundscapeRun.crashSigns(run.child.stdout + run.child.stderr).isEmpty)
        // 7,200 s at 200× is 36 s; much longer means the pipeline fell behind the walk. (At 100× the walk took twice
        // as long in `make test` and memory grew the same 2–3 %.)
        #expect(seconds > 30 && seconds < 75, "the walk took \(seconds) s")
        // The walk was followed: callouts along the way, not just the greeting.
        #expect(run.child.stdoutLines.count > 50, "\(run.child.stdoutLines.count) lines: \(run.child.stdout.prefix(2000))")
        try #require(samples.count >= 20, "\(samples.count) memory samples")
        let at20 = samples[samples.count / 5].kib
        let last = samples.last!.kib
        let growth = Double(last - at20) / Double(at20)
        print("long walk: \(samples.count) samples over \(Int(seconds)) s; RSS \(at20) KiB at 20 % → \(last) KiB at the end (\(String(format: "%+.1f", growth * 100)) %); peak \(samples.map(\.kib).max()!) KiB")
        #expect(growth < 0.05, "RSS grew \(String(format: "%.1f", growth * 100)) % from \(at20) KiB to \(last) KiB")
    }

    /// The location stream under overload: the same two hours fed at 5,000× (over 1,400 fixes a second). The
    /// stream keeps only the newest positions, so memory stays where the 200× walk has it and the walk still ends.
    @Test func locationsFasterThanThePipelineAreDroppedNotQueued() async throws {
        try Harness.require()
        let dir = try Harness.temporaryDirectory("rel-flood")
        defer { try? FileManager.default.removeItem(at: dir) }
        let gpx = try await Self.twoHourWalk(in: dir)
        let (samples, run, end, seconds) = try await Self.walk(gpx, speed: 5_000, interval: 0.05, in: dir)
        #expect(end.exitCode == 0, "\(end): \(run.child.stderr.suffix(2000))")
        #expect(seconds < 30, "the flooded walk took \(seconds) s: positions queued up behind the pipeline")
        let peak = samples.map(\.kib).max() ?? 0
        print("location flood: \(samples.count) samples over \(String(format: "%.1f", seconds)) s; peak RSS \(peak) KiB")
        // Whatever the speed, the program holds the map and a bounded backlog: well under the 200× walk's level
        // (66 MB measured in a debug build); the time above is what shows positions were dropped, not queued.
        #expect(peak > 0 && peak < 150_000, "peak RSS \(peak) KiB")
    }

    /// Typed commands pasted in bulk, far more than can be answered at once (each reply waits its turn): memory stays
    /// level while the backlog lasts, answers keep coming, and the program still stops cleanly on SIGTERM.
    @Test func aFloodOfTypedCommandsKeepsMemoryLevel() async throws {
        try Harness.require()
        let db = try await HelsinkiMap.shared.database()
        let dir = try Harness.temporaryDirectory("rel-commands")
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try SoundscapeRun.start(["--db", db, "--at", TestPlace.at, "--heading", TestPlace.heading, "--quiet", "--no-voice"],
                                          in: dir)
        #expect(await run.child.waitFor("Fixed location", timeout: 30))
        #expect(await run.ask("where am i", expecting: TestPlace.whereAmI))
        try await Task.sleep(for: .seconds(1))
        let before = run.child.residentKiB ?? 0
        let child = run.child
        let typing = Task.detached { for _ in 0..<2_000 { child.type("where am i") } }
        var peak = before
        for _ in 0..<100 {
            peak = max(peak, run.child.residentKiB ?? 0)
            try await Task.sleep(for: .milliseconds(100))
        }
        await typing.value
        let answered = run.child.stdout.occurrences(of: TestPlace.whereAmI) - 1
        print("command flood: RSS \(before) KiB before, peak \(peak) KiB; \(answered) of 2,000 answered in 10 s")
        #expect(answered > 5, "the answers stopped: \(answered)")
        #expect(Double(peak) < Double(before) * 1.10, "RSS \(before) → \(peak) KiB")
        run.child.signal(SIGTERM)
        let end = await run.child.wait(timeout: 15)
        #expect(end.exitCode != nil && !end.timedOut, "\(end)")
    }
}
