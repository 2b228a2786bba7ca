import Foundation
import Geo
import Logging

/// The single audio beacon at run time: applies ``DestinationState`` transitions, drives the beacon sound,
/// speaks the arrival callout and the periodic "Beacon, 120 meters" updates, and keeps the beacon in the
/// user database so that it survives a restart.
public actor DestinationManager {
    public private(set) var state = DestinationState()
    public private(set) var settings: GuidanceSettings
    public private(set) var language: GuidanceLanguage
    let audio: (any BeaconAudio)?
    let speaker: (any GuidanceSpeaker)?
    let store: UserStore?
    let logger = Logger(label: "soundscape.guidance.destination")
    /// The beacon for synchronous readers (the behavior pipeline's BeaconStateReader).
    public nonisolated let snapshot = BeaconSnapshot()

    /// Distance updates: after moving more than 50 m and more than 5 s since the last (spec §3.4).
    public static let updateDistance = 50.0
    public static let updateInterval: TimeInterval = 5
    private var lastUpdate: (location: Coordinate, time: Date)?

    public init(settings: GuidanceSettings = GuidanceSettings(), language: GuidanceLanguage, audio: (any BeaconAudio)? = nil,
                speaker: (any GuidanceSpeaker)? = nil, store: UserStore? = nil) {
        self.settings = settings
        self.language = language
        self.audio = audio
        self.speaker = speaker
        self.store = store
    }

    /// Speaks from now on in this language and these units (the user changed a setting).
    public func setLanguage(_ language: GuidanceLanguage) { self.language = language }

    /// Restores the beacon saved in the user database (a route waypoint beacon is not restored).
    public func restore() async {
        guard let store, let beacon = try? store.load(Beacon.self, forKey: "beacon") else { return }
        if case .waypoint = beacon.target { try? store.save(Beacon?.none, forKey: "beacon"); return }
        if case .marker(let id) = beacon.target, (try? store.markers.marker(id: id)) == nil {
            try? store.save(Beacon?.none, forKey: "beacon"); return
        }
        _ = await apply(.set(beacon), now: Date())
    }

    public var beacon: Beacon? { state.beacon }

    // MARK: commands

    /// Sets the beacon; returns the spoken confirmation ("Beacon set on Kauppatori, 350 meters, ahead to the right").
    @discardableResult
    public func set(_ beacon: Beacon, from here: Coordinate? = nil, heading: Double? = nil, now: Date = Date()) async -> GuidanceCallout {
        if let here { state.lastLocation = here }
        lastUpdate = state.lastLocation.map { ($0, now) }
        _ = await apply(.set(beacon), now: now)
        try? store?.save(beacon, forKey: "beacon")
        let callout = Self.setCallout(beacon, from: state.lastLocation, heading: heading, settings: settings, language: language)
        await speaker?.speak([callout])
        return callout
    }

    static func setCallout(_ beacon: Beacon, from here: Coordinate?, heading: Double?, settings: GuidanceSettings,
                           language lang: GuidanceLanguage) -> GuidanceCallout {
        guard let here else {
            return GuidanceCallout(kind: .beaconSet, text: lang("beacon.set_close", beacon.name), location: beacon.location, interrupts: true)
        }
        let d = DestinationState.distance(here, beacon)
        let text: String
        if d.rounded() <= 15 {
            text = lang("beacon.set_close", beacon.name)
        } else if let delay = beacon.delayedStart ?? settings.delayedBeaconStart, d <= delay {
            text = lang("beacon.set_delayed", beacon.name, lang.distance(d), lang.direction(from: here, to: beacon.location, heading: heading),
                        lang.distance(delay))
        } else {
            text = lang("beacon.set", beacon.name, lang.distance(d), lang.direction(from: here, to: beacon.location, heading: heading))
        }
        return GuidanceCallout(kind: .beaconSet, text: text, location: beacon.location, interrupts: true)
    }

    @discardableResult
    public func clear(now: Date = Date()) async -> GuidanceCallout {
        let had = state.beacon != nil
        _ = await apply(.clear, now: now)
        try? store?.save(Beacon?.none, forKey: "beacon")
        _ = try? store?.markers.deleteTemporary()
        let callout = GuidanceCallout(kind: .beaconInfo, text: language(had ? "beacon.removed" : "beacon.none"), interrupts: true)
        await speaker?.speak([callout])
        return callout
    }

    @discardableResult
    public func mute(now: Date = Date()) async -> GuidanceCallout {
        guard state.beacon != nil else { return await say(.beaconInfo, language("beacon.none")) }
        _ = await apply(.mute, now: now)
        return await say(.beaconInfo, language("beacon.muted"))
    }

    @discardableResult
    public func unmute(now: Date = Date()) async -> GuidanceCallout {
        guard state.beacon != nil else { return await say(.beaconInfo, language("beacon.none")) }
        _ = await apply(.unmute, now: now)
        return await say(.beaconInfo, language("beacon.unmuted"))
    }

    /// "Where is the beacon": "Beacon on Kauppatori, 120 meters, to the left".
    @discardableResult
    public func whereIsBeacon(from here: Coordinate?, heading: Double?) async -> GuidanceCallout {
        guard let beacon = state.beacon else { return await say(.beaconInfo, language("beacon.none")) }
        guard let here = here ?? state.lastLocation else { return await say(.beaconInfo, language("beacon.set_close", beacon.name)) }
        let d = DestinationState.distance(here, beacon)
        let text = d.rounded() <= 15 ? language("beacon.close_by")
            : language("beacon.where", beacon.name, language.distance(d), language.direction(from: here, to: beacon.location, heading: heading))
        let callout = GuidanceCallout(kind: .beaconDistance, text: text, location: beacon.location, interrupts: true)
        await speaker?.speak([callout])
        return callout
    }

    /// "Beacon off distance 10 metres": 0–50 m; saved with the settings.
    @discardableResult
    public func setBeaconOffDistance(_ meters: Double, now: Date = Date()) async -> GuidanceCallout {
        do {
            let value = try settings.setBeaconOffDistance(meters)
            try? store?.saveSettings(settings)
            _ = await apply(.settingsChanged, now: now)
            return await say(.setting, language("beacon.off_distance_set", language.distance(value)))
        } catch {
            return await say(.error, language("beacon.off_distance_invalid"))
        }
    }

    public func updateSettings(_ change: (inout GuidanceSettings) -> Void, now: Date = Date()) async {
        change(&settings)
        try? store?.saveSettings(settings)
        _ = await apply(.settingsChanged, now: now)
    }

    /// Route guidance handles its own arrivals while it is active.
    public func suspendGeofence(_ on: Bool) async { _ = await apply(.suspendGeofence(on), now: Date()) }

    // MARK: location

    /// Feeds a position; returns (and speaks) the callouts it caused: the arrival callout once per entry
    /// into the geofence, and distance updates.
    @discardableResult
    public func update(location here: Coordinate, now: Date = Date()) async -> [GuidanceCallout] {
        var callouts = await apply(.location(here), now: now)
        if callouts.isEmpty, settings.beaconDistanceCallouts, let beacon = state.beacon, !state.isInsideGeofence,
           !state.geofenceSuspended {
            if let last = lastUpdate {
                if here.distance(to: last.location) > Self.updateDistance && now.timeIntervalSince(last.time) > Self.updateInterval {
                    lastUpdate = (here, now)
                    let d = DestinationState.distance(here, beacon)
                    let text = d.rounded() <= 15 ? language("beacon.close_by") : language("beacon.distance", language.distance(d))
                    callouts.append(GuidanceCallout(kind: .beaconDistance, text: text, location: beacon.location, delay: 0.75))
                }
            } else {
                lastUpdate = (here, now)
            }
        }
        if !callouts.isEmpty { await speaker?.speak(callouts) }
        return callouts
    }

    // MARK: effects

    private func apply(_ event: DestinationState.Event, now: Date) async -> [GuidanceCallout] {
        let (next, effects) = DestinationState.reduce(state, event, settings: settings, now: now)
        state = next
        snapshot.update(state, settings: settings)
        var callouts: [GuidanceCallout] = []
        for effect in effects {
            switch effect {
            case .startAudio(let location):
                await audio?.startBeacon(at: location, name: state.beacon?.name ?? "")
            case .stopAudio:
                await audio?.stopBeacon()
            case .arrived(_, let radius, let mutedAudio):
                let distance = language.distance(radius)
                callouts.append(GuidanceCallout(
                    kind: .beaconArrival,
                    text: language(mutedAudio ? "beacon.arrived_muted" : "beacon.arrived", distance),
                    earcon: mutedAudio ? "beacon_found" : nil, location: state.beacon?.location))
                logger.info("arrived within \(radius) m of \(state.beacon?.name ?? "?")")
            case .left, .beaconChanged, .armed:
                break
            }
        }
        return callouts
    }

    private func say(_ kind: GuidanceCallout.Kind, _ text: String) async -> GuidanceCallout {
        let c = GuidanceCallout(kind: kind, text: text, interrupts: true)
        await speaker?.speak([c])
        return c
    }
}
