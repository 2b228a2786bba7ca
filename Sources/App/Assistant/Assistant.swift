import Callouts
import Foundation
import Audio
import Geo
import Location
import MapData

/// The assistant's decisions: what to say when the user moves and when they ask something.
///
/// This is the first, compact form of the behaviour of Soundscape's default behaviour (automatic place
/// callouts, My Location, Around Me, Ahead of Me, repeat, help); the event/behaviour/generator pipeline of the
/// behaviour issue replaces its insides but keeps these rules. Time comes from the fixes, so a replayed walk
/// makes the same decisions at any speed.
public actor Assistant {
    private let map: SpatialDataView
    private let phrasing: Phrasing
    private let output: any ReplyOutput

    private var location: LocationFix?
    private var heading: Double?
    private var lastEvaluation: LocationFix?
    /// Places announced automatically, with when: re-announced after 60 s or after leaving their proximity range.
    private var announced: [String: (time: Date, coordinate: Coordinate, proximity: Double)] = [:]
    private var history: [[Reply]] = []
    private var currentStreet: String?

    public init(map: SpatialDataView, phrasing: Phrasing, output: any ReplyOutput) {
        self.map = map
        self.phrasing = phrasing
        self.output = output
    }

    private var t: StringTable { phrasing.table }

    // MARK: walking

    public func handle(_ event: PositionEvent) async {
        switch event {
        case .fix(let fix): await update(fix)
        case .lost: await output.say([Reply(t("status.gps_lost"), earcon: .informationAlert)], interrupt: false)
        case .restored: await output.say([Reply(t("status.gps_restored"), earcon: .informationAlert)], interrupt: false)
        case .walkEnded: break
        }
    }

    /// Takes a position (and its course as the heading while walking) without announcing anything.
    public func locate(_ fix: LocationFix) {
        location = fix
        // Course counts as a heading only while walking (spec: ≥ 0.4 m/s).
        if let course = fix.course, (fix.speed ?? 0) >= 0.4 { heading = course }
    }

    func update(_ fix: LocationFix) async {
        locate(fix)
        await output.moveListener(to: fix.coordinate, heading: heading)
        // Re-evaluate only after moving more than 5 m and more than 5 s since the last evaluation.
        if let last = lastEvaluation,
           fix.coordinate.distance(to: last.coordinate) <= 5 || fix.timestamp.timeIntervalSince(last.timestamp) <= 5 {
            return
        }
        lastEvaluation = fix
        await announceStreetChange(at: fix)
        await announceNearbyPlaces(at: fix)
    }

    /// Says "Now on X" when the street changes. Like Soundscape's sticky road, the current street is kept
    /// while it is still within 20 m, so crossing a side street does not flip the name back and forth.
    private func announceStreetChange(at fix: LocationFix) async {
        guard let result = try? map.reverseGeocode(fix.coordinate), let road = result.road else { return }
        let name = road.spokenName()
        guard road.name != nil, name != currentStreet else { return }
        if let currentStreet, let near = try? map.roads(near: fix.coordinate, radius: 20),
           near.contains(where: { $0.feature.spokenName() == currentStreet }) {
            return
        }
        currentStreet = name
        await speak([Reply(t("walk.now_on", name), earcon: .senseLocation)])
    }

    /// Soundscape's automatic place callouts: within 50 m, the 10 nearest, each when nearer than its
    /// category's trigger range; objects never, and each place once until 60 s have passed or the user has
    /// left its proximity range.
    private func announceNearbyPlaces(at fix: LocationFix) async {
        let here = fix.coordinate
        announced = announced.filter { _, entry in
            fix.timestamp.timeIntervalSince(entry.time) < 60 && here.distance(to: entry.coordinate) <= entry.proximity
        }
        guard let nearby = try? map.features(near: here, radius: 50) else { return }
        var seenLabels: Set<String> = []
        for item in nearby.prefix(10) {
            let ranges = AutoCalloutRanges.for(item.feature.superCategory)
            guard ranges.trigger > 0, item.distance <= ranges.trigger else { continue }
            let trackingKey = item.feature.name == nil ? (item.feature.category ?? item.feature.key) : item.feature.key
            guard announced[trackingKey] == nil, !seenLabels.contains(trackingKey) else { continue }
            seenLabels.insert(trackingKey)
            announced[trackingKey] = (fix.timestamp, item.closestPoint, ranges.proximity)
            let name = item.feature.spokenName()
            let text: String
            if let h = heading {
                let direction = RelativeDirection.combined(relativeAngle: Angle.relative(bearing: item.bearing, heading: h))
                text = t("walk.passing", name, phrasing.direction(direction))
            } else {
                text = name
            }
            await speak([Reply(text, location: item.closestPoint, earcon: Self.earcon(for: item.feature.superCategory))])
        }
    }

    // MARK: commands

    /// Handles a typed or spoken command. Returns false when the user asked to quit.
    public func handle(command raw: String) async -> Bool {
        let command = raw.lowercased().trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters))
            .replacingOccurrences(of: "what is", with: "what's")
        switch command {
        case "": return true
        case "where am i", "my location", "location": await whereAmI()
        case "what's ahead", "ahead of me", "ahead": await aheadOfMe()
        case "around me", "what's around me", "around": await aroundMe()
        case "repeat", "say again":
            await output.say(history.last ?? [Reply(t("repeat.nothing"))], interrupt: true)
        case "stop", "hush", "quiet":
            await output.say([Reply("", earcon: .hush)], interrupt: true)
        case "help", "what can i say", "commands":
            await output.say([Reply(t("help.commands", Self.commandList))], interrupt: true)
        case "quit", "exit", "goodbye":
            await output.say([Reply(t("status.goodbye"))], interrupt: true)
            return false
        default:
            await output.problem(t("command.not_understood", raw))
        }
        return true
    }

    static let commandList = "where am I, what's ahead, around me, repeat, stop, help, quit"

    private func whereAmI() async {
        guard let here = location?.coordinate else { await output.problem(t("location.unknown")); return }
        do {
            let result = try map.reverseGeocode(here)
            var replies: [Reply] = []
            switch result {
            case .at(let place):
                if let h = heading { replies.append(Reply(t("location.facing", phrasing.compass(CompassDirection(bearing: h))))) }
                replies.append(Reply(t("location.at", place.feature.spokenName()), location: place.closestPoint))
            case .on(let road, _):
                let name = road.feature.spokenName()
                if let h = heading {
                    replies.append(Reply(t("location.heading_along", phrasing.compass(CompassDirection(bearing: h)), name)))
                } else {
                    replies.append(Reply(t("location.near", name), location: road.closestPoint))
                }
            case .near(let road, let poi):
                if let road { replies.append(placeReply(road)) }
                if let poi { replies.append(placeReply(poi)) }
                if replies.isEmpty { replies.append(Reply(t("location.unknown"))) }
            }
            await speak(modeGroup(replies), interrupt: true)
        } catch {
            await output.problem("\(error)")
        }
    }

    private func aheadOfMe() async {
        guard let here = location?.coordinate else { await output.problem(t("location.unknown")); return }
        let h = heading ?? 0
        var found: [NearbyFeature] = []
        var radius = 200.0
        while found.isEmpty && radius <= 1000 {
            found = (try? map.features(inSectorAround: here, heading: h, halfAngle: 45, radius: radius,
                                       categories: [.place, .landmark])) ?? []
            radius += 200
        }
        guard !found.isEmpty else {
            await speak([Reply(t("explore.nothing_ahead", phrasing.distances.string(meters: 1000)))], interrupt: true)
            return
        }
        await speak(modeGroup(found.prefix(5).map(placeReply)), interrupt: true)
    }

    private func aroundMe() async {
        guard let here = location?.coordinate else { await output.problem(t("location.unknown")); return }
        var radius = 200.0
        var quadrants: [QuadrantResult] = []
        while radius <= 1000 {
            quadrants = (try? map.nearestPerQuadrant(around: here, heading: heading ?? 0, radius: radius,
                                                     categories: [.place, .landmark])) ?? []
            if quadrants.contains(where: { $0.nearest != nil }) { break }
            radius += 200
        }
        let places = quadrants.compactMap(\.nearest)
        guard !places.isEmpty else {
            await speak([Reply(t("explore.nothing_around", phrasing.distances.string(meters: 1000)))], interrupt: true)
            return
        }
        await speak(modeGroup(places.map(placeReply)), interrupt: true)
    }

    /// "Stockmann, 40 meters, ahead to the right", heard from Stockmann's nearest point.
    private func placeReply(_ item: NearbyFeature) -> Reply {
        let direction = heading.map { RelativeDirection.combined(relativeAngle: Angle.relative(bearing: item.bearing, heading: $0)) }
        let text = phrasing.place(item.feature.spokenName(), distance: item.distance, direction: direction,
                                  accuracy: location?.horizontalAccuracy)
        return Reply(text, location: item.closestPoint, earcon: Self.earcon(for: item.feature.superCategory))
    }

    /// An exploration group: the mode-enter earcon before it and the mode-exit earcon after it.
    private func modeGroup(_ replies: [Reply]) -> [Reply] {
        [Reply("", earcon: .modeEnter)] + replies + [Reply("", earcon: .modeExit)]
    }

    private func speak(_ replies: [Reply], interrupt: Bool = false) async {
        history.append(replies)
        if history.count > 10 { history.removeFirst(history.count - 10) }
        await output.say(replies, interrupt: interrupt)
    }

    /// The earcon that leads a place's name, by its super-category (as Soundscape's).
    static func earcon(for category: SuperCategory) -> Earcon {
        switch category {
        case .information: return .informationAlert
        case .mobility: return .senseMobility
        case .safety: return .senseSafety
        default: return .sensePOI
        }
    }
}

/// Trigger and re-arm distances of automatic place callouts by super-category (Soundscape's standard ranges).
public enum AutoCalloutRanges {
    public static func `for`(_ category: SuperCategory) -> (trigger: Double, proximity: Double) {
        switch category {
        case .landmark: return (50, 100)
        case .place, .information, .mobility, .navilens, .authoredActivity: return (20, 30)
        case .safety: return (10, 20)
        default: return (0, 0)
        }
    }
}
