import Foundation
import Geo
import Location
import ProcessTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A gpsfake (and the gpsd it starts) of our own, on a port of our own, stopped by PID.
final class GpsfakeRun: @unchecked Sendable {
    let port: UInt16
    let process: Process
    let directory: URL

    /// Writes `sentences` to a log and starts `gpsfake -1` on it; returns once gpsd accepts connections.
    /// (Waits with `Task.sleep`: blocking a cooperative thread here would starve the client under test.)
    static func start(sentences: [String], port: UInt16, cycle: Double = 0.1) async throws -> GpsfakeRun {
        let run = try GpsfakeRun(sentences: sentences, port: port, cycle: cycle)
        let deadline = ContinuousClock.now + .seconds(15)
        while !accepts(port) {
            guard ContinuousClock.now < deadline, run.process.isRunning else {
                run.stop()
                throw GpsfakeFailed(description: "gpsfake did not open port \(port)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return run
    }

    private init(sentences: [String], port: UInt16, cycle: Double) throws {
        self.port = port
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gpsfake-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("walk.nmea")
        try (sentences.joined(separator: "\r\n") + "\r\n").write(to: log, atomically: true, encoding: .ascii)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gpsfake")
        process.arguments = ["-q", "-1", "-c", String(cycle), "-P", String(port), log.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    struct GpsfakeFailed: Error, CustomStringConvertible { var description: String }

    /// gpsd processes started by this gpsfake.
    var daemonPIDs: [pid_t] { Harness.children(of: process.processIdentifier, named: "gpsd") }

    /// Kills gpsd (SIGKILL: a crash, no goodbye to clients) and then gpsfake, by PID, and reaps gpsfake.
    func stop() {
        let daemons = daemonPIDs
        for pid in daemons { kill(pid, SIGKILL) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// A TCP port nobody listens on now.
    static func freePort() -> UInt16 { Harness.freePort() }
}

/// Real walks written as NMEA RMC + GGA sentences (RMC first, so that every gpsd TPV is complete).
enum WalkNMEA {
    static func checksum(_ body: String) -> String { String(format: "%02X", body.utf8.reduce(UInt8(0)) { $0 ^ $1 }) }
    static func sentence(_ body: String) -> String { "$\(body)*\(checksum(body))" }

    static func clock(_ date: Date) -> (time: String, date: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return (String(format: "%02d%02d%02d.00", c.hour!, c.minute!, c.second!),
                String(format: "%02d%02d%02d", c.day!, c.month!, c.year! % 100))
    }

    static func angle(_ value: Double, degreeDigits: Int) -> String {
        let a = abs(value)
        let degrees = Int(a)
        let minutes = (a - Double(degrees)) * 60
        return String(format: "%0\(degreeDigits)d%09.6f", degrees, minutes)
    }

    /// `leadIn` epochs without a fix (the receiver still searching) before the walk, so that a client that connects
    /// while gpsfake has already started misses nothing of the walk.
    static func sentences(for fixes: [LocationFix], leadIn: Int) -> [String] {
        var out: [String] = []
        let first = fixes[0].timestamp
        for i in stride(from: leadIn, to: 0, by: -1) {
            let (t, d) = clock(first.addingTimeInterval(-Double(i)))
            out.append(sentence("GPRMC,\(t),V,,,,,,,\(d),,,N"))
            out.append(sentence("GPGGA,\(t),,,,,0,00,99.9,,M,,M,,"))
        }
        for fix in fixes {
            let (t, d) = clock(fix.timestamp)
            let lat = angle(fix.coordinate.latitude, degreeDigits: 2), ns = fix.coordinate.latitude < 0 ? "S" : "N"
            let lon = angle(fix.coordinate.longitude, degreeDigits: 3), ew = fix.coordinate.longitude < 0 ? "W" : "E"
            let knots = String(format: "%.2f", (fix.speed ?? 0) / 0.514444)
            let course = fix.course.map { String(format: "%.1f", $0) } ?? ""
            out.append(sentence("GPRMC,\(t),A,\(lat),\(ns),\(lon),\(ew),\(knots),\(course),\(d),,,A"))
            out.append(sentence("GPGGA,\(t),\(lat),\(ns),\(lon),\(ew),1,09,0.9,51.0,M,47.0,M,,"))
        }
        return out
    }
}

enum WalkData {
    /// A stretch of tracklib's MC_polar walk (Bois de Vincennes, 1 Hz) as fixes with speed and course.
    static func fixes(_ range: Range<Int>) throws -> [LocationFix] {
        let url = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".data/gps/tracklib/sep/raw/MC_polar.gpx")
        let path = ProcessInfo.processInfo.environment["SOUNDSCAPE_DATA"].map { "\($0)/gps/tracklib/sep/raw/MC_polar.gpx" } ?? url.path
        let points = try GPXReader.read(path)
        let plan = TrackReplay(points: Array(points[range]), clock: ContinuousClock()).schedule(startingAt: points[range.lowerBound].time!)
        return plan.map(\.fix)
    }
}

@Suite("gpsd fed by our own gpsfake", .serialized)
struct GpsdReplayTests {
    /// Positions as gpsd gives them: the NMEA minutes have 6 decimals, gpsd prints 9 decimal degrees.
    static func same(_ a: Coordinate, _ b: Coordinate) -> Bool {
        abs(a.latitude - b.latitude) < 1e-7 && abs(a.longitude - b.longitude) < 1e-7
    }

    @Test func everyFixOfARealWalkArrivesInOrder() async throws {
        try TestServices.require()
        let walk = try WalkData.fixes(200..<260)
        let port = GpsfakeRun.freePort()
        let provider = GpsdLocationProvider(endpoint: GpsdEndpoint(host: "127.0.0.1", port: port))
        // The client runs first and retries (at most 1 s apart) until gpsd is up: it is connected well before the
        // 6 s lead-in of no-fix sentences ends, so it cannot miss the start of the walk however loaded the machine.
        let task = Task { try await provider.run() }
        defer { task.cancel() }
        let gpsfake = try await GpsfakeRun.start(sentences: WalkNMEA.sentences(for: walk, leadIn: 30), port: port)
        defer { gpsfake.stop() }
        // Whatever happens, stop after 40 s: cancelling the provider ends its stream and so the loop below.
        let watchdog = Task { try await Task.sleep(for: .seconds(40)); task.cancel() }
        defer { watchdog.cancel() }

        var events: [LocationEvent] = []
        var fixes: [LocationFix] = []
        for await event in provider.events {
            events.append(event)
            if case .fix(let f) = event { fixes.append(f) }
            if fixes.last?.timestamp == walk.last?.timestamp { break }
        }
        // Exactly the walk: every fix, in order, at its place and time, nothing else.
        #expect(fixes.count == walk.count)
        for (got, sent) in zip(fixes, walk) {
            #expect(Self.same(got.coordinate, sent.coordinate), "\(got.coordinate) ≠ \(sent.coordinate)")
            #expect(got.timestamp == sent.timestamp)
            #expect(got.mode == .threeD)
        }
        #expect(zip(fixes, fixes.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        // Before the walk: at most one loss (gpsd not up yet when the client started) and no-fix reports (gpsd may
        // first say it has no receiver while gpsfake attaches the pty); then "restored" once, just before the
        // first fix, and nothing but fixes after it.
        let firstFix = try #require(events.firstIndex { if case .fix = $0 { return true } else { return false } })
        try #require(firstFix >= 1, "\(events.prefix(3))")
        #expect(events[firstFix - 1] == .signalRestored)
        #expect(events[..<(firstFix - 1)].allSatisfy {
            if case .signalLost = $0 { return true }
            return $0 == .noFix(.noSatellites) || $0 == .noFix(.noReceiver)
        })
        #expect(events[..<firstFix].filter { if case .signalLost = $0 { return true } else { return false } }.count <= 1)
        #expect(events[firstFix...].allSatisfy { if case .fix = $0 { return true } else { return false } })
        #expect(provider.counters.skippedLines == 0)
        #expect(provider.counters.connections == 1)
        #expect(provider.counters.droppedRepeats == 0)
    }

    @Test func gpsdKilledMidWalkIsOneLossThenAQuickReconnectionAndTheWalkGoesOn() async throws {
        try TestServices.require()
        let first = try WalkData.fixes(300..<340), second = try WalkData.fixes(340..<380)
        let port = GpsfakeRun.freePort()
        let provider = GpsdLocationProvider(endpoint: GpsdEndpoint(host: "127.0.0.1", port: port))
        let manager = GeolocationManager(locationProviders: [provider])
        let updates = await manager.updates()
        var a: GpsfakeRun? = try await GpsfakeRun.start(sentences: WalkNMEA.sentences(for: first, leadIn: 30), port: port)
        defer { a?.stop() }
        let run = Task { try await manager.run() }
        defer { run.cancel() }
        // Whatever happens, stop after 60 s: cancelling the manager finishes its update stream.
        let watchdog = Task { try await Task.sleep(for: .seconds(60)); run.cancel() }
        defer { watchdog.cancel() }

        var events: [LocationEvent] = []
        var fixes: [LocationFix] = []
        var b: GpsfakeRun?
        defer { b?.stop() }
        var restartedAt: ContinuousClock.Instant?
        var reconnectDelay: Duration?
        for await event in updates {
            events.append(event)
            if case .fix(let f) = event { fixes.append(f) }
            if fixes.count == 12, a != nil {
                // Kill gpsd mid-walk (SIGKILL) with gpsfake.
                a?.stop()
                a = nil
            }
            if case .signalLost = event {
                // Let the client retry against nothing for 3 s, then bring gpsd back on the same port.
                try await Task.sleep(for: .seconds(3))
                b = try await GpsfakeRun.start(sentences: WalkNMEA.sentences(for: second, leadIn: 30), port: port)
                restartedAt = .now
                while provider.counters.connections < 2 && ContinuousClock.now - restartedAt! < .seconds(5) {
                    try await Task.sleep(for: .milliseconds(10))
                }
                reconnectDelay = ContinuousClock.now - restartedAt!
            }
            if fixes.last?.timestamp == second.last?.timestamp { break }
        }

        // One loss; after it exactly one restoration, before the first fix of the new daemon; and the reconnection
        // came within 2 s of gpsd being back. (The lead-in of the first daemon gave its own no-fix → restored.)
        let losses = events.indices.filter { if case .signalLost = events[$0] { return true } else { return false } }
        #expect(losses.count == 1)
        let lost = try #require(losses.first)
        let after = Array(events[(lost + 1)...])
        #expect(after.filter { $0 == .signalRestored }.count == 1)
        #expect(after.first == .signalRestored, "after the loss: \(after.prefix(3))")
        #expect(!after.contains { if case .noFix = $0 { return true } else { return false } })
        let delay = try #require(reconnectDelay)
        #expect(delay < .seconds(2), "reconnected \(delay) after gpsd came back")
        #expect(provider.counters.connections == 2)

        // The fixes: an unbroken run of the first part (from when the client joined up to the kill), then every fix
        // of the second part, in order, no repeats.
        let beforeLoss = fixes.filter { f in first.contains { $0.timestamp == f.timestamp } }
        #expect(beforeLoss.count >= 12)
        let joined = try #require(first.firstIndex { $0.timestamp == beforeLoss.first?.timestamp })
        let expected = Array(first[joined..<min(first.count, joined + beforeLoss.count)]) + second
        #expect(fixes.count == expected.count)
        for (got, sent) in zip(fixes, expected) {
            #expect(Self.same(got.coordinate, sent.coordinate) && got.timestamp == sent.timestamp,
                    "\(got.timestamp) \(got.coordinate) ≠ \(sent.timestamp) \(sent.coordinate)")
        }
        #expect(zip(fixes, fixes.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        #expect(await manager.statistics.rejectedTotal == 0)
        // Stop the client before the deferred gpsfake shutdown, so that shutdown is not logged as a loss.
        run.cancel()
        _ = try? await run.value
    }
}
