import Callouts
import Foundation
import Geo
import Location

/// The headings the pipeline uses, one per purpose (spec §2.2), degrees true.
public struct Headings: Sendable, Equatable {
    /// What callouts describe directions against (course → head → device).
    public var collection: Double?
    /// Where the collection heading came from.
    public var collectionKind: HeadingKind
    /// "Ahead of Me" (head → device → course).
    public var ahead: Double?
    /// GPS course only, for intersection detection.
    public var course: Double?

    public init(collection: Double?, collectionKind: HeadingKind = .facing, ahead: Double? = nil, course: Double? = nil) {
        self.collection = collection
        self.collectionKind = collectionKind
        self.ahead = ahead ?? collection
        self.course = course
    }

    /// The headings a fix gives alone: its course, while moving at walking pace or faster (≥ 0.4 m/s).
    public static func fromCourse(of fix: LocationFix, motion: MotionState) -> Headings {
        guard let course = fix.course, (fix.speed ?? 0) >= 0.4, motion != .stationary else {
            return Headings(collection: nil)
        }
        return Headings(collection: course, collectionKind: motion == .inVehicle ? .traveling : .walking,
                        ahead: course, course: course)
    }
}

/// What the pipeline knows about the user now.
public struct UserState: Sendable {
    public var fix: LocationFix?
    public var headings = Headings(collection: nil) {
        didSet { if let course = headings.course { lastWalkingDirection = course } }
    }
    public var motion: MotionState = .unknown
    /// The last GPS course while moving: what answers measure directions from when no heading is known now.
    public private(set) var lastWalkingDirection: Double?

    public init() {}

    public var location: Coordinate? { fix?.coordinate }
    public var accuracy: Double? { fix?.horizontalAccuracy }
    public var inVehicle: Bool { motion == .inVehicle }
    public var speed: Double { fix?.speed ?? 0 }

    public var listener: ListenerState {
        ListenerState(location: location, heading: headings.collection, headingKind: headings.collectionKind,
                      accuracy: accuracy, inVehicle: inVehicle)
    }
}
