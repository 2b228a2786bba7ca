import Foundation
import Geo
import GRDB
@testable import Guidance
import MapTestSupport
import Testing

@Suite("Markers and routes in the user database")
struct MarkerStoreTests {
    static let here = Coordinate(latitude: 60.1699, longitude: 24.9410)

    @Test("create, rename, annotate, find, list nearby, delete")
    func crud() throws {
        let store = try UserStore(inMemory: ())
        let markers = store.markers
        let a = try markers.create(name: "Front door", at: Self.here)
        let b = try markers.create(name: "Bus stop", at: Self.here.destination(bearing: 90, distance: 300))
        _ = try markers.create(name: "Far away", at: Self.here.destination(bearing: 0, distance: 5000))
        _ = try markers.create(name: "beacon", at: Self.here, isTemporary: true)
        #expect(try markers.all().map(\.name) == ["Bus stop", "Far away", "Front door"])
        #expect(try markers.find(named: "front DOOR")?.id == a.id)
        #expect(try markers.find(named: "bus")?.id == b.id)
        let renamed = try markers.rename(a.id, to: "Home")
        #expect(renamed.name == "Home" && abs(renamed.createdAt.timeIntervalSince(a.createdAt)) < 0.001)
        #expect(try markers.annotate(a.id, "blue door, two steps").annotation == "blue door, two steps")
        let near = try markers.nearby(Self.here, radius: 1000)
        #expect(near.map(\.marker.name) == ["Home", "Bus stop"])
        #expect(abs(near[1].distance - 300) < 1)
        #expect(try markers.delete(b.id))
        #expect(try !markers.delete(b.id))
        #expect(throws: MarkerStoreError.self) { try markers.rename(b.id, to: "x") }
        #expect(throws: MarkerStoreError.emptyName) { try markers.create(name: "  ", at: Self.here) }
        #expect(try markers.deleteTemporary() == 1)
        #expect(try store.integrityCheck() == "ok")
    }

    @Test("routes keep waypoint order; deleting a marker removes it from routes")
    func routes() throws {
        let store = try UserStore(inMemory: ())
        let ids = try (0..<4).map { try store.markers.create(name: "W\($0)", at: Self.here.destination(bearing: 90, distance: Double($0) * 50)).id }
        let route = try store.routes.create(name: "Morning walk", waypointIDs: [ids[2], ids[0], ids[3]])
        #expect(route.waypoints.map(\.name) == ["W2", "W0", "W3"])
        try store.routes.append(ids[1], to: route.id)
        #expect(try store.routes.find(named: "morning walk")?.waypoints.map(\.name) == ["W2", "W0", "W3", "W1"])
        try store.markers.delete(ids[0])
        #expect(try store.routes.route(id: route.id)?.waypoints.map(\.name) == ["W2", "W3", "W1"])
        var progress = RouteGuidanceState(route: try store.routes.route(id: route.id)!)
        progress.index = 2
        progress.visited = [0, 1]
        try store.routes.saveProgress(progress)
        #expect(try store.routes.progress(of: route.id)?.index == 2)
        #expect(try store.routes.delete(route.id))
        #expect(try store.routes.all().isEmpty)
    }

    @Test("the database is WAL with synchronous FULL")
    func durabilitySettings() throws {
        let dir = try TestData.temporaryDirectory("guidance-wal")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try UserStore(path: dir.appendingPathComponent("user.sqlite").path)
        let (mode, sync) = try store.queue.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode")!, try Int.fetchOne(db, sql: "PRAGMA synchronous")!)
        }
        #expect(mode == "wal")
        #expect(sync == 2) // FULL
    }

    // MARK: kill -9

    static let stressEnvironment = "GUIDANCE_MARKER_STRESS_DB"

    /// The child half of the kill test: only runs when the parent starts this test binary with the
    /// environment variable set. Writes markers as fast as it can and acknowledges each committed one on
    /// stdout, until it is killed.
    @Test("marker writer (child process of the kill -9 test)",
          .enabled(if: ProcessInfo.processInfo.environment[MarkerStoreTests.stressEnvironment] != nil))
    func markerWriterChild() throws {
        let path = ProcessInfo.processInfo.environment[Self.stressEnvironment]!
        let store = try UserStore(path: path)
        var i = 0
        while true {
            let m = try store.markers.create(name: "Stress \(i)", at: Self.here.destination(bearing: Double(i % 360), distance: Double(i % 500)),
                                             annotation: String(repeating: "note ", count: i % 20))
            if i % 7 == 0 { try store.markers.rename(m.id, to: "Stress \(i) renamed") }
            FileHandle.standardOutput.write(Data("ACK \(m.id.uuidString) \(i)\n".utf8))
            i += 1
        }
    }

    @Test("markers survive a process killed with SIGKILL in the middle of writing")
    func survivesKill() throws {
        let dir = try TestData.temporaryDirectory("guidance-kill")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("user.sqlite").path
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")

        for round in 0..<3 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["--testing-library", "swift-testing", "--filter", "markerWriterChild"]
            var env = ProcessInfo.processInfo.environment
            env[Self.stressEnvironment] = path
            process.environment = env
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()

            var acknowledged: [UUID] = []
            var buffer = Data()
            let target = 150 + round * 100
            let deadline = Date().addingTimeInterval(60)
            while acknowledged.count < target && Date() < deadline {
                let chunk = pipe.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...nl)
                    if line.hasPrefix("ACK "), let id = UUID(uuidString: String(line.split(separator: " ")[1])) { acknowledged.append(id) }
                }
            }
            // Kill it mid-write: it never stops writing on its own.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
            try #require(acknowledged.count >= target, "the child acknowledged only \(acknowledged.count) markers")

            let store = try UserStore(path: path)
            #expect(try store.integrityCheck() == "ok")
            let present = Set(try store.markers.all().map(\.id))
            let missing = acknowledged.filter { !present.contains($0) }
            #expect(missing.isEmpty, "round \(round): \(missing.count) acknowledged markers lost")
        }
    }
}
