import Clocks
import ClockTestSupport
import Foundation
import Geo
import Location
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct GpsdSignalTrackerTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    func fix(_ s: Double) -> GpsdReport {
        .fix(LocationFix(coordinate: Coordinate(latitude: 60, longitude: 25 + s * 1e-5), timestamp: t0.addingTimeInterval(s)))
    }
    func handle(_ t: inout GpsdSignalTracker, _ r: GpsdReport) -> [LocationEvent] {
        var repeated = false
        return t.handle(r, repeated: &repeated)
    }

    @Test func lossIsReportedOnceAndRestoredBeforeTheNextFix() {
        var t = GpsdSignalTracker()
        #expect(handle(&t, fix(0)).count == 1)
        #expect(t.connectionFailed("gone") == [.signalLost(reason: "gone")])
        #expect(t.connectionFailed("still gone") == [])
        #expect(t.connectionFailed("still gone") == [])
        #expect(handle(&t, .noFix(.noFix)) == [])          // while lost, no-fix adds nothing
        guard case .fix = handle(&t, fix(1)).last else { Issue.record("expected the fix"); return }
        #expect(t.connectionFailed("again") == [.signalLost(reason: "again")])
        let back = handle(&t, fix(2))
        #expect(back.first == .signalRestored)
        #expect(back.count == 2)
    }

    @Test func noFixAndNoReceiverAreReportedOnChange() {
        var t = GpsdSignalTracker()
        #expect(handle(&t, .devices([])) == [.noFix(.noReceiver)])
        #expect(handle(&t, .devices([])) == [])
        #expect(handle(&t, .noFix(.noFix)) == [.noFix(.noSatellites)])
        #expect(handle(&t, .noFix(.noFix)) == [])
        #expect(handle(&t, .devices(["/dev/ttyACM0"])) == [])
        #expect(handle(&t, fix(0)).first == .signalRestored)
        #expect(handle(&t, .noFix(.twoD)) == [.noFix(.noSatellites)])
    }

    @Test func untimedFixesAreDroppedUnlessTheReceiverNeverGivesTime() {
        var t = GpsdSignalTracker()
        let arrival = Date()   // our clock, far from the receiver's (a replayed log)
        func untimed(_ s: Double) -> GpsdReport {
            .untimedFix(LocationFix(coordinate: Coordinate(latitude: 60, longitude: 25), timestamp: arrival.addingTimeInterval(s)))
        }
        // gpsd's partial report (GGA before RMC), then the timed one: only the timed one, every cycle.
        for s in 0..<5 {
            #expect(handle(&t, untimed(Double(s))) == [])
            #expect(handle(&t, fix(Double(s))).last?.fixSecond != nil)
        }
        #expect(t.lastFixTime == t0.addingTimeInterval(4))
        // A receiver that gives no time at all: after three untimed fixes they are used, in arrival order.
        var u = GpsdSignalTracker()
        #expect(handle(&u, untimed(0)) == [])
        #expect(handle(&u, untimed(1)) == [])
        #expect(handle(&u, untimed(2)).count == 1)
        #expect(handle(&u, untimed(3)).count == 1)
        #expect(u.lastFixTime == arrival.addingTimeInterval(3))
    }

    @Test func aRepeatIsDroppedAndAnEarlierFixIsPassedOnForTheFilter() {
        var t = GpsdSignalTracker()
        var repeated = false
        #expect(t.handle(fix(5), repeated: &repeated).count == 1 && !repeated)
        #expect(t.handle(fix(5), repeated: &repeated).isEmpty && repeated)
        // gpsd does not reorder: an earlier time means the receiver's clock went back, which FixFilter judges.
        #expect(t.handle(fix(4), repeated: &repeated).count == 1 && !repeated)
        #expect(t.handle(fix(6), repeated: &repeated).count == 1 && !repeated)
    }
}

/// A tiny gpsd stand-in: accepts one client at a time on loopback and writes the given lines to it.
final class FakeGpsdServer: @unchecked Sendable {
    let port: UInt16
    private let fd: Int32
    private let clients = Mutex<[Int32]>([])

    init() throws {
        let sock = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(sock, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(rc == 0)
        listen(sock, 4)
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(sock, $0, &length) } }
        fd = sock
        port = UInt16(bigEndian: actual.sin_port)
    }

    /// Waits for the next client (up to 10 s, without blocking a cooperative thread) and keeps it.
    func acceptClient() async throws {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let deadline = ContinuousClock.now + .seconds(10)
        while poll(&pfd, 1, 0) != 1 {
            try #require(ContinuousClock.now < deadline, "no client connected")
            try await Task.sleep(for: .milliseconds(10))
        }
        let client = accept(fd, nil, nil)
        try #require(client >= 0)
        clients.withLock { $0.append(client) }
    }

    func send(_ lines: [String]) {
        let text = lines.map { $0 + "\n" }.joined()
        clients.withLock { all in
            for c in all { _ = text.withCString { Glibc.send(c, $0, strlen($0), Int32(MSG_NOSIGNAL)) } }
        }
    }

    func dropClients() {
        clients.withLock { all in all.forEach { close($0) }; all = [] }
    }

    deinit {
        dropClients()
        close(fd)
    }
}

@Suite struct GpsdLocationProviderTests {
    static func tpv(_ second: Int, lat: Double = 60.171) -> String {
        #"{"class":"TPV","device":"/dev/fake","mode":3,"time":"2026-11-21T12:00:\#(String(format: "%02d", second)).000Z","lat":\#(lat),"lon":24.942,"speed":1.4,"track":90.0,"eph":4.0}"#
    }

