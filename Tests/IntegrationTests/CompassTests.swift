import Foundation
import Location
import Synchronization
import Testing

/// Our stand-in for iio-sensor-proxy (Tests/Fixtures/dbus/fake-sensor-proxy.py, Debian's python3-dbus) on the
/// harness's private dbus-daemon: it owns net.hadess.SensorProxy and offers the compass interface.
final class FakeSensorProxy: Sendable {
    struct Failed: Error, CustomStringConvertible { var description: String }

    private let process: Process
    private let input: Pipe
    private final class Transcript: Sendable { let text = Mutex("") }
    private let said = Transcript()

    init(bus: String, heading: Double) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [TestServices.packageRoot.appendingPathComponent("Tests/Fixtures/dbus/fake-sensor-proxy.py").path,
                             bus, "\(heading)"]
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        let said = self.said
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            said.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        guard waitFor("ready", timeout: 10) else {
            process.terminate()
            throw Failed(description: "the fake iio-sensor-proxy did not take its name on \(bus)")
        }
    }

    /// Waits until the service has printed `word` (e.g. "claimed"), at most `timeout` seconds.
    func waitFor(_ word: String, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if said.text.withLock({ $0.contains(word) }) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    func send(_ command: String) { input.fileHandleForWriting.write(Data((command + "\n").utf8)) }

    /// Leaves the bus (the name goes away) and waits for the process to end.
    func stop() {
        guard process.isRunning else { return }
        send("quit")
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { process.terminate(); process.waitUntilExit() }
    }

    deinit { stop() }
}

/// The compass of iio-sensor-proxy over D-Bus, against a real dbus-daemon and our fake service (spec §2.1 device
/// heading; issue 32 "a facing direction when standing").
@Suite("Compass over D-Bus", .serialized)
struct CompassTests {
    static func bus() throws -> String {
        try TestServices.require()
        return try #require(TestServices.environment["SOUNDSCAPE_TEST_DBUS"], "with-test-services starts a private dbus-daemon")
    }

    /// The reader itself: the first heading after the claim, a change, a restart of the service (claimed again),
    /// and nothing once the service has gone.
    @Test func theReaderClaimsFollowsAndClaimsAgainAfterARestart() async throws {
        let bus = try Self.bus()
        var fake: FakeSensorProxy? = try FakeSensorProxy(bus: bus, heading: 90)
        let compass = SensorProxyCompass(configuration: .init(busAddress: bus))
        let task = Task { try await compass.run() }
        defer { task.cancel() }
        var readings = compass.readings.makeAsyncIterator()
        func next(_ wanted: Double) async throws {
            // Readings repeat while nothing changes; wait (at most 10 s) for the wanted one.
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                let reading = try #require(await readings.next())
                #expect(reading.kind == .compass)
                if abs(reading.degrees - wanted) < 1e-9 { return }
            }
            Issue.record("no compass reading of \(wanted)° within 10 s; status \(compass.status)")
        }
        try await next(90)
        #expect(fake?.waitFor("claimed", timeout: 1) == true)
        fake?.send("heading 180")
        try await next(180)
        fake?.stop()
        fake = try FakeSensorProxy(bus: bus, heading: 270)   // a restarted service: claimed again
        try await next(270)
        fake?.stop()
        fake = nil
        // Gone: the status says so and the readings stop (a reading at most a refresh late).
        let deadline = Date().addingTimeInterval(10)
        while compass.status != .noService && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(compass.status == .noService)
    }

    @Test func withoutTheServiceNothingIsRead() async throws {
        let bus = try Self.bus()
        let compass = SensorProxyCompass(configuration: .init(busAddress: bus))
        let task = Task { try await compass.run() }
        let deadline = Date().addingTimeInterval(10)
        while compass.status == .connecting && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(compass.status == .noService)
        task.cancel()
        var count = 0
        for await _ in compass.readings { count += 1 }
        #expect(count == 0)
    }

    /// Done-when of issue 32: in `run` at a fixed place with no --heading, the compass reports 90° and "what's ahead"
    /// answers as `say --heading 90` does; it follows the compass to 180°; when the service goes, the answer says
    /// it is measured from north.
    @Test func whatIsAheadFollowsTheCompassAndSaysWhenItFallsBack() throws {
        let bus = try Self.bus()
        let east = try LocationRunTests.sayAhead(heading: 90)
        let south = try LocationRunTests.sayAhead(heading: 180)
        let north = try LocationRunTests.sayAhead(heading: 0)
        #expect(east != south && east != north, "the test needs different answers east, south and north")
        let fake = try FakeSensorProxy(bus: bus, heading: 90)
        defer { fake.stop() }
        let run = try RunningAssistant(["run", "--db", Soundscape.helsinkiDatabase, "--quiet", "--no-voice",
                                        "--at", LocationRunTests.place, "--system-bus", bus])
        let eastAnswer = run.ask("what's ahead") { $0 == east }
        #expect(eastAnswer == east, "the compass reports 90°: run's answer should be say --heading 90's")
        fake.send("heading 180")
        let southAnswer = run.ask("what's ahead") { $0 == south }
        #expect(southAnswer == south, "the compass turned to 180°")
        fake.stop()
        let fallback = "No facing direction is known; directions are from north"
        let northAnswer = run.ask("what's ahead") { $0.first == fallback }
        #expect(northAnswer == [fallback] + north, "with the compass gone the answer is from north, and says so")
        #expect(run.quit() == 0)
    }

    /// `soundscape doctor` finds the compass on the bus (through gdbus, as on a real system bus).
    @Test func theDoctorFindsTheCompass() throws {
        let bus = try Self.bus()
        let fake = try FakeSensorProxy(bus: bus, heading: 90)
        defer { fake.stop() }
        let result = try Soundscape.run(["doctor", "--gpsd", try TestServices.gpsd(), "--db", Soundscape.helsinkiDatabase],
                                        environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus])
        let heading = result.stdout.split(separator: "\n").first { $0.contains("Heading") }
        #expect(heading?.hasPrefix("OK") == true && heading?.contains("compass (iio-sensor-proxy)") == true, "\(result.stdout)")
    }
}
