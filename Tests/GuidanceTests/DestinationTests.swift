import Foundation
import Geo
@testable import Guidance
import MapTestSupport
import Testing

@Suite("Beacon and arrival geofence")
struct DestinationTests {
    static let beaconPoint = Coordinate(latitude: 60.1676, longitude: 24.9525)
    let en = try! GuidanceLanguage("en")

    /// A jittered fix: the true point moved by up to `amplitude` metres in a random direction.
    static func jitter(_ c: Coordinate, _ amplitude: Double, _ rng: inout SeededRandom) -> Coordinate {
        c.destination(bearing: Double.random(in: 0..<360, using: &rng), distance: Double.random(in: 0...amplitude, using: &rng))
    }

    @Test("one arrival callout at 5, 10, 15 and 20 m with GPS jitter around the boundary", arguments: [5.0, 10, 15, 20])
    func jitterAtBoundary(setting: Double) async throws {
        var settings = GuidanceSettings()
        try settings.setBeaconOffDistance(setting)
        let audio = RecordingBeaconAudio()
        let manager = DestinationManager(settings: settings, language: en, audio: audio)
        var rng = SeededRandom(seed: UInt64(setting))
        var now = Date(timeIntervalSince1970: 1_000_000)
        let approachBearing = 250.0 // the walker comes from the west-south-west
        let start = Self.beaconPoint.destination(bearing: approachBearing, distance: 150)
        await manager.set(Beacon(target: .coordinate, name: "Market", location: Self.beaconPoint), from: start, now: now)
        #expect(await audio.isPlaying)
        #expect(manager.snapshot.current?.isAudioOn == true)
        #expect(manager.snapshot.current?.arrivalDistance == setting)

        var naiveCrossings = 0
        var wasInsideNaive = false
        var crossings: [DestinationManager.GeofenceCrossing] = []
        func feed(_ trueDistance: Double) async {
            let truth = Self.beaconPoint.destination(bearing: approachBearing, distance: trueDistance)
            let fix = Self.jitter(truth, 10, &rng)
            let insideNaive = fix.distance(to: Self.beaconPoint) <= setting
            if insideNaive && !wasInsideNaive { naiveCrossings += 1 }
            wasInsideNaive = insideNaive
            now += 1
            if let crossing = await manager.update(location: fix, now: now) { crossings.append(crossing) }
        }
        // Walk in at 1.3 m/s to the boundary, then linger on it for four minutes.
        var d = 150.0
        while d > setting { await feed(d); d -= 1.3 }
        for _ in 0..<240 { await feed(setting) }
        // Wander just inside and back out to the boundary.
        for k in 0..<60 { await feed(max(0, setting - Double(k % 10))) }

        // The words of an arrival are the pipeline's beacon generator's (GeneratorTests); here, that it happens once.
        #expect(crossings == [.entered(mutedAudio: true)], "setting \(setting) m: \(crossings)")
        #expect(naiveCrossings > 3, "the jitter must really cross the boundary (naive crossings: \(naiveCrossings))")
        #expect(await audio.calls.filter { $0 == .stop }.count == 1)
        #expect(!(await audio.isPlaying))
        #expect(manager.snapshot.current?.isAudioOn == false && manager.snapshot.current?.isInsideGeofence == true)

        // Walking beyond the leave distance and back in is a new arrival; leaving says nothing.
        let leave = settings.leaveDistance
        #expect(leave == max(30, setting + 15))
        for step in 0..<80 { await feed(setting + Double(step)) }
        for step in 0..<80 { await feed(setting + 80 - Double(step)) }
        for _ in 0..<30 { await feed(setting) }
        // The audio stays off after the first arrival, so the second does not claim to mute it.
        #expect(crossings == [.entered(mutedAudio: true), .left, .entered(mutedAudio: false)], "setting \(setting) m: \(crossings)")
    }

