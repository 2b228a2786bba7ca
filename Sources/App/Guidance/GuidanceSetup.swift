import Audio
import Behaviors
import Callouts
import Foundation
import Geo
import Guidance
import MapData
import Speech

/// What a beacon, marker or route command asks of the Guidance stage (from ``CommandMap``).
public enum GuidanceRequest: Sendable, Equatable {
    case setBeacon(place: String)
    case beaconHere
    case muteBeacon
    case unmuteBeacon
    case removeBeacon
    case whereIsBeacon
    /// Metres; nil when the number was not understood.
    case beaconOffDistance(Double?)
    /// nil: a name from the map ("Marker at Stockmann").
    case saveMarker(name: String?)
    case deleteMarker(name: String)
    case renameMarker(name: String, newName: String)
    case takeMeTo(place: String)
    case startRoute(name: String)
    case route(RouteCommandEvent.Command)
    /// "Nearest pharmacy": a kind's name as heard.
    case findKind(String)
    /// "Search kiasma": a name or a kind.
    case search(String)
    /// "Number two" from the last list (1-based); nil: the next one. The beacon goes there.
    case choose(Int?)
    /// "Take me to number two"; nil: the one chosen last, else the first.
    case guideToChoice(Int?)
    // markers and routes by voice (GuidanceSetup+Markers.swift)
    case saveBeaconAsMarker(name: String?)
    /// A note for the named marker, or for the last one saved or changed.
    case addNote(text: String, marker: String?)
    /// Moves the named marker (or the last one) `metres` towards `bearing` (degrees); nil when not understood.
    case nudgeMarker(name: String?, metres: Double?, bearing: Double?)
    case listMarkers
    case newRoute(name: String)
    case addPlaceToRoute
    case addMarkerToRoute(name: String)
    case saveRoute
    case reverseRoute
    /// "Replace it" or "keep it", "yes" or "no": the answer to the question the last change asked.
    case answer(yes: Bool)
    /// A change whose new name came from the transcript: the name is read back, and the change waits for "yes".
    indirect case confirmName(GuidanceRequest, name: String)
}

/// A change a guidance command made, kept so that "undo" can take it back.
public enum GuidanceChange: Sendable, Equatable {
    /// The beacon was set, moved or removed; what it was before.
    case beacon(before: Beacon?, wasMuted: Bool)
    /// The beacon was muted (true) or unmuted (false).
    case beaconMuted(Bool)
    case markerSaved(Marker)
    case markerDeleted(Marker)
    /// The marker as it was before the rename.
    case markerRenamed(before: Marker)
    /// A route started by this request (undo: stop it).
    case routeStarted(GuidanceRequest)
    /// The route that was running was started by this request (undo: start it again).
    case routeStopped(GuidanceRequest)
    // markers and routes by voice (GuidanceSetup+Markers.swift)
    /// A marker was noted, nudged or replaced: how it was before.
    case markerChanged(before: Marker)
    /// The route being made changed: how it was before (nil: none was being made).
    case routeDraft(before: RouteMaking?)
    /// A route was saved (in place of `replaced`) from the route being made.
    case routeSaved(Route, replaced: Route?, making: RouteMaking)
    /// A saved route was taken back by "undo" (redo: save it again).
    case routeUnsaved(Route, replaced: Route?, making: RouteMaking)
    /// The running route was turned round.
    case routeReversed
}

/// The Guidance stage as the program composes it, for `run` and `say`: one ``DestinationManager`` (the
/// beacon), the user database (markers, routes), the pipeline's readers over them, and the guidance commands.
///
/// Guidance speaks through the event processor (``attach(_:)``); the beacon's sound goes to the audio engine.
/// Each callout has one maker: the beacon's distance updates and arrival are the pipeline's beacon generator's
/// (this posts `BeaconChangedEvent` and `BeaconGeofenceEvent` for them), a running route's are its behavior's,
/// and the read-backs of commands are posted here once, as announcements.
public final class GuidanceSetup: RouteGuidanceDelegate, Sendable {
    public let manager: DestinationManager
    public let store: UserStore?
    /// The phrases of beacon, marker and route speech, in the user's language and units.
    public var language: GuidanceLanguage { currentLanguage.value }
    private let currentLanguage: Locked<GuidanceLanguage>
    /// The language as a running route reads it, at each of its sentences.
    var liveLanguage: @Sendable () -> GuidanceLanguage { { [currentLanguage] in currentLanguage.value } }
    let map: SpatialDataView?
    let mapPath: String?
    /// The pipeline guidance posts into (set once by the Assistant).
    private let pipeline = Locked<EventProcessor?>(nil)
    let planner = Locked<RoutePlanner?>(nil)
    /// The route the running route behavior follows.
    private let activeRoute = Locked<UUID?>(nil)
    /// The command that started the running route (to start it again after "undo").
    private let activeRequest = Locked<GuidanceRequest?>(nil)
    private let beaconAudio: EngineBeaconAudio?
    private let jobs = SerialJobs()
    /// The kinds of place a walker can ask for (Grammars/kinds.txt).
    let kinds: KindTable
    /// The last list of places answered ("nearest pharmacy", "search …") and the number chosen from it.
    let choices = Locked<(places: [FoundPlace], chosen: Int?)>(([], nil))
    /// The route being made, the question waiting for "yes" or "no", and the running route's waypoints.
    let conversation = Locked(MarkerConversation())

