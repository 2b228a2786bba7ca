@testable import Behaviors
import Callouts
import CalloutsTestSupport
import Foundation
import Geo
import Location
import MapData
import Testing

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

enum TestPaths {
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
    static var dataDirectory: URL {
        if let env = ProcessInfo.processInfo.environment["SOUNDSCAPE_DATA"], !env.isEmpty { return URL(fileURLWithPath: env) }
        return packageRoot.appendingPathComponent(".data")
    }
    static var golden: URL { packageRoot.appendingPathComponent("Tests/Fixtures/golden") }
}

nonisolated(unsafe) private var helsinkiDirectory: String?

/// The bundled Helsinki extract, imported once per test run.
actor Helsinki {
    static let shared = Helsinki()
    private var result: Result<SpatialDataView, any Error>?

    func view() throws -> SpatialDataView {
        if let result { return try result.get() }
        let outcome = Result<SpatialDataView, any Error> {
            let pbf = TestPaths.dataDirectory.appendingPathComponent("osm/Helsinki.osm.pbf").path
            guard FileManager.default.fileExists(atPath: pbf) else {
                throw TestFailure("missing \(pbf): run scripts/setup to fetch the Helsinki extract")
            }
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("behaviors-helsinki-\(getpid())")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            helsinkiDirectory = dir.path
            atexit { if let d = helsinkiDirectory { try? FileManager.default.removeItem(atPath: d) } }
            let db = dir.appendingPathComponent("map.sqlite").path
            _ = try MapImporter.importPBF(at: pbf, into: db)
            return try SpatialDataView(path: db)
        }
        result = outcome
        return try outcome.get()
    }

    static func map() async throws -> SpatialDataView { try await shared.view() }
}

/// A pipeline on simulated time with a recording player.
struct Pipeline {
    let processor: EventProcessor
    let player: RecordingPlayer
    let clock: SimulatedClock
    static let start = Date(timeIntervalSince1970: 1_780_300_800)

    init(map: SpatialDataView?, language: String = "en", units: UnitSystem = .metric, holding: Bool = false,
         beacon: (any BeaconStateReader)? = nil, markers: (any MarkerReader)? = nil) {
        player = RecordingPlayer(holding: holding)
        clock = SimulatedClock(start: Self.start)
        processor = EventProcessor(map: map, phrasing: Phrasing(table: try! StringTable(language: language), units: units),
                                   player: player, clock: clock, beacon: beacon, markers: markers)
        processor.start()
    }

    /// A fix at `coordinate`, `seconds` after the start; walking along `course` when given.
    static func fix(_ coordinate: Coordinate, at seconds: Double = 0, course: Double? = nil, speed: Double? = nil,
                    accuracy: Double = 5) -> LocationFix {
        LocationFix(coordinate: coordinate, timestamp: start.addingTimeInterval(seconds), horizontalAccuracy: accuracy,
                    speed: speed ?? (course == nil ? nil : 1.4), course: course)
    }

    /// Moves the clock to the fix, posts it and waits until everything it caused has played.
    func move(to fix: LocationFix, motion: MotionState? = nil) async {
        clock.advance(to: fix.timestamp)
        processor.post(LocationUpdatedEvent(fix: fix, motion: motion))
        await processor.settle()
    }

    func send(_ event: any Event) async {
        processor.post(event)
        await processor.settle()
    }

    var texts: [String] { player.texts }
    /// Texts said since `count` items were recorded.
    func texts(after count: Int) -> [String] { player.items.dropFirst(count).map(\.text).filter { !$0.isEmpty } }
}

final class FixedBeacon: BeaconStateReader, @unchecked Sendable {
    private let lock = NSLock()
    private var state: BeaconState?
    init(_ state: BeaconState?) { self.state = state }
    func currentBeacon() -> BeaconState? { lock.withLock { state } }
    func set(_ s: BeaconState?) { lock.withLock { state = s } }
}

struct FixedMarkers: MarkerReader {
    var all: [MarkerInfo]
    func markers(near coordinate: Coordinate, radius: Double) -> [MarkerInfo] {
        all.filter { $0.coordinate.distance(to: coordinate) <= radius }
    }
}