    @Test("beacon-off distance: 0–50 m, steps finer than 5 m, leave radius at least 30 m")
    func settingRange() throws {
        var s = GuidanceSettings()
        #expect(s.beaconOffDistance == 15)
        #expect(s.leaveDistance == 30)
        for v in stride(from: 0.0, through: 50, by: 1) {
            #expect(try s.setBeaconOffDistance(v) == v)
            #expect(s.leaveDistance >= 30 && s.leaveDistance >= v + 15)
        }
        #expect(throws: GuidanceSettings.SettingError.self) { try s.setBeaconOffDistance(55) }
        #expect(throws: GuidanceSettings.SettingError.self) { try s.setBeaconOffDistance(-5) }
        #expect(s.beaconOffDistance == 50)
        let decoded = try JSONDecoder().decode(GuidanceSettings.self, from: Data(#"{"beaconOffDistance": 10, "speakStreetNames": false}"#.utf8))
        #expect(decoded.beaconOffDistance == 10 && !decoded.speakStreetNames && decoded.language == "en")
        #expect(throws: (any Error).self) { try JSONDecoder().decode(GuidanceSettings.self, from: Data(#"{"beaconOffDistance": 70}"#.utf8)) }
    }

    @Test("set while already inside: silent, no arrival; delayed start waits until far enough")
    func insideAndDelayed() {
        let settings = GuidanceSettings()
        let now = Date()
        var s = DestinationState()
        (s, _) = DestinationState.reduce(s, .location(Self.beaconPoint.destination(bearing: 0, distance: 8)), settings: settings, now: now)
        var fx: [DestinationState.Effect]
        (s, fx) = DestinationState.reduce(s, .set(Beacon(target: .here, name: "Car", location: Self.beaconPoint)), settings: settings, now: now)
        #expect(s.isInsideGeofence && !s.isAudioOn)
        #expect(!fx.contains { if case .startAudio = $0 { true } else { false } })
        (s, fx) = DestinationState.reduce(s, .location(Self.beaconPoint.destination(bearing: 0, distance: 5)), settings: settings, now: now)
        #expect(!fx.contains { if case .arrived = $0 { true } else { false } })

        // Delayed start: "don't start the beacon until I am more than 40 m away".
        var d = DestinationState()
        (d, _) = DestinationState.reduce(d, .location(Self.beaconPoint), settings: settings, now: now)
        (d, fx) = DestinationState.reduce(d, .set(Beacon(target: .here, name: "Car", location: Self.beaconPoint, delayedStart: 40)),
                                          settings: settings, now: now)
        #expect(!d.isAudioOn && !d.isArmed)
        var started = false
        var armedAt: Double?
        for m in stride(from: 1.0, through: 61, by: 2) {
            (d, fx) = DestinationState.reduce(d, .location(Self.beaconPoint.destination(bearing: 90, distance: m)), settings: settings, now: now)
            if fx.contains(where: { if case .startAudio = $0 { true } else { false } }) { started = true; armedAt = m }
        }
        #expect(started)
        #expect(armedAt == 41)
        #expect(d.isAudioOn && !d.isInsideGeofence)
        // Walking back then arrives once.
        var arrivals = 0
        for m in stride(from: 61.0, through: 1, by: -2) {
            (d, fx) = DestinationState.reduce(d, .location(Self.beaconPoint.destination(bearing: 90, distance: m)), settings: settings, now: now)
            arrivals += fx.filter { if case .arrived = $0 { true } else { false } }.count
        }
        #expect(arrivals == 1)
    }

    @Test("mute, unmute, clear, area arrival, suspended geofence")
    func muteAndArea() {
        let settings = GuidanceSettings()
        let now = Date()
        var s = DestinationState()
        var fx: [DestinationState.Effect]
        (s, _) = DestinationState.reduce(s, .location(Self.beaconPoint.destination(bearing: 0, distance: 200)), settings: settings, now: now)
        (s, fx) = DestinationState.reduce(s, .set(Beacon(target: .coordinate, name: "X", location: Self.beaconPoint)), settings: settings, now: now)
        #expect(fx.contains(.startAudio(Self.beaconPoint)))
        (s, fx) = DestinationState.reduce(s, .mute, settings: settings, now: now)
        #expect(fx == [.stopAudio] && !s.isAudioOn)
        (s, fx) = DestinationState.reduce(s, .unmute, settings: settings, now: now)
        #expect(fx == [.startAudio(Self.beaconPoint)])
        (s, fx) = DestinationState.reduce(s, .clear, settings: settings, now: now)
        #expect(fx == [.stopAudio, .beaconChanged(nil)] && s.beacon == nil)

        // A square 100 m across: being inside counts as arrived even far from its anchor point.
        let c = Self.beaconPoint
        let ring = [c.destination(bearing: 315, distance: 70), c.destination(bearing: 45, distance: 70),
                    c.destination(bearing: 135, distance: 70), c.destination(bearing: 225, distance: 70)]
        var a = DestinationState()
        (a, _) = DestinationState.reduce(a, .location(c.destination(bearing: 0, distance: 300)), settings: settings, now: now)
        (a, _) = DestinationState.reduce(a, .set(Beacon(target: .place(key: "w1"), name: "Square", location: ring[0], area: ring)),
                                         settings: settings, now: now)
        (a, fx) = DestinationState.reduce(a, .location(c.destination(bearing: 180, distance: 20)), settings: settings, now: now)
        #expect(fx.contains { if case .arrived = $0 { true } else { false } })

        // Route guidance handles its own arrivals.
        var r = DestinationState()
        (r, _) = DestinationState.reduce(r, .suspendGeofence(true), settings: settings, now: now)
        (r, _) = DestinationState.reduce(r, .set(Beacon(target: .coordinate, name: "W", location: c)), settings: settings, now: now)
        (r, fx) = DestinationState.reduce(r, .location(c), settings: settings, now: now)
        #expect(fx.isEmpty && r.isAudioOn)
    }

    @Test("voice setting and set-beacon readback")
    func voice() async throws {
        let dir = try TestData.temporaryDirectory("guidance-voice")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try UserStore(path: dir.appendingPathComponent("user.sqlite").path)
        let manager = DestinationManager(language: en, store: store)
        #expect(await manager.setBeaconOffDistance(10).text == "Beacon off distance 10 meters")
        #expect(await manager.setBeaconOffDistance(75).kind == .error)
        #expect(await manager.settings.beaconOffDistance == 10)
        #expect(try store.loadSettings().beaconOffDistance == 10)
        let here = Self.beaconPoint.destination(bearing: 180, distance: 120)
        let market = Beacon(target: .coordinate, name: "Market", location: Self.beaconPoint)
        await manager.set(market, from: here)
        #expect(await manager.setReadBack(market, heading: 0).text == "Beacon set on Market, 120 meters, ahead")
        #expect(await manager.whereIsBeacon(from: here, heading: 90).text == "Beacon on Market, 120 meters, to the left")
        // The beacon survives a restart.
        let restarted = DestinationManager(language: en, store: store)
        await restarted.restore()
        #expect(await restarted.beacon?.name == "Market")
    }
}