    /// - Parameters:
    ///   - userDatabase: the user database (``AppEnvironment/userDatabase`` unless `--user-db` names one).
    ///   - engine: where the beacon sounds; nil: no beacon sound (printing only).
    ///   - kinds: the kinds of place a walker can ask for (``AppBuilder`` reads them beside the grammars).
    ///   - problem: told when the user database cannot be opened (markers and routes are then off).
    public init(map: SpatialDataView?, mapPath: String?, language code: String, settings appSettings: Settings,
                userDatabase: String, engine: AudioEngine?, restoreBeacon: Bool = true, kinds: KindTable,
                problem: (String) -> Void = { printReply("Problem: \($0)") }) async {
        self.kinds = kinds
        let units = appSettings.units
        let language = (try? GuidanceLanguage(code, units: units)) ?? (try! GuidanceLanguage("en", units: units))
        var settings = appSettings.guidance
        settings.language = language.code
        let path = userDatabase
        do { store = try UserStore(path: path) } catch {
            store = nil
            problem("the user database \(path) cannot be opened (\(error)); markers and routes are off")
        }
        let audio = engine.map {
            EngineBeaconAudio(beacon: $0.beacon, style: appSettings.beaconStyle, ringingAngle: Double(appSettings.beaconRingingAngle),
                              melodies: appSettings.beaconMelodies)
        }
        beaconAudio = audio
        manager = DestinationManager(settings: settings, language: language, audio: audio, store: store)
        currentLanguage = Locked(language)
        self.map = map
        self.mapPath = mapPath
        if restoreBeacon { await manager.restore() }
    }

    /// Speaks beacon, marker and route sentences in this language (when Guidance has it) and these units; a
    /// route being guided follows from its next sentence.
    public func setLanguage(code: String, units: UnitSystem) async {
        let language = (try? GuidanceLanguage(code, units: units)) ?? {
            var same = self.language
            same.units = units
            return same
        }()
        currentLanguage.set(language)
        await manager.setLanguage(language)
    }

    /// A problem as it is spoken and printed everywhere else ("Problem: …").
    static func problem(_ text: String) -> String { "Problem: " + text }

    /// The pipeline guidance speaks through (the Assistant calls it once).
    func attach(_ processor: EventProcessor) { pipeline.set(processor) }

    public var beaconReader: any BeaconStateReader { DestinationBeaconReader(snapshot: manager.snapshot) }
    public var markerReader: (any MarkerReader)? { store.map { StoreMarkerReader(markers: $0.markers) } }
    var processor: EventProcessor? { pipeline.value }

    // MARK: positions

    /// Feeds a fix to the beacon; posts the geofence crossing it caused (a route's waypoints are the route's).
    func update(location here: Coordinate, now: Date) async {
        guard let crossing = await manager.update(location: here, now: now), manager.snapshot.current?.isRouteWaypoint == false
        else { return }
        switch crossing {
        case .entered(let mutedAudio): processor?.post(BeaconGeofenceEvent(didEnter: true, mutedBeacon: mutedAudio))
        case .left: processor?.post(BeaconGeofenceEvent(didEnter: false, mutedBeacon: false))
        }
    }

    // MARK: commands

