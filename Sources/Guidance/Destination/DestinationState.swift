import Foundation
import Geo

/// The beacon and its arrival geofence as a pure state machine: `DestinationState.reduce` maps
/// (state, event, settings, now) to a new state and the effects to carry out, so that every rule can be
/// tested without audio, clocks or a database.
///
/// Rules (spec §4.1–4.2, with the community's configurable cut-off):
/// * one beacon at a time; setting a new one replaces the old;
/// * the geofence is entered at `settings.beaconOffDistance` (0–50 m) or inside the place's outline, and
///   left only at `settings.leaveDistance` (≥ 30 m), so jitter around the boundary gives one arrival;
/// * entering mutes the audio and produces exactly one `.arrived` effect; leaving says nothing and the
///   audio stays off;
/// * a beacon set while the user is already inside the geofence starts silent and inside (no arrival);
/// * a delayed start keeps the audio off until the user is more than `delayedStart` metres away;
/// * while a behavior handles arrivals itself (route guidance), the geofence is not evaluated.
public struct DestinationState: Sendable, Hashable, Codable {
    public var beacon: Beacon?
    /// The user muted the beacon.
    public var userMuted = false
    /// The arrival geofence muted it.
    public var geofenceMuted = false
    public var isInsideGeofence = false
    /// False while a delayed start is waiting for the user to walk away.
    public var isArmed = true
    /// The last known position.
    public var lastLocation: Coordinate?
    /// Distance from the last known position to the beacon.
    public var lastDistance: Double?
    /// A behavior (route guidance) does its own arrival handling.
    public var geofenceSuspended = false

    public init() {}

    /// Whether the beacon sound should be playing.
    public var isAudioOn: Bool { beacon != nil && !userMuted && !geofenceMuted && isArmed }

    public enum Event: Sendable, Hashable {
        case set(Beacon)
        case clear
        case mute
        case unmute
        case location(Coordinate)
        /// The beacon-off distance changed (re-evaluates the geofence at the last position).
        case settingsChanged
        case suspendGeofence(Bool)
    }

    public enum Effect: Sendable, Hashable {
        /// Start the beacon sound anchored at this location.
        case startAudio(Coordinate)
        case stopAudio
        /// The geofence was entered. `mutedAudio` when the beacon was sounding until now.
        case arrived(name: String, distance: Double, mutedAudio: Bool)
        /// The geofence was left (nothing is spoken).
        case left
        /// The beacon changed or was removed (for the behavior pipeline's BeaconChangedEvent).
        case beaconChanged(Beacon?)
        /// A delayed beacon started because the user walked far enough away.
        case armed
    }

    public static func reduce(_ state: DestinationState, _ event: Event, settings: GuidanceSettings, now: Date)
        -> (DestinationState, [Effect]) {
        var s = state
        var effects: [Effect] = []
        let wasOn = state.isAudioOn
        switch event {
        case .set(let beacon):
            s.beacon = beacon
            s.userMuted = false
            s.geofenceMuted = false
            s.isInsideGeofence = false
            s.isArmed = true
            effects.append(.beaconChanged(beacon))
            if let here = s.lastLocation {
                let d = distance(here, beacon)
                s.lastDistance = d
                if !s.geofenceSuspended && isInside(here, beacon, distance: d, radius: settings.beaconOffDistance) {
                    // Already there: start silent and inside, no arrival callout.
                    s.isInsideGeofence = true
                    s.geofenceMuted = true
                }
                if let delay = beacon.delayedStart ?? settings.delayedBeaconStart, d <= delay { s.isArmed = false }
            } else if (beacon.delayedStart ?? settings.delayedBeaconStart) != nil {
                s.isArmed = false
            }
            if wasOn { effects.append(.stopAudio) }
            if s.isAudioOn { effects.append(.startAudio(beacon.location)) }
            return (s, effects)
        case .clear:
            guard s.beacon != nil else { return (s, []) }
            s = DestinationState()
            s.lastLocation = state.lastLocation
            s.geofenceSuspended = state.geofenceSuspended
            if wasOn { effects.append(.stopAudio) }
            effects.append(.beaconChanged(nil))
            return (s, effects)
        case .mute:
            s.userMuted = true
        case .unmute:
            s.userMuted = false
            // Asking for the sound back overrides the arrival mute and a pending delayed start.
            s.geofenceMuted = false
            s.isArmed = true
        case .suspendGeofence(let on):
            s.geofenceSuspended = on
        case .settingsChanged:
            if let here = s.lastLocation { evaluate(&s, at: here, settings: settings, effects: &effects) }
        case .location(let here):
            s.lastLocation = here
            evaluate(&s, at: here, settings: settings, effects: &effects)
        }
        let isOn = s.isAudioOn
        if wasOn && !isOn { effects.insert(.stopAudio, at: 0) }
        if !wasOn && isOn, let beacon = s.beacon { effects.append(.startAudio(beacon.location)) }
        return (s, effects)
    }

    static func distance(_ here: Coordinate, _ beacon: Beacon) -> Double {
        beacon.areaContains(here) ? 0 : here.distance(to: beacon.location)
    }

    static func isInside(_ here: Coordinate, _ beacon: Beacon, distance: Double, radius: Double) -> Bool {
        beacon.areaContains(here) || distance <= radius
    }

    private static func evaluate(_ s: inout DestinationState, at here: Coordinate, settings: GuidanceSettings,
                                 effects: inout [Effect]) {
        guard let beacon = s.beacon else { return }
        let d = distance(here, beacon)
        s.lastDistance = d
        if !s.isArmed, let delay = beacon.delayedStart ?? settings.delayedBeaconStart, d > delay {
            // Far enough away: the beacon starts, and coming back is an arrival.
            s.isArmed = true
            s.geofenceMuted = false
            if d > settings.beaconOffDistance { s.isInsideGeofence = false }
            effects.append(.armed)
        }
        guard !s.geofenceSuspended else { return }
        if !s.isInsideGeofence {
            if isInside(here, beacon, distance: d, radius: settings.beaconOffDistance) {
                let mutedAudio = s.isAudioOn
                s.isInsideGeofence = true
                s.geofenceMuted = true
                effects.append(.arrived(name: beacon.name, distance: settings.beaconOffDistance, mutedAudio: mutedAudio))
            }
        } else if d >= settings.leaveDistance && !beacon.areaContains(here) {
            s.isInsideGeofence = false
            effects.append(.left)
        }
    }
}
