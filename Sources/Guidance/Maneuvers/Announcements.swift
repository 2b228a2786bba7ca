import Foundation
import Geo

/// A maneuver announcement.
public struct Announcement: Sendable, Hashable {
    public enum Phase: String, Sendable, Hashable, Codable {
        /// About 50 m before the maneuver: "In 50 meters, turn left onto Kaivokatu".
        case prepare
        /// At the maneuver: "Now turn left onto Kaivokatu, then cross Mannerheimintie".
        case now
    }

    public struct ID: Sendable, Hashable {
        public var maneuver: Int
        public var phase: Phase
    }

    public var id: ID
    public var text: String
    public var samples: [String]
    /// The maneuver chained with "then", if any.
    public var chained: Int?
    /// Where along the route it was spoken (metres).
    public var spokenAt: Double

    /// The text or the sample names joined by spaces, as chosen in the settings.
    public func rendered(_ output: AnnouncementOutput) -> String {
        output == .text ? text : samples.joined(separator: " ")
    }
}

/// Fills the language's grammar for maneuvers.
public struct AnnouncementComposer: Sendable {
    public let phrases: ManeuverPhrases
    public let settings: GuidanceSettings

    public init(language: GuidanceLanguage, settings: GuidanceSettings) {
        phrases = language.maneuvers
        self.settings = settings
    }

    var decimalSeparator: String { settings.decimalSeparator ?? phrases.decimalSeparator }

    /// A distance for the DISTANCE slot, rounded for walking: to 5 m under 100 m, to 50 m under 1 km,
    /// then kilometres with one decimal (using the configured decimal separator).
    public func distance(_ meters: Double) -> Rendered {
        let d = max(0, meters)
        let number: String, key: String
        if d < 97.5 {
            let r = max(5, (d / 5).rounded() * 5)
            number = String(Int(r)); key = "distance.meters"
        } else if d < 975 {
            number = String(Int((d / 50).rounded() * 50)); key = "distance.meters"
        } else {
            let km = (d / 100).rounded() / 10
            if km == km.rounded() {
                number = String(Int(km)); key = km == 1 ? "distance.kilometer" : "distance.kilometers"
            } else {
                number = String(format: "%.1f", km).replacingOccurrences(of: ".", with: decimalSeparator)
                key = "distance.kilometers"
            }
        }
        return phrases.render(key, [Rendered(text: number, samples: [number.replacingOccurrences(of: decimalSeparator, with: "_")])])
    }

    /// The MANOEUVRE, MANOEUVREADDON and STREETNAME values of a maneuver.
    func values(_ m: Maneuver, future: Bool) -> (maneuver: Rendered, addon: Rendered?, street: Rendered?) {
        let names = settings.speakStreetNames
        var street: Rendered?
        var addon: Rendered?
        let maneuver: Rendered
        switch m.kind {
        case .depart(let compass):
            maneuver = phrases.render("maneuver.depart", future: future, [phrases.render("compass.\(compass.rawValue)")])
            if names, let s = m.streetName { street = phrases.render("street.along", [.name(s)]) }
        case .cross:
            if names, let s = m.crossedStreet {
                maneuver = phrases.render("maneuver.cross_named", future: future, [.name(s)])
            } else {
                maneuver = phrases.render("maneuver.cross", future: future)
            }
            switch m.signals {
            case .none: break
            case .trafficSignals: addon = phrases.render("addon.traffic_signals")
            case .soundSignals: addon = phrases.render("addon.sound_signals")
            }
        case .roundabout(let exit):
            let ordinal = phrases.phrases["ordinal.\(exit)"] != nil ? phrases.render("ordinal.\(exit)")
                : phrases.render("ordinal.other", [Rendered(text: String(exit), samples: [String(exit)])])
            maneuver = phrases.render("maneuver.roundabout", future: future, [ordinal])
            if names, let s = m.streetName { street = phrases.render("street.onto", [.name(s)]) }
        case .arrive:
            if names, let d = m.destinationName {
                maneuver = phrases.render("maneuver.arrive_named", future: future, [.name(d)])
            } else {
                maneuver = phrases.render("maneuver.arrive", future: future)
            }
        default:
            maneuver = phrases.render(m.kind.phraseKey, future: future)
            if names, let s = m.streetName { street = phrases.render("street.onto", [.name(s)]) }
        }
        return (maneuver, addon, street)
    }

