import Foundation
import Geo
import Location
import Synchronization

/// A clock that moves only when a test says so. `sleep` suspends until `advance` passes the deadline.
final class ManualClock: Clock, @unchecked Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [(deadline: Instant, continuation: CheckedContinuation<Void, any Error>)] = []
    }
    private let state = Mutex(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            let ready = state.withLock { s -> Bool in
                if s.now >= deadline { return true }
                s.sleepers.append((deadline, c))
                return false
            }
            if ready { c.resume() }
        }
    }

    /// Moves time forward and wakes the sleepers whose deadline has passed.
    func advance(by duration: Duration) {
        let due = state.withLock { s -> [CheckedContinuation<Void, any Error>] in
            s.now = s.now.advanced(by: duration)
            let now = s.now
            let due = s.sleepers.filter { $0.deadline <= now }.map(\.continuation)
            s.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for c in due { c.resume() }
    }
}

/// Third-party data fetched by scripts/setup (tracklib and gpxpy GPX files).
enum GPSData {
    static var root: URL {
        if let env = ProcessInfo.processInfo.environment["SOUNDSCAPE_DATA"] {
            return URL(fileURLWithPath: env).appendingPathComponent("gps")
        }
        return URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".data/gps")
    }

    struct Missing: Error, CustomStringConvertible {
        var path: String
        var description: String { "\(path) is missing: run scripts/setup to fetch the GPS test data" }
    }

    static func path(_ relative: String) throws -> String {
        let url = root.appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: url.path) else { throw Missing(path: url.path) }
        return url.path
    }

    /// Parsed once per test process: the big files cost seconds of CPU in debug builds, and the test process also
    /// runs timing-sensitive integration tests.
    private static let cache = Mutex<[String: [TrackPoint]]>([:])

    static func walk(_ relative: String) throws -> [TrackPoint] {
        if let cached = cache.withLock({ $0[relative] }) { return cached }
        let points = try GPXReader.read(path(relative))
        cache.withLock { $0[relative] = points }
        return points
    }

    /// The walk as fixes (1 s apart when the file has no times), accuracy as given (nil when unknown).
    static func fixes(_ relative: String) throws -> [LocationFix] {
        let points = try walk(relative)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        return points.enumerated().map { i, p in
            LocationFix(coordinate: p.coordinate, timestamp: p.time ?? start.addingTimeInterval(Double(i)), mode: .threeD,
                        horizontalAccuracy: p.horizontalAccuracy, speed: p.speed, course: p.course)
        }
    }
}
