import Foundation
import Geo

/// Replays a recorded walk as location fixes, in real time divided by `speed`, on any clock.
///
/// Points without times are spaced one second apart. Speed and course missing from the file are derived
/// from consecutive points, so a replay drives the same course-based heading as a real receiver would.
public struct TrackReplay<C: Clock>: Sendable where C.Duration == Duration {
    public let points: [TrackPoint]
    public let speed: Double
    public let clock: C

    public init(points: [TrackPoint], speed: Double = 1, clock: C) {
        self.points = points
        self.speed = max(speed, 0.01)
        self.clock = clock
    }

    /// The fixes of the walk with the delay before each (already divided by the speed factor).
    public func schedule(startingAt start: Date = Date()) -> [(delay: Duration, fix: LocationFix)] {
        var out: [(Duration, LocationFix)] = []
        var previous: TrackPoint?
        var elapsed = 0.0
        for point in points {
            var gap = 1.0
            if let previous, let t0 = previous.time, let t1 = point.time { gap = max(0, t1.timeIntervalSince(t0)) }
            let delay = previous == nil ? 0 : gap / speed
            elapsed += previous == nil ? 0 : gap
            var derivedSpeed = point.speed
            var derivedCourse = point.course
            if let previous, gap > 0 {
                let d = previous.coordinate.distance(to: point.coordinate)
                if derivedSpeed == nil { derivedSpeed = d / gap }
                if derivedCourse == nil && d > 0.5 { derivedCourse = previous.coordinate.bearing(to: point.coordinate) }
            }
            let fix = LocationFix(coordinate: point.coordinate, timestamp: start.addingTimeInterval(elapsed), mode: .threeD,
                                  horizontalAccuracy: point.horizontalAccuracy ?? 5, speed: derivedSpeed, course: derivedCourse)
            out.append((.seconds(delay), fix))
            previous = point
        }
        return out
    }

    /// Fixes as they come due on the clock. The stream ends after the last point (or loops when `loop` is set).
    public func fixes(loop: Bool = false) -> AsyncStream<LocationFix> {
        let plan = schedule()
        let clock = self.clock
        let speed = self.speed
        // Each lap is stamped later than the one before (by the lap's length plus a second), so fixes stay in time order.
        let lap = (plan.last?.fix.timestamp.timeIntervalSince(plan.first?.fix.timestamp ?? Date()) ?? 0) + 1
        return AsyncStream { continuation in
            let task = Task {
                var laps = 0.0
                repeat {
                    for (index, (delay, fix)) in plan.enumerated() {
                        let wait = index == 0 && laps > 0 ? Duration.seconds(1 / speed) : delay
                        if wait > .zero { try? await clock.sleep(for: wait) }
                        if Task.isCancelled { break }
                        var stamped = fix
                        stamped.timestamp = fix.timestamp.addingTimeInterval(laps * lap)
                        continuation.yield(stamped)
                    }
                    laps += 1
                } while loop && !Task.isCancelled
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