    /// Composes an announcement: `distance` for a preparatory one (nil at the maneuver), and the next
    /// maneuver to chain with "then" (`immediately` when it follows within a few seconds).
    public func compose(_ m: Maneuver, distance: Double?, chained next: Maneuver?, immediately: Bool) -> Rendered {
        var slots: [GrammarSlot: Rendered] = [:]
        let first = values(m, future: distance != nil)
        slots[.MANOEUVRE1] = first.maneuver
        slots[.MANOEUVREADDON] = first.addon
        slots[.STREETNAME] = first.street
        if let distance {
            slots[.DISTANCE] = self.distance(distance)
        } else if case .arrive = m.kind {
        } else if case .depart = m.kind {
        } else {
            slots[.NOW] = phrases.render("now")
        }
        if let next {
            let second = values(next, future: true)
            slots[.THEN] = phrases.render("then")
            if immediately { slots[.IMMEDIATELY] = phrases.render("immediately") }
            slots[.MANOEUVRE2] = second.maneuver
            slots[.MANOEUVREADDON2] = second.addon
            slots[.STREETNAME2] = second.street
        }
        return phrases.grammar.render(slots, literalSamples: phrases.literalSamples)
    }
}

/// Decides when to speak each maneuver announcement while walking, as a pure state machine of
/// (state, progress along the route, speed): the preparatory announcement about `prepareDistance` before a
/// maneuver (skipped when there is no time for it), the "now" announcement at the maneuver, and
/// "…, then …" when the next maneuver follows within `chainWindow` seconds at the current walking speed.
/// Each announcement is spoken at most once; a maneuver walked past without a fix near it is dropped,
/// never announced late.
public struct AnnouncementScheduler: Sendable {
    public let maneuvers: [Maneuver]
    public let composer: AnnouncementComposer

    public struct State: Sendable, Hashable {
        public var spoken: Set<Announcement.ID> = []
        /// Maneuvers already announced as the "then" part of the one before.
        public var chainedInto: Set<Int> = []
        /// The first maneuver not yet done.
        public var next = 0
        public init() {}
    }

    /// A maneuver "now" announcement fires this many seconds of walking before it (at least 4 m), so it
    /// is heard at the maneuver.
    public var nowLead: TimeInterval = 3
    /// Passing a maneuver by more than this, unannounced, drops it.
    public var missedAfter = 25.0
    /// "Then immediately" below this many seconds between maneuvers.
    public var immediateWindow: TimeInterval = 4

    public init(maneuvers: [Maneuver], composer: AnnouncementComposer) {
        self.maneuvers = maneuvers
        self.composer = composer
    }

    var settings: GuidanceSettings { composer.settings }

    func nowDistance(_ speed: Double) -> Double { max(4, speed * nowLead) }

    func chain(after i: Int, speed: Double) -> (Int, Bool)? {
        guard i + 1 < maneuvers.count else { return nil }
        let gap = maneuvers[i + 1].distanceAlong - maneuvers[i].distanceAlong
        let seconds = gap / max(speed, 0.3)
        guard seconds <= settings.chainWindow else { return nil }
        return (i + 1, seconds <= immediateWindow)
    }

