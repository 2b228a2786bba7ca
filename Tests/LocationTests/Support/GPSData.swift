import Clocks
import Foundation
import Geo
import Location
import Synchronization

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

/// A test clock's instants, moved by hand: the motion classifier and the heading resolver are given times, not a
/// clock, so their tests need no sleeping and stay synchronous.
final class Timeline: @unchecked Sendable {
    private(set) var now = TestClock<Duration>.Instant()
    func advance(by duration: Duration) { now = now.advanced(by: duration) }
}