    /// Carries out a guidance command, speaking its read-back through the pipeline; returns what it changed
    /// (for "undo"), or nil when nothing changed.
    @discardableResult
    func perform(_ request: GuidanceRequest, user: UserState) async -> GuidanceChange? {
        let beaconBefore = await manager.state
        let routeBefore = activeRoute.value
        let requestBefore = activeRequest.value
        if request.asksNothing { conversation.update { $0.question = nil } }
        let marker = await carryOut(request, user: user)
        if let marker { return marker }
        let beaconAfter = await manager.state
        if beaconAfter.beacon != beaconBefore.beacon {
            switch request {
            case .setBeacon, .beaconHere, .removeBeacon, .choose:
                return .beacon(before: beaconBefore.beacon, wasMuted: beaconBefore.userMuted)
            default: break
            }
        }
        switch request {
        case .muteBeacon, .unmuteBeacon:
            if beaconAfter.userMuted != beaconBefore.userMuted { return .beaconMuted(beaconAfter.userMuted) }
        case .takeMeTo, .startRoute, .guideToChoice:
            if let now = activeRoute.value, now != routeBefore {
                activeRequest.set(request)
                return .routeStarted(request)
            }
        case .route(.stop):
            if routeBefore != nil, let requestBefore { return .routeStopped(requestBefore) }
        default: break
        }
        return nil
    }

    /// Takes back a change; speaks nothing itself. Returns the sentence that says how things are now, and the
    /// change this made, so that it can be taken back in turn ("redo"; nil when there would be nothing to take back).
    func undo(_ change: GuidanceChange, user: UserState) async -> (state: String?, reversal: GuidanceChange?) {
        let reversal = await reversal(of: change)
        return (await restore(change, user: user), reversal)
    }

    /// The change that taking back `change` from the state now would make.
    private func reversal(of change: GuidanceChange) async -> GuidanceChange? {
        switch change {
        case .beacon:
            let now = await manager.state
            return .beacon(before: now.beacon, wasMuted: now.userMuted)
        case .beaconMuted(let muted): return .beaconMuted(!muted)
        case .markerSaved(let marker): return .markerDeleted(marker)
        case .markerDeleted(let marker): return .markerSaved(marker)
        case .markerRenamed(let before):
            guard let now = try? store?.markers.marker(id: before.id) else { return nil }
            return .markerRenamed(before: now)
        case .routeStarted(let request): return isRouteActive ? .routeStopped(activeRequest.value ?? request) : nil
        case .routeStopped(let request): return .routeStarted(request)
        case .markerChanged, .routeDraft, .routeSaved, .routeUnsaved, .routeReversed: return markersAndRoutesReversal(of: change)
        }
    }

    /// Restores the state before `change`; returns the sentence that says how things are now.
    private func restore(_ change: GuidanceChange, user: UserState) async -> String? {
        let here = user.location
        let heading = user.headings.collection ?? user.headings.course
        switch change {
        case .beacon(let before, let wasMuted):
            let text: String
            if let before {
                await manager.set(before, from: here)
                let set = await manager.setReadBack(before, heading: heading)
                text = wasMuted ? set.text + ". " + (await manager.mute()).text : set.text
            } else {
                await manager.clear()
                text = language("beacon.removed")
            }
            processor?.post(BeaconChangedEvent(distanceAlreadySpoken: true))
            return text
        case .beaconMuted(let muted):
            return (muted ? await manager.unmute() : await manager.mute()).text
        case .markerSaved(let marker):
            guard let store else { return nil }
            do { _ = try store.markers.delete(marker.id) } catch { return Self.problem(store.describe(error)) }
            return language("marker.deleted", marker.name)
        case .markerDeleted(let marker):
            guard let store else { return nil }
            do { _ = try store.markers.insert(marker) } catch { return Self.problem(store.describe(error)) }
            return language("marker.created", marker.name)
        case .markerRenamed(let before):
            guard let store, let now = try? store.markers.marker(id: before.id) else { return language("marker.not_found", before.name) }
            do { _ = try store.markers.rename(before.id, to: before.name) } catch { return Self.problem(store.describe(error)) }
            return language("marker.renamed", now.name, before.name)
        case .routeStarted:
            guard isRouteActive else { return language("route.none") }
            processor?.post(RouteCommandEvent(.stop))
            return nil
        case .routeStopped(let request):
            await carryOut(request, user: user)
            if isRouteActive { activeRequest.set(request) }
            return nil
        case .markerChanged, .routeDraft, .routeSaved, .routeUnsaved, .routeReversed:
            return await restoreMarkersAndRoutes(change, user: user)
        }
    }

