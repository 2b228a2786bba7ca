import Behaviors
import Geo
import Callouts
import Location
import Synchronization

/// The latest headings of the location stage, as the assistant's pipeline and 3-D audio use them. Written by the
/// location service's task, read when a fix or a command is handled; a short lock, never on the audio thread.
public final class HeadingRelay: Sendable {
    private let latest = Mutex<HeadingUpdate?>(nil)
    private let place = Mutex<Coordinate?>(nil)

    public init() {}

    /// Whether any heading source has reported (until then the pipeline takes headings from the fixes' course).
    public var isActive: Bool { latest.withLock { $0 != nil } }

    public var current: HeadingUpdate? { latest.withLock { $0 } }

    /// Where the user was at the last fix (the listener's place when only the heading changes).
    public var location: Coordinate? {
        get { place.withLock { $0 } }
        set { place.withLock { $0 = newValue } }
    }

    /// Stores an update; returns whether the pipeline's headings changed enough to tell it (a source appeared or
    /// went, or a direction moved by `threshold` degrees or more). Small head movements only turn the listener.
    public func store(_ update: HeadingUpdate, threshold: Double = 5) -> Bool {
        latest.withLock { previous in
            defer { previous = update }
            guard let previous else { return true }
            return Self.differs(previous.collection, update.collection, threshold)
                || Self.differs(previous.beacon, update.beacon, threshold)
                || Self.differs(previous.intersection, update.intersection, threshold)
        }
    }

    /// The pipeline's headings: callouts against the collection heading, "ahead of me" against the beacon heading
    /// (both use user → device → course there), intersections against the course only.
    public var pipelineHeadings: Headings? {
        current.map(Self.headings(from:))
    }

    /// Where the 3-D audio listener faces (presentation: head → course → device).
    public var listenerHeading: Double? { current?.presentation?.degrees }

    public static func headings(from update: HeadingUpdate) -> Headings {
        let kind: HeadingKind = update.collection?.source == .course ? .walking : .facing
        return Headings(collection: update.collection?.degrees, collectionKind: kind,
                        ahead: update.beacon?.degrees ?? update.collection?.degrees,
                        course: update.intersection?.degrees)
    }

    static func differs(_ a: ResolvedHeading?, _ b: ResolvedHeading?, _ threshold: Double) -> Bool {
        switch (a, b) {
        case (nil, nil): return false
        case let (a?, b?): return a.source != b.source || abs(Angle.signedDifference(a.degrees, b.degrees)) >= threshold
        default: return true
        }
    }
}