    @Test func garbageIsSkippedAndCountedAndAReconnectionRepeatsNothing() async throws {
        let server = try FakeGpsdServer()
        let provider = GpsdLocationProvider(endpoint: GpsdEndpoint(host: "127.0.0.1", port: server.port))
        let task = Task { try await provider.run() }
        defer { task.cancel() }
        let watchdog = Task { try await Task.sleep(for: .seconds(20)); task.cancel() }   // never hang: end the stream
        defer { watchdog.cancel() }
        var events = provider.events.makeAsyncIterator()

        try await server.acceptClient()
        server.send([#"{"class":"VERSION","release":"3.22"}"#, "this is not json", "{\"class\":", Self.tpv(0), #"[1,2,3]"#, Self.tpv(1)])
        #expect(await events.next()?.fixSecond == 0)
        #expect(await events.next()?.fixSecond == 1)
        #expect(provider.counters.skippedLines == 3)

        // gpsd goes away: one loss. The client retries; when a daemon is back it reconnects and the fix the new
        // daemon repeats (second 1) is dropped, so the stream goes on at second 2, after "restored".
        server.dropClients()
        #expect(await events.next() == .signalLost(reason: "gpsd at 127.0.0.1:\(server.port) closed the connection"))
        let back = ContinuousClock.now
        try await server.acceptClient()
        #expect(ContinuousClock.now - back < .seconds(2))
        server.send([Self.tpv(1), Self.tpv(2)])
        #expect(await events.next() == .signalRestored)
        #expect(await events.next()?.fixSecond == 2)
        #expect(provider.counters.droppedRepeats == 1)
        #expect(provider.counters.connections == 2)
    }

    /// A TPV without a time (gpsd's report before the receiver has given a date).
    static let untimedTPV = #"{"class":"TPV","device":"/dev/fake","mode":3,"lat":60.171,"lon":24.942,"speed":1.4,"track":90.0,"eph":4.0}"#

    /// Undated fixes at the start are stamped with our clock, days after the receiver's own times (a replayed log);
    /// then gpsd restarts and the log starts again. Both times the clock goes back, and both times the position
    /// must come back within three fixes, not stay "out of order" until the receiver's time passes ours.
    @Test(.timeLimit(.minutes(1)))
    func fixesFromBeforeAnEarlierStampAreFollowedAfterThree() async throws {
        let server = try FakeGpsdServer()
        let provider = GpsdLocationProvider(endpoint: GpsdEndpoint(host: "127.0.0.1", port: server.port))
        let manager = GeolocationManager(locationProviders: [provider])
        var updates = await manager.updates().makeAsyncIterator()
        let run = Task { try await manager.run() }
        defer { run.cancel() }

        try await server.acceptClient()
        server.send(Array(repeating: Self.untimedTPV, count: 3))
        guard case .fix(let stamped) = await updates.next() else { Issue.record("expected the undated fix"); return }
        #expect(abs(stamped.timestamp.timeIntervalSinceNow) < 60)
        server.send((1...4).map { Self.tpv($0) })
        #expect(await updates.next()?.fixSecond == 3)
        #expect(await updates.next()?.fixSecond == 4)

        server.dropClients()
        guard case .signalLost = await updates.next() else { Issue.record("expected the loss"); return }
        try await server.acceptClient()
        server.send((0...5).map { Self.tpv($0) })
        #expect(await updates.next() == .signalRestored)
        #expect(await updates.next()?.fixSecond == 2)
        #expect(await updates.next()?.fixSecond == 3)
        #expect(await updates.next()?.fixSecond == 4)
        #expect(await updates.next()?.fixSecond == 5)
        #expect(await manager.statistics.rejected == [.outOfOrder: 4])
    }

    @Test(.timeLimit(.minutes(1)))
    func noDaemonIsOneLossAndTheRetriesBackOffOnTheInjectedClock() async throws {
        // Port 1 on loopback: nothing listens there. The waits between attempts are on a test clock.
        let clock = TestClock()
        let provider = GpsdLocationProvider(endpoint: GpsdEndpoint(host: "127.0.0.1", port: 1), clock: clock)
        let task = Task { try await provider.run() }
        defer { task.cancel() }
        var events = provider.events.makeAsyncIterator()
        guard case .signalLost(let reason) = await events.next() else { Issue.record("expected a loss"); return }
        #expect(reason.contains("127.0.0.1:1"))
        // Each failed attempt waits twice as long as the one before, up to 1 s: a moment short of the wait, no
        // new attempt; at it, one more (refused at once), and the provider waits again.
        for (done, wait) in [100, 200, 400, 800, 1000, 1000].enumerated() {
            await clock.waitUntilSomethingSleeps()
            #expect(provider.counters.attempts == done + 1)
            await clock.advance(by: .milliseconds(wait - 1))
            #expect(provider.counters.attempts == done + 1, "tried again before \(wait) ms")
            await clock.advance(by: .milliseconds(1))
        }
        await clock.waitUntilSomethingSleeps()
        #expect(provider.counters.attempts == 7)
        #expect(provider.counters.connections == 0)
        task.cancel()
        #expect(await events.next() == nil, "a loss is reported once, however many attempts fail")
    }
}

extension LocationEvent {
    /// The seconds field of a fix's time, for short assertions.
    var fixSecond: Int? {
        guard case .fix(let f) = self else { return nil }
        return Int(f.timestamp.timeIntervalSince1970) % 60
    }
}
