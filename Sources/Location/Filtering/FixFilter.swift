import Foundation
import Geo

/// Why a fix was dropped.
public enum FixRejection: String, Error, Sendable, CaseIterable, CustomStringConvertible {
    /// Latitude or longitude NaN, infinite or out of range.
    case invalidCoordinate
    /// Horizontal accuracy negative or not finite (Core Location's "invalid" convention, spec §2.4).
    case invalidAccuracy
    /// Not later than the last accepted fix: a repeat or a reordering.
    case outOfOrder
    /// Reaching it from the last accepted fix needs an impossible speed.
    case impossibleJump

    public var description: String { rawValue }
}

/// Drops fixes that cannot be right, keeps the rest unchanged (apart from cleaning non-finite speed/course).
///
/// A jump is impossible when `(distance − accuracy of both fixes) / time` exceeds `maximumSpeed` (90 m/s, a fast
/// train) — or `maximumPedestrianSpeed` (30 m/s) while the user is known to be on foot or standing. If the receiver
/// really did move (a cold start's first fixes were wrong), the new place keeps being reported: after
/// `reanchorAfter` rejected fixes that agree with one another, the filter accepts the new place.
///
/// Time is treated the same way. A fix not later than the last one is a repeat or a reordering and is dropped; but
/// when fixes keep coming from before the last one, in order among themselves, the source's clock has changed (a
/// receiver swapped or restarted, a recorded walk replayed from its start, the first dated fixes after undated ones
/// that had to be stamped with our clock), and after `reanchorAfter` of them the filter goes on from the newest.
/// Without that, one fix stamped days ahead would make every later fix "out of order" for good.
public struct FixFilter: Sendable {
    public struct Configuration: Sendable {
        public var maximumSpeed = 90.0
        public var maximumPedestrianSpeed = 30.0
        public var reanchorAfter = 3
        public init() {}
    }

    public let configuration: Configuration
    /// The last fix accepted.
    public private(set) var last: LocationFix?
    private var candidates: [LocationFix] = []

    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// Checks one fix. Returns the (cleaned) fix to use, or why it was dropped.
    public mutating func admit(_ fix: LocationFix, motion: MotionState = .unknown) -> Result<LocationFix, FixRejection> {
        guard fix.coordinate.isValid else { return .failure(.invalidCoordinate) }
        if let a = fix.horizontalAccuracy, !(a.isFinite && a >= 0) { return .failure(.invalidAccuracy) }
        var clean = fix
        if let s = clean.speed, !(s.isFinite && s >= 0) { clean.speed = nil }
        if let c = clean.course { clean.course = c.isFinite ? Angle.normalized(c) : nil }
        if let h = clean.altitude, !h.isFinite { clean.altitude = nil }

        guard let last else { return accept(clean) }
        let limit = motion == .walking || motion == .stationary ? configuration.maximumPedestrianSpeed : configuration.maximumSpeed
        let why: FixRejection
        if clean.timestamp <= last.timestamp {
            why = .outOfOrder
        } else if Self.impliedSpeed(from: last, to: clean) <= limit {
            return accept(clean)
        } else {
            why = .impossibleJump
        }

        // Rejected; but if the rejected fixes agree with one another (in time order, at a possible speed), the
        // receiver has really moved, or its clock has really changed.
        if let previous = candidates.last, clean.timestamp > previous.timestamp, Self.impliedSpeed(from: previous, to: clean) <= limit {
            candidates.append(clean)
        } else {
            candidates = [clean]
        }
        if candidates.count >= configuration.reanchorAfter { return accept(clean) }
        return .failure(why)
    }

    /// Forgets the last fix (for example when the source changes).
    public mutating func reset() {
        last = nil
        candidates = []
    }

    /// Speed needed to get from `a` to `b`, after allowing for both fixes' accuracy radii.
    public static func impliedSpeed(from a: LocationFix, to b: LocationFix) -> Double {
        let dt = b.timestamp.timeIntervalSince(a.timestamp)
        let slack = (a.horizontalAccuracy ?? 0) + (b.horizontalAccuracy ?? 0)
        let distance = max(0, a.coordinate.distance(to: b.coordinate) - slack)
        guard dt > 0 else { return distance > 0 ? .infinity : 0 }
        return distance / dt
    }

    private mutating func accept(_ fix: LocationFix) -> Result<LocationFix, FixRejection> {
        last = fix
        candidates = []
        return .success(fix)
    }
}
