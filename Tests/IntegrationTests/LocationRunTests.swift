import Foundation
import Location
import Synchronization
import Testing

/// `soundscape run` with the location stage's heading sources: a head tracker over OpenTrack UDP and the manual
/// heading ("I am facing east"). Each answer is checked against `say` with the same heading given directly.
@Suite("Headings in soundscape run", .serialized)
struct LocationRunTests {
    /// On Aleksanterinkatu between Mikonkatu and Kluuvikatu (see CommandLineTests).
    static let place = "60.16887,24.94400"

    static func sayAhead(heading: Int) throws -> [String] {
        let result = try Soundscape.run(["say", "what's ahead", "--at", place, "--heading", "\(heading)",
                                         "--db", Soundscape.helsinkiDatabase, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// A UDP port nobody uses now.
    static func freeUDPPort() throws -> UInt16 {
        let probe = try OpenTrackReceiver(host: "127.0.0.1", port: 0)
        return probe.port
    }

    /// Sends OpenTrack poses to 127.0.0.1:`port` at 50 Hz: yaw 0 for the first second (the user looks ahead, which
    /// aligns the tracker with the body heading), then `yaw` until `stop` is set.
    final class TrackerSender: Sendable {
        final class Flag: Sendable { let value = Mutex(false) }
        private let flag = Flag()

        init(port: UInt16, yaw: Double) {
            let flag = self.flag
            let thread = Thread {
                let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
                defer { close(fd) }
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = port.bigEndian
                inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
                let start = Date()
                while !flag.value.withLock({ $0 }) {
                    let pose = OpenTrackPose(yaw: Date().timeIntervalSince(start) < 1 ? 0 : yaw)
                    let bytes = pose.datagram
                    _ = bytes.withUnsafeBytes { raw in
                        withUnsafePointer(to: &address) {
                            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                                sendto(fd, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                            }
                        }
                    }
                    Thread.sleep(forTimeInterval: 0.02)
                }
            }
            thread.start()
        }

        func stop() { flag.value.withLock { $0 = true } }
    }

    @Test func turningTheHeadTurnsWhatIsAhead() throws {
        try TestServices.require()
        let east = try Self.sayAhead(heading: 90), north = try Self.sayAhead(heading: 0)
        #expect(Set(east) != Set(north), "the test needs different answers east and north")
        let port = try Self.freeUDPPort()
        let sender = TrackerSender(port: port, yaw: 90)
        defer { sender.stop() }
        // The body faces north (--heading 0); after a second the head turns 90° right, to the east.
        let result = try Soundscape.runTyped(["run", "--db", Soundscape.helsinkiDatabase, "--quiet", "--no-voice",
                                              "--at", Self.place, "--heading", "0", "--head-tracker", "\(port)"],
                                             lines: ["what's ahead", "quit"], pause: 2.5)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        for line in east { #expect(lines.contains(line), "\(line) missing from run's answer:\n\(result.stdout)") }
    }

    @Test func sayingWhichWayIFaceTurnsWhatIsAhead() throws {
        try TestServices.require()
        let east = try Self.sayAhead(heading: 90)
        let result = try Soundscape.runTyped(["run", "--db", Soundscape.helsinkiDatabase, "--quiet", "--no-voice",
                                              "--at", Self.place],
                                             lines: ["i am facing east", "what's ahead", "quit"], pause: 1.5)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.lowercased().contains("east") }, "no read-back of the heading:\n\(result.stdout)")
        for line in east { #expect(lines.contains(line), "\(line) missing from run's answer:\n\(result.stdout)") }
    }

    /// `listen --heading` matters when the command is answered: the spoken "what's ahead" is answered facing east.
    @Test func aRecordedCommandIsAnsweredFacingTheGivenHeading() throws {
        try TestServices.require()
        let east = try Self.sayAhead(heading: 90)
        let wav = FileManager.default.temporaryDirectory.appendingPathComponent("ahead-\(getpid()).wav").path
        defer { try? FileManager.default.removeItem(atPath: wav) }
        let espeak = Process()
        espeak.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        espeak.arguments = ["espeak-ng", "-w", wav, "what's ahead"]
        try espeak.run()
        espeak.waitUntilExit()
        #expect(espeak.terminationStatus == 0)
        let result = try Soundscape.run(["listen", "--file", wav, "--at", Self.place, "--heading", "90", "--answer", "--quiet",
                                         "--db", Soundscape.helsinkiDatabase])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("what's ahead\tahead_of_me") == true, "\(result.stdout)")
        #expect(Array(lines.dropFirst()) == east, "\(result.stdout)")
    }
}
