import Foundation
import Geo
import Logging

/// The single audio beacon at run time: applies ``DestinationState`` transitions, drives the beacon sound and
/// keeps the beacon in the user database so that it survives a restart.
///
/// It speaks nothing itself: commands return their read-back for the caller to say, and a position returns the
/// geofence crossing it caused, which the behavior pipeline's beacon generator words (as it does the distance updates).
public actor DestinationManager {
    public private(set) var state = DestinationState()
    public private(set) var settings: GuidanceSettings
    public private(set) var language: GuidanceLanguage
    let audio: (any BeaconAudio)?
    let store: UserStore?
    let logger = Logger(label: "soundscape.guidance.destination")
    /// The beacon for synchronous readers (the behavior pipeline's BeaconStateReader).
    public nonisolated let snapshot = BeaconSnapshot()

    /// What a position did to the arrival geofence.
    public enum GeofenceCrossing: Sendable, Equatable {
        /// Arrived; `mutedAudio` when the beacon was sounding until now.
        case entered(mutedAudio: Bool)
        case left
    }

    public init(settings: GuidanceSettings = GuidanceSettings(), language: GuidanceLanguage, audio: (any BeaconAudio)? = nil,
                store: UserStore? = nil) {
        self.settings = settings
        self.language = language
        self.audio = audio
        self.store = store
    }

    /// Words read-backs from now on in this language and these units (the user changed a setting).
    public func setLanguage(_ language: GuidanceLanguage) { self.language = language }

    /// Restores the beacon saved in the user database (a route waypoint beacon is not restored).
    public func restore() async {
        guard let store, let beacon = try? store.load(Beacon.self, forKey: "beacon") else { return }
        if case .waypoint = beacon.target { try? store.save(Beacon?.none, forKey: "beacon"); return }
        if case .marker(let id) = beacon.target, (try? store.markers.marker(id: id)) == nil {
            try? store.save(Beacon?.none, forKey: "beacon"); return
        }
        await apply(.set(beacon), now: Date())
    }

    public var beacon: Beacon? { state.beacon }

    // MARK: commands

    /// Sets the beacon in place of any other; a command reads it back with ``setReadBack(_:heading:)``.
    public func set(_ beacon: Beacon, from here: Coordinate? = nil, now: Date = Date()) async {
        if let here { state.lastLocation = here }
        await apply(.set(beacon), now: now)
        try? store?.save(beacon, forKey: "beacon")
    }

    /// The read-back of setting `beacon`, from the last position: "Beacon set on Kauppatori, 350 meters, ahead to the right".
    public func setReadBack(_ beacon: Beacon, heading: Double?) -> GuidanceCallout {
        Self.setCallout(beacon, from: state.lastLocation, heading: heading, settings: settings, language: language)
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

    /// Removes the beacon (and the temporary markers made for it).
    public func clear(now: Date = Date()) async {
        await apply(.clear, now: now)
        try? store?.save(Beacon?.none, forKey: "beacon")
        _ = try? store?.markers.deleteTemporary()
    }

    /// Mutes the beacon; returns the read-back.
    @discardableResult
    public func mute(now: Date = Date()) async -> GuidanceCallout {
        guard state.beacon != nil else { return Self.readBack(.beaconInfo, language("beacon.none")) }
        await apply(.mute, now: now)
        return Self.readBack(.beaconInfo, language("beacon.muted"))
    }

    /// Unmutes the beacon; returns the read-back.
    @discardableResult
    public func unmute(now: Date = Date()) async -> GuidanceCallout {
        guard state.beacon != nil else { return Self.readBack(.beaconInfo, language("beacon.none")) }
        await apply(.unmute, now: now)
        return Self.readBack(.beaconInfo, language("beacon.unmuted"))
    }

    /// "Where is the beacon": "Beacon on Kauppatori, 120 meters, to the left".
    public func whereIsBeacon(from here: Coordinate?, heading: Double?) -> GuidanceCallout {
        guard let beacon = state.beacon else { return Self.readBack(.beaconInfo, language("beacon.none")) }
        guard let here = here ?? state.lastLocation else { return Self.readBack(.beaconInfo, language("beacon.set_close", beacon.name)) }
        let d = DestinationState.distance(here, beacon)
        let text = d.rounded() <= 15 ? language("beacon.close_by")
            : language("beacon.where", beacon.name, language.distance(d), language.direction(from: here, to: beacon.location, heading: heading))
        return GuidanceCallout(kind: .beaconDistance, text: text, location: beacon.location, interrupts: true)
    }

    /// "Beacon off distance 10 metres": 0–50 m; saved with the settings. Returns the read-back.
    public func setBeaconOffDistance(_ meters: Double, now: Date = Date()) async -> GuidanceCallout {
        do {
            let value = try settings.setBeaconOffDistance(meters)
            try? store?.saveSettings(settings)
            await apply(.settingsChanged, now: now)
            return Self.readBack(.setting, language("beacon.off_distance_set", language.distance(value)))
        } catch {
            return Self.readBack(.error, language("beacon.off_distance_invalid"))
        }
    }

    public func updateSettings(_ change: (inout GuidanceSettings) -> Void, now: Date = Date()) async {
        change(&settings)
        try? store?.saveSettings(settings)
        await apply(.settingsChanged, now: now)
    }

    /// Route guidance handles its own arrivals while it is active.
    public func suspendGeofence(_ on: Bool) async { await apply(.suspendGeofence(on), now: Date()) }

    // MARK: location

    /// Feeds a position; returns the geofence crossing it caused: an arrival once per entry into the geofence,
    /// or leaving it.
    @discardableResult
    public func update(location here: Coordinate, now: Date = Date()) async -> GeofenceCrossing? {
        await apply(.location(here), now: now)
    }

    // MARK: effects

    @discardableResult
    private func apply(_ event: DestinationState.Event, now: Date) async -> GeofenceCrossing? {
        let (next, effects) = DestinationState.reduce(state, event, settings: settings, now: now)
        state = next
        snapshot.update(state, settings: settings)
        var crossing: GeofenceCrossing?
        for effect in effects {
            switch effect {
            case .startAudio(let location):
                await audio?.startBeacon(at: location, name: state.beacon?.name ?? "")
            case .stopAudio:
                await audio?.stopBeacon()
            case .arrived(_, let radius, let mutedAudio):
                crossing = .entered(mutedAudio: mutedAudio)
                logger.info("arrived within \(radius) m of \(state.beacon?.name ?? "?")")
            case .left:
                crossing = .left
            case .beaconChanged, .armed:
                break
            }
        }
        return crossing
    }

    /// A command's answer: it interrupts what is being said.
    private static func readBack(_ kind: GuidanceCallout.Kind, _ text: String) -> GuidanceCallout {
        GuidanceCallout(kind: kind, text: text, interrupts: true)
    }
}
