@testable import Behaviors
import Callouts
import CalloutsTestSupport
import Foundation
import Geo
import Location
import MapData
import MapTestSupport
import Testing

/// The bundled Helsinki extract (MapTestSupport's shared import).
enum Helsinki {
    static func map() async throws -> SpatialDataView { try SpatialDataView(path: try await HelsinkiImport.get().databasePath) }
}

/// A pipeline on simulated time with a recording player.
struct Pipeline {
    let processor: EventProcessor
    let player: RecordingPlayer
    /// Replayed-walk time, as `simulate` runs: sleeps do not wait, and each fix moves it to the fix's time.
    let clock: SimulatedClock
    let pipelineClock: PipelineClock
    static let start = Date(timeIntervalSince1970: 1_780_300_800)

    init(map: SpatialDataView?, language: String = "en", units: UnitSystem = .metric, holding: Bool = false,
         beacon: (any BeaconStateReader)? = nil, markers: (any MarkerReader)? = nil) {
        player = RecordingPlayer(holding: holding)
        clock = SimulatedClock()
        pipelineClock = PipelineClock(clock, start: Self.start)
        processor = EventProcessor(map: map, phrasing: Phrasing(table: try! StringTable(language: language), units: units),
                                   player: player, clock: pipelineClock, beacon: beacon, markers: markers)
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
        clock.advance(by: .seconds(fix.timestamp.timeIntervalSince(pipelineClock.now)))
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