    /// The beacon-off distance (0…50 m), without a read-back (the assistant speaks for the settings). False
    /// when out of range.
    func setBeaconOffDistance(_ meters: Double) async -> Bool {
        guard GuidanceSettings.beaconOffRange.contains(meters) else { return false }
        await manager.updateSettings { _ = try? $0.setBeaconOffDistance(meters) }
        return true
    }

    /// Beacon distance updates on or off.
    func setBeaconDistanceCallouts(_ on: Bool) async {
        await manager.updateSettings { $0.beaconDistanceCallouts = on }
    }

    /// A new beacon style or ringing angle; a beacon that sounds now changes at once.
    func setBeaconSound(style: String, ringingAngle: Double) async {
        guard let beaconAudio else { return }
        let restyled = beaconAudio.update(style: style, ringingAngle: ringingAngle)
        guard let current = manager.snapshot.current, current.isAudioOn else { return }
        if restyled {
            await beaconAudio.startBeacon(at: current.beacon.location, name: current.beacon.name)
        } else {
            beaconAudio.beacon.setRingingAngle(ringingAngle)
        }
    }

    /// The marker commands return what they changed; the others nil.
    @discardableResult
    private func carryOut(_ request: GuidanceRequest, user: UserState) async -> GuidanceChange? {
        guard let processor else { return nil }
        let here = user.location
        let heading = user.headings.collection ?? user.headings.course
        let settings = await manager.settings
        switch request {
        case .setBeacon(let place):
            guard let here else { say(language("plan.no_location")); return nil }
            guard let map else { say(language("plan.no_place", place)); return nil }
            let place = markerName(spoken: place) ?? place
            do {
                let (_, readBack) = try await GuidanceCommands.setBeacon(placeName: place, from: here, heading: heading, map: map,
                                                                         language: language, settings: settings,
                                                                         markers: store?.markers, manager: manager, kinds: kinds)
                speak(readBack)
                processor.post(BeaconChangedEvent(distanceAlreadySpoken: true))
            } catch {
                say(String(describing: error))
            }
        case .beaconHere:
            guard let here else { say(language("plan.no_location")); return nil }
            let beacon = GuidanceCommands.beaconHere(at: here, language: language, settings: settings)
            await manager.set(beacon, from: here)
            speak(await manager.setReadBack(beacon, heading: heading))
            processor.post(BeaconChangedEvent(distanceAlreadySpoken: true))
        case .muteBeacon: speak(await manager.mute())
        case .unmuteBeacon: speak(await manager.unmute())
        case .removeBeacon:
            let had = await manager.beacon != nil
            await manager.clear()
            say(language(had ? "beacon.removed" : "beacon.none"))
            processor.post(BeaconChangedEvent())
        case .whereIsBeacon:
            if isRouteActive { processor.post(BeaconCalloutEvent()) } else { speak(await manager.whereIsBeacon(from: here, heading: heading)) }
        case .beaconOffDistance(let meters):
            speak(await manager.setBeaconOffDistance(meters ?? -1))
        case .saveMarker, .deleteMarker, .renameMarker, .saveBeaconAsMarker, .addNote, .nudgeMarker, .listMarkers, .newRoute,
             .addPlaceToRoute, .addMarkerToRoute, .saveRoute, .reverseRoute, .answer, .confirmName:
            return await carryOutMarkersAndRoutes(request, user: user)
        case .takeMeTo(let place):
            guard let here else { say(language("plan.no_location")); return nil }
            guard let map, let mapPath else { say(language("plan.no_place", place)); return nil }
            let place = markerName(spoken: place) ?? place
            do {
                let planner = try planner.value ?? RoutePlanner.load(mapPath: mapPath)
                self.planner.set(planner)
                let plan = try GuidanceCommands.takeMeTo(placeName: place, from: here, heading: heading, map: map, planner: planner,
                                                         language: language, settings: settings, markers: store?.markers, kinds: kinds)
                // A name matched loosely (a transcript's spelling, a kind, another name of the place) is read back with
                // where it is, so that a wrong match is heard before the walk starts.
                if SlotPhrase.spokenWords(plan.place.name) != SlotPhrase.spokenWords(place) {
                    say(language("plan.found", plan.place.name, language.distance(here.distance(to: plan.place.coordinate)),
                                 language.direction(from: here, to: plan.place.coordinate, heading: nil)))
                }
                say(plan.summary)
                await start(RouteGuidanceBehavior(planned: plan, language: language, settings: settings, delegate: self,
                                                  currentLanguage: liveLanguage), processor: processor)
            } catch {
                say(String(describing: error))
            }
        case .startRoute(let name):
            guard let store, let route = findRoute(name) else { sayRouteNotFound(name); return nil }
            await start(RouteGuidanceBehavior(state: RouteGuidanceState(route: route), language: language,
                                              settings: settings, delegate: self, currentLanguage: liveLanguage), processor: processor)
        case .route(let command):
            if isRouteActive { processor.post(RouteCommandEvent(command)) } else { say(language("route.none")) }
        case .findKind, .search, .choose, .guideToChoice:
            await find(request, user: user, processor: processor)
        }
        return nil
    }

