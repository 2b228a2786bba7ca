import Foundation
import Geo
import Location
import Testing

@Suite("gpsd fed by gpsfake")
struct GpsdSmokeTests {
    @Test func ourClientReceivesFixesOfTheWalk() async throws {
        let endpoint = try #require(GpsdEndpoint(try TestServices.gpsd()))
        var fixes: [LocationFix] = []
        var headings: [Double] = []
        let deadline = ContinuousClock.now + .seconds(15)
        for try await report in GpsdConnection.reports(from: endpoint) {
            switch report {
            case .fix(let fix): fixes.append(fix)
            case .heading(let h, _): headings.append(h)
            default: break
            }
            if fixes.count >= 4 || ContinuousClock.now > deadline { break }
        }
        #expect(fixes.count >= 4)
        // The fixture walks east from Rautatientori (60.171 N, 24.942 E) at 1.4 m/s, course 90°.
        let start = Coordinate(latitude: 60.171, longitude: 24.942)
        for fix in fixes {
            #expect(fix.coordinate.distance(to: start) < 60, "fix \(fix.coordinate) is not on the walk")
            #expect(fix.mode >= .twoD)
        }
        // Speed and track come together from the receiver's RMC. gpsd may report a cycle before RMC has arrived:
        // then track is missing and any speed is gpsd's own estimate from two positions, so only RMC cycles are checked.
        let fromRMC = fixes.filter { $0.speed != nil && $0.course != nil }
        #expect(!fromRMC.isEmpty, "\(fixes)")
        // The median, because gpsd smooths a cycle now and then (seen: 1.32 m/s once on a loaded machine).
        let speeds = fromRMC.compactMap(\.speed).sorted()
        if !speeds.isEmpty { #expect(abs(speeds[speeds.count / 2] - 1.4) < 0.05, "\(speeds)") }
        for fix in fromRMC { #expect(abs((fix.course ?? 0) - 90) < 0.5) }
        #expect(headings.allSatisfy { abs($0 - 90) < 0.5 })
    }

    @Test func aPortWithNoDaemonFailsQuicklyAndSaysSo() async throws {
        let endpoint = GpsdEndpoint(host: "127.0.0.1", port: 1)
        let started = ContinuousClock.now
        do {
            for try await _ in GpsdConnection.reports(from: endpoint) {}
            Issue.record("connecting to a closed port must fail")
        } catch let error as GpsdError {
            #expect(error.description.contains("127.0.0.1:1"))
        }
        #expect(ContinuousClock.now - started < .seconds(3))
    }
}

@Suite("GeolocationManager over the harness gpsd")
struct GpsdManagerSmokeTests {
    /// A walk east (course 90°, HDT 90°) replayed once by our own gpsfake (the harness's loops, and after a loop
    /// its times start again, so a client that joins near the end would see repeats dropped): the manager gives
    /// course to the consumers that want course first and the receiver's own heading (ATT) to the beacon, and the
    /// snapshot follows.
    @Test func courseAndReceiverHeadingReachTheConsumers() async throws {
        try TestServices.require()
        let port = GpsfakeRun.freePort()
        let provider = GpsdLocationProvider(endpoint: GpsdEndpoint(host: "127.0.0.1", port: port))
        let manager = GeolocationManager(locationProviders: [provider])
        var fixes = await manager.fixes().makeAsyncIterator()
        // The client first (it retries until gpsd is up), so that it sees the walk from its start.
        let run = Task { try await manager.run() }
        defer { run.cancel() }
        let fixture = TestServices.packageRoot.appendingPathComponent("Tests/Fixtures/rautatientori-walk.nmea")
        let sentences = try String(contentsOf: fixture, encoding: .utf8).split(separator: "\n").map(String.init)
        let gpsfake = try await GpsfakeRun.start(sentences: sentences, port: port)
        defer { gpsfake.stop() }
        let watchdog = Task { try await Task.sleep(for: .seconds(20)); run.cancel() }
        defer { watchdog.cancel() }
        var count = 0
        while count < 5, let fix = await fixes.next() {
            count += 1
            #expect(fix.coordinate.distance(to: Coordinate(latitude: 60.171, longitude: 24.942)) < 60)
        }
        #expect(count == 5)
        #expect(await manager.motion == .walking)
        let collection = try #require(await manager.heading(for: .collection))
        #expect(collection.source == .course && abs(collection.degrees - 90) < 1)
        let beacon = try #require(await manager.heading(for: .beacon))
        #expect(beacon.source == .receiver && abs(beacon.degrees - 90) < 1)
        #expect(await abs((manager.currentHeadings.presentation?.degrees ?? 0) - 90) < 1)
    }
}
