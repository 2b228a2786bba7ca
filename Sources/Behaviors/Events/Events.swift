import Callouts
import Foundation
import Geo
import Location

// MARK: state changes

/// A new position (and, when known, headings and how the user moves). Broadcast to every generator.
public struct LocationUpdatedEvent: StateChangedEvent {
    public var fix: LocationFix
    /// Headings from the heading sources; nil lets the pipeline take the GPS course while walking.
    public var headings: Headings?
    /// How the user moves, as the location stage classified it; nil: not known (the last state holds).
    public var motion: MotionState?
    /// Street Preview's virtual walker, which jumps from place to place: the generators' "5 s since the last
    /// update" waits do not apply, and places are called out from 10 m farther (spec §3.2).
    public var isPreview: Bool
    public var distribution: EventDistribution { .broadcast }

    public init(fix: LocationFix, headings: Headings? = nil, motion: MotionState? = nil, isPreview: Bool = false) {
        self.fix = fix
        self.headings = headings
        self.motion = motion
        self.isPreview = isPreview
    }
}

/// The user's headings changed without a new position (a head tracker turned, "I am facing north" was said).
/// Updates what the pipeline knows and where the listener faces; no generator is asked to speak.
public struct HeadingsChangedEvent: StateChangedEvent {
    public var headings: Headings
    public init(_ headings: Headings) { self.headings = headings }
}

/// The GPS signal went away or came back.
public struct GPSStatusChangedEvent: StateChangedEvent {
    public enum Status: Sendable, Equatable { case lost, restored }
    public var status: Status
    public init(_ status: Status) { self.status = status }
}

/// Play an earcon in turn (app launch, offline…).
public struct GlyphEvent: StateChangedEvent {
    public var glyph: Glyph
    public init(_ glyph: Glyph) { self.glyph = glyph }
}

/// The beacon was set, moved, muted or removed (posted by the Guidance stage); the beacon generator gives one
/// distance update at once.
public struct BeaconChangedEvent: StateChangedEvent {
    /// The command that set the beacon has already read its distance back ("Beacon set on X, 240 meters"),
    /// so the immediate distance update is not spoken again; the next one comes after the usual 50 m and 5 s.
    public var distanceAlreadySpoken: Bool
    public init(distanceAlreadySpoken: Bool = false) { self.distanceAlreadySpoken = distanceAlreadySpoken }
}

/// The user entered (or left) the beacon's arrival geofence (posted by the Guidance stage, spec §4.2).
public struct BeaconGeofenceEvent: StateChangedEvent {
    public var didEnter: Bool
    /// Whether entering muted the beacon's sound.
    public var mutedBeacon: Bool
    public init(didEnter: Bool, mutedBeacon: Bool) {
        self.didEnter = didEnter
        self.mutedBeacon = mutedBeacon
    }
}

/// Automatic callouts about these subjects were skipped or cut off before they were heard, so they may be
/// announced again.
public struct CalloutsNotHeardEvent: StateChangedEvent {
    public var subjects: [String]
    public init(subjects: [String]) { self.subjects = subjects }
}

// MARK: user-initiated

/// The exploration commands (spec §3.5).
public enum ExplorationMode: String, Sendable, CaseIterable {
    case locate = "where_am_i"
    case aroundMe = "around_me"
    case aheadOfMe = "ahead_of_me"
    case nearbyMarkers = "nearby_markers"
}

public struct ExplorationEvent: UserInitiatedEvent {
    public var mode: ExplorationMode
    /// A button press (spec §3.5): pressing the same mode again while its answer plays stops it. Typed and spoken
    /// commands leave this off: asking again answers again (spec §16 maps "press the same button again" to
    /// "stop"), so a question asked twice is never swallowed.
    public var stopsItsOwnAnswer: Bool
    /// Said before the answer ("Preview ended. Back at your real position:").
    public var lead: String?
    public init(_ mode: ExplorationMode, stopsItsOwnAnswer: Bool = false, lead: String? = nil) {
        self.mode = mode
        self.stopsItsOwnAnswer = stopsItsOwnAnswer
        self.lead = lead
    }
}

/// Say the newest callout of the history again, from here; `earlier`: the one before the last one repeated
/// (asked again, one further back each time).
public struct RepeatCalloutEvent: UserInitiatedEvent {
    public var earlier: Bool
    public init(earlier: Bool = false) { self.earlier = earlier }
}

/// Say the last `count` callouts of the history again, newest first.
public struct ListCalloutHistoryEvent: UserInitiatedEvent {
    public var count: Int
    public init(count: Int = 5) { self.count = count }
}

/// Read the commands available now.
public struct HelpEvent: UserInitiatedEvent {
    public init() {}
}

/// Switch automatic callouts on or off (`enabled` nil toggles).
public struct ToggleAutoCalloutsEvent: UserInitiatedEvent {
    public var enabled: Bool?
    public var playSound: Bool
    public init(enabled: Bool? = nil, playSound: Bool = true) {
        self.enabled = enabled
        self.playSound = playSound
    }
}

/// "Where is the beacon": the beacon's distance now.
public struct BeaconCalloutEvent: UserInitiatedEvent {
    public init() {}
}

/// "GPS accuracy".
public struct GPSAccuracyEvent: UserInitiatedEvent {
    public init() {}
}

/// Any sentence, with an earcon, from a place (confirmations, problems).
public struct GenericAnnouncementEvent: UserInitiatedEvent {
    public var text: String
    public var glyph: Glyph?
    public var placement: Placement
    public var action: QueueAction
    public init(_ text: String, glyph: Glyph? = nil, placement: Placement = .standard, action: QueueAction = .interruptAndClear) {
        self.text = text
        self.glyph = glyph
        self.placement = placement
        self.action = action
    }
}

/// A command the program knows but cannot do yet (beacons, markers, routes before the Guidance stage).
public struct UnavailableCommandEvent: UserInitiatedEvent {
    /// The command as the user said it.
    public var words: String
    public init(words: String) { self.words = words }
}

/// A custom behavior became active.
public struct BehaviorActivatedEvent: UserInitiatedEvent {
    public var behavior: String
    public init(behavior: String) { self.behavior = behavior }
}

/// A custom behavior is about to end.
public struct BehaviorDeactivatedEvent: UserInitiatedEvent {
    public var behavior: String
    public init(behavior: String) { self.behavior = behavior }
}
