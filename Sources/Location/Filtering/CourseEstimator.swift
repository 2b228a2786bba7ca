import Foundation
import Geo

/// Fills in speed and course for fixes that lack them (GPX files, receivers that give only positions),
/// from the fixes before. Pure.
///
/// Course is the bearing from the most recent earlier fix that lies at least `minimumBaseline` away (within
/// `window`), so that a 1 Hz walk's metre-scale noise does not swing it; speed is the distance walked over the
/// same stretch divided by its time. Values the receiver gave are kept.
public struct CourseEstimator: Sendable {
    public var minimumBaseline = 3.0
    public var window: TimeInterval = 5
    private var history: [LocationFix] = []

    public init(minimumBaseline: Double = 3.0, window: TimeInterval = 5) {
        self.minimumBaseline = minimumBaseline
        self.window = window
    }

    public mutating func complete(_ fix: LocationFix) -> LocationFix {
        history.removeAll { fix.timestamp.timeIntervalSince($0.timestamp) > window || $0.timestamp >= fix.timestamp }
        var out = fix
        if out.speed == nil || out.course == nil {
            // Walk back until the baseline is long enough.
            var path = 0.0
            var next = fix.coordinate
            var anchor: LocationFix?
            var pathToAnchor = 0.0
            for earlier in history.reversed() {
                path += earlier.coordinate.distance(to: next)
                next = earlier.coordinate
                if earlier.coordinate.distance(to: fix.coordinate) >= minimumBaseline { anchor = earlier; pathToAnchor = path; break }
            }
            if let anchor {
                let dt = fix.timestamp.timeIntervalSince(anchor.timestamp)
                if out.course == nil { out.course = anchor.coordinate.bearing(to: fix.coordinate) }
                if out.speed == nil, dt > 0 { out.speed = pathToAnchor / dt }
            } else if out.speed == nil, let oldest = history.first {
                // Moved less than the baseline in the whole window: as good as standing still.
                let dt = fix.timestamp.timeIntervalSince(oldest.timestamp)
                if dt >= 1 { out.speed = oldest.coordinate.distance(to: fix.coordinate) / dt }
            }
        }
        history.append(fix)
        return out
    }

    public mutating func reset() { history.removeAll() }
}
