import Foundation
import Location
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct OpenTrackReceiverTests {
    /// Sends one UDP datagram to 127.0.0.1:port from a fresh socket, as a tracker app would.
    func send(_ bytes: [UInt8], to port: UInt16) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let sent = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, buffer.baseAddress, buffer.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        #expect(sent == bytes.count)
    }

    @Test func thePoseIsSixLittleEndianDoubles() throws {
        // yaw 90.5 = 0x4056A00000000000, laid out least significant byte first at offset 24.
        let pose = OpenTrackPose(x: 1, y: -2, z: 3.25, yaw: 90.5, pitch: -10, roll: 5)
        let bytes = pose.datagram
        #expect(bytes.count == 48)
        #expect(Array(bytes[24..<32]) == [0, 0, 0, 0, 0, 0xA0, 0x56, 0x40])
        #expect(OpenTrackPose(datagram: bytes) == pose)
        #expect(OpenTrackPose(datagram: bytes.dropLast()) == nil)
        var nan = bytes
        nan.replaceSubrange(24..<32, with: Double.nan.bitPattern.littleEndianBytes)
        #expect(OpenTrackPose(datagram: nan) == nil)
    }

    @Test func realDatagramsOnLoopbackBecomeHeadTrackerReadings() async throws {
        let receiver = try OpenTrackReceiver(host: "127.0.0.1", port: 0)
        #expect(receiver.port != 0)
        let task = Task { try await receiver.run() }
        let watchdog = Task { try await Task.sleep(for: .seconds(10)); task.cancel() }   // never hang: end the stream
        defer { watchdog.cancel() }
        var readings = receiver.readings.makeAsyncIterator()

        try send(OpenTrackPose(x: 0.5, y: 1, z: -3, yaw: -35.25, pitch: 4, roll: -2).datagram, to: receiver.port)
        let first = try #require(await readings.next())
        #expect(first.kind == .headTracker)
        #expect(first.degrees == -35.25)
        #expect(receiver.latestPose == OpenTrackPose(x: 0.5, y: 1, z: -3, yaw: -35.25, pitch: 4, roll: -2))

        // Wrong sizes and garbage are counted and dropped; the next good pose still arrives.
        try send(Array("hello".utf8), to: receiver.port)
        try send([UInt8](repeating: 0, count: 47), to: receiver.port)
        try send([UInt8](repeating: 0, count: 56), to: receiver.port)
        try send(OpenTrackPose(yaw: 120).datagram, to: receiver.port)
        let second = try #require(await readings.next())
        #expect(second.degrees == 120)
        #expect(receiver.packetsMalformed == 3)
        #expect(receiver.packetsReceived == 2)

        // Cancelling stops the thread and finishes the stream promptly.
        let started = ContinuousClock.now
        task.cancel()
        try await task.value
        #expect(await readings.next() == nil)
        #expect(ContinuousClock.now - started < .seconds(1))
    }

    @Test func aBusyPortIsAClearError() throws {
        let first = try OpenTrackReceiver(host: "127.0.0.1", port: 0)
        #expect(throws: OpenTrackError.self) { _ = try OpenTrackReceiver(host: "127.0.0.1", port: first.port) }
        do {
            _ = try OpenTrackReceiver(host: "127.0.0.1", port: first.port)
        } catch {
            #expect("\(error)".contains("127.0.0.1:\(first.port)"))
        }
    }

    @Test func headTrackingThroughTheManagerReachesTheSnapshot() async throws {
        let receiver = try OpenTrackReceiver(host: "127.0.0.1", port: 0)
        let manager = GeolocationManager(locationProviders: [FixedLocationProvider(coordinate: .init(latitude: 60.17, longitude: 24.94))],
                                         headingProviders: [receiver])
        await manager.setFixedHeading(90)             // `--heading 90`: the body faces east
        let task = Task { try await manager.run() }
        defer { task.cancel() }
        let watchdog = Task { try await Task.sleep(for: .seconds(10)); task.cancel() }
        defer { watchdog.cancel() }
        var headings = await manager.headings().makeAsyncIterator()
        try send(OpenTrackPose(yaw: 0).datagram, to: receiver.port)    // aligned: head east
        try send(OpenTrackPose(yaw: -90).datagram, to: receiver.port)  // head turned left: north
        let deadline = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < deadline, let update = await headings.next() {
            if update.presentation?.source == .headTracker, update.presentation?.degrees == 0 { break }
        }
        #expect(await manager.currentHeadings.presentation?.degrees == 0)
        #expect(await manager.currentHeadings.beacon?.degrees == 0)
        #expect(await manager.heading(for: .collection) == ResolvedHeading(degrees: 0, source: .headTracker))
    }
}

extension UInt64 {
    var littleEndianBytes: [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: self >> (8 * UInt64($0))) } }
}