    /// Advances with the walker `along` metres along the route at `speed` m/s (nil: the settings' walking speed).
    public func step(_ state: State, along: Double, speed: Double?) -> (State, [Announcement]) {
        var s = state
        var out: [Announcement] = []
        let v = (speed ?? 0) > 0.3 ? speed! : settings.walkingSpeed
        func speak(_ i: Int, _ phase: Announcement.Phase, distance: Double?) {
            let id = Announcement.ID(maneuver: i, phase: phase)
            guard s.spoken.insert(id).inserted else { return }
            let link = chain(after: i, speed: v)
            let r = composer.compose(maneuvers[i], distance: distance, chained: link.map { maneuvers[$0.0] },
                                     immediately: link?.1 ?? false)
            if let (j, _) = link {
                s.chainedInto.insert(j)
                s.spoken.insert(Announcement.ID(maneuver: j, phase: .prepare))
            }
            out.append(Announcement(id: id, text: r.text, samples: r.samples, chained: link?.0, spokenAt: along))
        }
        while s.next < maneuvers.count {
            let i = s.next
            let m = maneuvers[i]
            let remaining = m.distanceAlong - along
            if i == 0 {
                // Setting off.
                speak(0, .now, distance: nil)
                s.next = 1
                continue
            }
            if remaining < -missedAfter && !s.spoken.contains(Announcement.ID(maneuver: i, phase: .now)) {
                s.spoken.insert(Announcement.ID(maneuver: i, phase: .prepare))
                s.spoken.insert(Announcement.ID(maneuver: i, phase: .now))
                s.next += 1
                continue
            }
            if remaining <= nowDistance(v) {
                s.spoken.insert(Announcement.ID(maneuver: i, phase: .prepare))
                speak(i, .now, distance: nil)
                s.next += 1
                continue
            }
            // Preparatory: within the prepare distance, with at least a few seconds before "now".
            if remaining <= settings.prepareDistance && remaining > nowDistance(v) + v * 4 {
                speak(i, .prepare, distance: remaining)
            }
            break
        }
        return (s, out)
    }

    /// Every announcement of the route in order, as heard by someone walking it at `speed` with a fix
    /// every `interval` seconds.
    public func walkThrough(speed: Double? = nil, interval: TimeInterval = 1) -> [Announcement] {
        guard let last = maneuvers.last else { return [] }
        let v = speed ?? settings.walkingSpeed
        var state = State()
        var all: [Announcement] = []
        var along = 0.0
        while true {
            let (next, spoken) = step(state, along: along, speed: v)
            state = next
            all += spoken
            if along >= last.distanceAlong { break }
            along = min(along + v * interval, last.distanceAlong)
        }
        return all
    }
}

/// Where the walker is along a route: the projection of each fix onto the route line, searched near the
/// previous position so that a route passing close to itself does not jump ahead.
public struct RouteProgressTracker: Sendable {
    public let line: Polyline
    let cumulative: [Double]
    public private(set) var along = 0.0
    /// Metres from the route at the last fix.
    public private(set) var offset = 0.0
    /// Off the route by more than this: time to plan again.
    public var offRouteDistance = 30.0

    public init(line: Polyline) {
        self.line = line
        var c = [0.0]
        for i in 1..<max(line.points.count, 1) { c.append(c[i - 1] + line.points[i - 1].distance(to: line.points[i])) }
        cumulative = c
    }

    public var isOffRoute: Bool { offset > offRouteDistance }

    /// Updates with a fix; returns the distance along the route.
    @discardableResult
    public mutating func update(_ c: Coordinate) -> Double {
        guard line.points.count > 1 else { return 0 }
        let lo = along - 20, hi = along + 150
        var best: (d: Double, along: Double)?
        for i in 0..<(line.points.count - 1) where cumulative[i + 1] >= lo && cumulative[i] <= hi {
            let seg = Polyline([line.points[i], line.points[i + 1]])
            guard let n = seg.nearestPoint(to: c) else { continue }
            let a = cumulative[i] + n.distanceAlong
            if best == nil || n.distance < best!.d { best = (n.distance, a) }
        }
        if let best {
            offset = best.d
            // Never move backwards by GPS noise alone.
            along = max(along, best.along)
        }
        return along
    }
}
