import Foundation
import Geo

/// Chooses the heading each consumer uses, from every source's latest value, their lifetimes and the priority
/// orders of spec §2.2. Pure: it holds values and times, and every question takes the time as an argument, so a
/// test can drive it with any clock.
///
/// **Mapping onto the spec's sources.** *course* is GPS course; *user* is the head tracker; *device* is, first
/// found wins: the manual heading ("I am facing north"), the `--heading` fixed heading, the receiver's own
/// heading (gpsd ATT) and the compass. The manual heading sits in the device slot because it describes the body,
/// as a phone compass does, not the head and not the direction of travel; it leads that slot because the user
/// said it recently and on purpose, while a compass may sit in a pocket. It expires after
/// `manualLifetime` (5 min), or as soon as the course shows that the user walks off in another direction
/// (`manualTurnSamples` accepted courses in a row more than `manualTurnAngle` away from it).
///
/// **Course.** Accepted only while motion is walking or in vehicle *and* speed ≥ `minimumCourseSpeed`
/// (0.4 m/s); it expires `courseLifetime` (3 s) after the last accepted course (spec §2.1).
///
/// **Head tracker.** OpenTrack gives yaw relative to the tracker's own zero, a direction fixed in the world
/// (a webcam's axis, or where an IMU app started) but unknown to us. We keep `headTrackerReference`, the world
/// direction of that zero, so that head heading = reference + yaw. The reference is set
/// * when the first tracker reading comes and a body heading exists (course, then the device sources): the user
///   is assumed to look along the body at that moment, so reference = body − yaw;
/// * again whenever the user sets a manual heading or a fixed heading, or asks to recentre (``recenterHeadTracker(at:)``);
/// * and it is nudged toward course − yaw (gain `headTrackerDriftGain` per accepted course) while the head points
///   within `headTrackerDriftWindow` of the course, which removes slow drift as the user walks looking ahead.
/// Without a reference the tracker gives no heading.
public struct HeadingResolver<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    public struct Configuration: Sendable {
        public var courseLifetime: Duration = .seconds(3)
        public var minimumCourseSpeed = 0.4
        public var headTrackerLifetime: Duration = .seconds(2)
        public var receiverLifetime: Duration = .seconds(3)
        public var compassLifetime: Duration = .seconds(2)
        public var manualLifetime: Duration = .seconds(300)
        public var manualTurnAngle = 45.0
        public var manualTurnSamples = 2
        public var headTrackerDriftGain = 0.1
        public var headTrackerDriftWindow = 30.0
        /// Set when a tracker reports positive yaw for a turn to the left.
        public var invertHeadTrackerYaw = false
        public init() {}
    }

    struct Sample: Sendable {
        var degrees: Double
        var at: Instant
    }

    public let configuration: Configuration
    private var course: Sample?
    private var receiver: Sample?
    private var compass: Sample?
    private var manual: Sample?
    private var fixed: Double?
    private var trackerYaw: Sample?
    /// World direction of the head tracker's zero yaw, once known.
    public private(set) var headTrackerReference: Double?
    private var manualTurnCount = 0

    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    // MARK: - Input

    /// Offers a GPS course. Returns whether it was accepted (moving fast enough, in motion, finite).
    @discardableResult
    public mutating func updateCourse(_ degrees: Double, speed: Double?, motion: MotionState, at now: Instant) -> Bool {
        guard degrees.isFinite, let speed, speed.isFinite, speed >= configuration.minimumCourseSpeed, motion.isInMotion else {
            return false
        }
        let value = Angle.normalized(degrees)
        course = Sample(degrees: value, at: now)
        if let m = manual, isFresh(m, configuration.manualLifetime, now) {
            if abs(Angle.signedDifference(value, m.degrees)) > configuration.manualTurnAngle {
                manualTurnCount += 1
                if manualTurnCount >= configuration.manualTurnSamples { manual = nil; manualTurnCount = 0 }
            } else {
                manualTurnCount = 0
            }
        }
        if let yaw = freshYaw(now), let reference = headTrackerReference {
            let target = Angle.normalized(value - yaw)
            let error = Angle.signedDifference(target, reference)
            if abs(Angle.signedDifference(Angle.normalized(reference + yaw), value)) <= configuration.headTrackerDriftWindow {
                headTrackerReference = Angle.normalized(reference + configuration.headTrackerDriftGain * error)
            }
        }
        return true
    }

    /// Takes a reading from a heading provider (head tracker yaw, receiver heading or compass).
    public mutating func update(_ reading: HeadingReading, at now: Instant) {
        guard reading.degrees.isFinite else { return }
        switch reading.kind {
        case .headTracker:
            let yaw = configuration.invertHeadTrackerYaw ? -reading.degrees : reading.degrees
            trackerYaw = Sample(degrees: yaw, at: now)
            if headTrackerReference == nil, let body = bodyHeading(at: now) {
                headTrackerReference = Angle.normalized(body.degrees - yaw)
            }
        case .receiver: receiver = Sample(degrees: Angle.normalized(reading.degrees), at: now)
        case .compass: compass = Sample(degrees: Angle.normalized(reading.degrees), at: now)
        case .manual: setManual(reading.degrees, at: now)
        case .fixed: setFixed(reading.degrees, at: now)
        case .course: break   // course comes with speed and motion: use updateCourse
        }
    }

    /// "I am facing north": a body heading that lasts `manualLifetime` or until the course shows a turn.
    public mutating func setManual(_ degrees: Double, at now: Instant) {
        guard degrees.isFinite else { return }
        manual = Sample(degrees: Angle.normalized(degrees), at: now)
        manualTurnCount = 0
        if let yaw = freshYaw(now) { headTrackerReference = Angle.normalized(degrees - yaw) }
    }

    public mutating func clearManual() {
        manual = nil
        manualTurnCount = 0
    }

    /// `--heading DEG`: a body heading that never expires (nil removes it).
    public mutating func setFixed(_ degrees: Double?, at now: Instant) {
        fixed = degrees.flatMap { $0.isFinite ? Angle.normalized($0) : nil }
        if let f = fixed, let yaw = freshYaw(now) { headTrackerReference = Angle.normalized(f - yaw) }
    }

    /// The user looks straight ahead along the body now: aligns the head tracker with the body heading.
    /// Returns false when there is no fresh tracker reading or no body heading.
    @discardableResult
    public mutating func recenterHeadTracker(at now: Instant) -> Bool {
        guard let yaw = freshYaw(now), let body = bodyHeading(at: now) else { return false }
        headTrackerReference = Angle.normalized(body.degrees - yaw)
        return true
    }

    // MARK: - Output

    /// The heading a consumer uses now, or nil when none of its sources is available.
    public func heading(for consumer: HeadingConsumer, at now: Instant) -> ResolvedHeading? {
        for source in consumer.order {
            if let h = heading(from: source, at: now) { return h }
        }
        return nil
    }

    /// The current value of one kind, or nil when absent or expired.
    public func degrees(from kind: HeadingSourceKind, at now: Instant) -> Double? {
        let c = configuration
        switch kind {
        case .course: return course.flatMap { isFresh($0, c.courseLifetime, now) ? $0.degrees : nil }
        case .headTracker:
            guard let yaw = freshYaw(now), let reference = headTrackerReference else { return nil }
            return Angle.normalized(reference + yaw)
        case .manual: return manual.flatMap { isFresh($0, c.manualLifetime, now) ? $0.degrees : nil }
        case .fixed: return fixed
        case .receiver: return receiver.flatMap { isFresh($0, c.receiverLifetime, now) ? $0.degrees : nil }
        case .compass: return compass.flatMap { isFresh($0, c.compassLifetime, now) ? $0.degrees : nil }
        }
    }

    /// The first available kind standing for one of the spec's sources (device: manual → fixed → receiver → compass).
    public func heading(from source: SpecHeadingSource, at now: Instant) -> ResolvedHeading? {
        for kind in Self.kinds(of: source) {
            if let d = degrees(from: kind, at: now) { return ResolvedHeading(degrees: d, source: kind) }
        }
        return nil
    }

    static func kinds(of source: SpecHeadingSource) -> [HeadingSourceKind] {
        switch source {
        case .course: return [.course]
        case .user: return [.headTracker]
        case .device: return [.manual, .fixed, .receiver, .compass]
        }
    }

    /// Which way the body faces: course, else a device source. Used to align the head tracker.
    public func bodyHeading(at now: Instant) -> ResolvedHeading? {
        heading(from: SpecHeadingSource.course, at: now) ?? heading(from: SpecHeadingSource.device, at: now)
    }

    private func freshYaw(_ now: Instant) -> Double? {
        trackerYaw.flatMap { isFresh($0, configuration.headTrackerLifetime, now) ? $0.degrees : nil }
    }

    private func isFresh(_ sample: Sample, _ lifetime: Duration, _ now: Instant) -> Bool {
        let age = sample.at.duration(to: now)
        return age < lifetime && age >= .zero
    }
}