    /// "Stop": the beacon goes quiet too (spec §1.8), while no route is running.
    func hush() async {
        guard manager.snapshot.current?.isAudioOn == true, !isRouteActive else { return }
        speak(await manager.mute())
    }

    var isRouteActive: Bool { activeRoute.value != nil }
    /// True while route guidance runs.
    public var routeIsActive: Bool { isRouteActive }

    func start(_ behavior: sending RouteGuidanceBehavior, processor: EventProcessor) async {
        activeRoute.set(behavior.state.routeID)
        conversation.update { $0.running = behavior.state }
        await manager.suspendGeofence(true)
        await processor.activateCustom(behavior)
    }

    func say(_ text: String, location: Coordinate? = nil) {
        processor?.post(GenericAnnouncementEvent(text, placement: location.map { .localized($0) } ?? .standard))
    }

    /// Posts a command's read-back from Guidance, with its earcon, heard from its place.
    func speak(_ readBack: GuidanceCallout) {
        processor?.post(GenericAnnouncementEvent(readBack.text, glyph: readBack.earcon.flatMap(Glyph.init(rawValue:)),
                                                 placement: readBack.location.map { .localized($0) } ?? .standard,
                                                 action: readBack.interrupts ? .interruptAndClear : .enqueue))
    }

    // MARK: RouteGuidanceDelegate (called inside the processor: the work is queued, in order)

    public func routeSetBeacon(_ beacon: Beacon) {
        jobs.add { [manager] in await manager.set(beacon) }
    }

    public func routeClearBeacon() {
        jobs.add { [manager] in await manager.clear() }
    }

    public func routeStateChanged(_ state: RouteGuidanceState) {
        guard let store else { return }
        jobs.add { _ = try? store.routes.saveProgress(state) }
    }

    public func routeEnded(_ state: RouteGuidanceState) {
        jobs.add { [self] in
            guard activeRoute.value == state.routeID, let processor else { return }
            activeRoute.set(nil)
            await manager.suspendGeofence(false)
            await processor.coordinator.waitUntilIdle()
            await processor.deactivateCustom()
        }
    }
}

/// The beacon's sound on the audio engine's beacon (spec §4.1: mute = stop the sound, unmute = start it again).
final class EngineBeaconAudio: BeaconAudio {
    let beacon: any BeaconPlaying
    /// Style name and ringing angle; changed by voice ("beacon style marimba").
    private let sound: Locked<(style: String, ringingAngle: Double)>
    let melodies: Bool

    init(beacon: any BeaconPlaying, style: String, ringingAngle: Double, melodies: Bool) {
        self.beacon = beacon
        self.sound = Locked((style, ringingAngle))
        self.melodies = melodies
    }

    /// Takes a new style and angle for the next start; true when the style changed.
    func update(style: String, ringingAngle: Double) -> Bool {
        let before = sound.value
        sound.set((style, ringingAngle))
        return before.style != style
    }

    func startBeacon(at location: Coordinate, name: String) async {
        let (name, angle) = sound.value
        guard let style = BeaconStyle.builtIn(name) ?? BeaconStyle.builtIn() else { return }
        beacon.start(BeaconSound(style: style, location: location, ringingAngle: angle, playIntro: melodies))
    }

    func stopBeacon() async { await beacon.stop(playOutro: melodies) }
}

/// Runs queued work one job at a time, in order.
final class SerialJobs: Sendable {
    typealias Job = @Sendable () async -> Void
    private let continuation: AsyncStream<Job>.Continuation

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Job.self)
        self.continuation = continuation
        Task { for await job in stream { await job() } }
    }

    func add(_ job: @escaping Job) { continuation.yield(job) }
}

/// A value behind a lock.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
    func update<R>(_ change: (inout Value) -> R) -> R { lock.withLock { change(&stored) } }
}
