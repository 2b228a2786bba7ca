@testable import Audio
import Foundation
import Geo
import Testing

/// The beacon's control side on a fake mixer (commands recorded, its end reported by the test), and its part by
/// heading on an offline render.
@Suite struct BeaconPlayerTests {
    static let place = Coordinate(latitude: 60.1750, longitude: 24.9400)
    static let listener = Coordinate(latitude: 60.1700, longitude: 24.9400)   // the place is due north

    @Test func startHandsTheMixerTheStyleThePlaceTheLevelAndTheWindow() throws {
        let port = FakeMixerPort()
        let beacon = port.makeBeacon(level: 0.5)
        let style = try #require(BeaconStyle.builtIn("Chime"))
        beacon.start(BeaconSound(style: style, location: Self.place, ringingAngle: 10, playIntro: true))
        let start = try #require(port.sent.first)
        #expect(port.kinds == [.beaconStart] && port.wakes == 1)
        #expect(start.placement == .localized(latitude: Self.place.latitude, longitude: Self.place.longitude))
        #expect(start.value == 0.5 && start.value2 == 10 && start.flag)
        let assets = try #require(start.assets).takeUnretainedValue()
        #expect(assets.componentCount == style.components.count && assets.beats == style.beatsPerPhrase)
        #expect(beacon.isActive && !beacon.isMuted)
        port.endBeacon(start.id)
        #expect(!beacon.isActive)
    }

    @Test func muteLevelPlaceAndWindowGoToTheMixerClamped() throws {
        let port = FakeMixerPort()
        let beacon = port.makeBeacon()
        beacon.start(BeaconSound(style: try #require(BeaconStyle.builtIn()), location: Self.place))
        beacon.setMuted(true)
        #expect(beacon.isMuted && beacon.isActive, "muted, the beacon still runs")
        beacon.setMuted(false)
        beacon.setRingingAngle(40)
        beacon.setRingingAngle(1)
        beacon.setLevel(2)
        beacon.setLocation(Self.listener)
        let sent = Array(port.sent.dropFirst())
        #expect(sent.map(\.kind) == [.beaconMute, .beaconMute, .beaconRinging, .beaconRinging, .beaconLevel, .beaconLocation])
        #expect(sent.map(\.flag).prefix(2) == [true, false])
        #expect(sent[2].value == 20 && sent[3].value == 5 && sent[4].value == 1)
        #expect(sent[5].placement == .localized(latitude: Self.listener.latitude, longitude: Self.listener.longitude))
        // The next start takes the level set since.
        beacon.start(BeaconSound(style: try #require(BeaconStyle.builtIn()), location: Self.place))
        #expect(port.sent.last?.kind == .beaconStart && port.sent.last?.value == 1 && !beacon.isMuted)
    }

    @Test func aNewBeaconReplacesTheOldOneAndItsEndDoesNotStopTheNew() throws {
        let port = FakeMixerPort()
        let beacon = port.makeBeacon()
        let style = try #require(BeaconStyle.builtIn())
        beacon.start(BeaconSound(style: style, location: Self.place))
        beacon.start(BeaconSound(style: style, location: Self.listener))
        let ids = port.sent.filter { $0.kind == .beaconStart }.map(\.id)
        #expect(ids.count == 2 && ids[0] != ids[1])
        port.endBeacon(ids[0])   // the mixer ends the old one when it takes the new one
        #expect(beacon.isActive)
        port.endBeacon(ids[1])
        #expect(!beacon.isActive)
    }

    @Test func stopReturnsWhenTheMixerReportsTheEnd() async throws {
        let port = FakeMixerPort(endsOnAdvance: true)
        let beacon = port.makeBeacon()
        await beacon.stop(playOutro: true)
        #expect(port.sent.isEmpty, "no beacon: nothing to stop")
        beacon.start(BeaconSound(style: try #require(BeaconStyle.builtIn()), location: Self.place))
        await beacon.stop(playOutro: true)
        #expect(port.kinds == [.beaconStart, .beaconStop] && port.sent[1].flag)
        #expect(!beacon.isActive)
    }

    @Test func closeLetsAWaitingStopReturnAndRefusesStarts() async throws {
        let port = FakeMixerPort()   // reports nothing by itself: stop waits until close
        let beacon = port.makeBeacon()
        beacon.start(BeaconSound(style: try #require(BeaconStyle.builtIn()), location: Self.place))
        let stopping = Task { await beacon.stop(playOutro: false) }
        while !port.kinds.contains(.beaconStop) { await Task.yield() }
        beacon.close()
        await stopping.value
        beacon.start(BeaconSound(style: try #require(BeaconStyle.builtIn()), location: Self.place))
        #expect(!beacon.isActive && port.kinds == [.beaconStart, .beaconStop])
    }

    @Test func componentReportsMakeTheTrace() {
        let port = FakeMixerPort()
        let beacon = port.makeBeacon()
        beacon.handle(MixerEvent(kind: .beaconComponent, id: 1, frame: 100, phraseFrame: 0, component: 3, angle: .nan))
        beacon.handle(MixerEvent(kind: .beaconComponent, id: 1, frame: 24_268, phraseFrame: 24_168, component: 0, angle: 12))
        #expect(beacon.trace == [BeaconComponentChange(frame: 100, phraseFrame: 0, component: 3, angle: nil),
                                 BeaconComponentChange(frame: 24_268, phraseFrame: 24_168, component: 0, angle: 12)])
    }

    /// Offline, on the real mixer: the beacon heading set through the player picks the part by the angular windows,
    /// on the next beat; without one the behind part plays.
    @Test func thePartFollowsTheBeaconHeading() throws {
        let engine = try AudioTestSupport.offlineEngine()
        let style = try #require(BeaconStyle.builtIn("Chime"))
        engine.setListener(location: Self.listener, heading: 0)
        engine.beacon.start(BeaconSound(style: style, location: Self.place))
        let headings: [Double?] = [0, 40, 90, 180, 320, nil, 350]
        var parts: [Int] = []
        for heading in headings {
            engine.beacon.setHeading(heading)
            engine.render(frames: style.framesPerBeat)
            parts.append(try #require(engine.beacon.trace.last).component)
        }
        let bearing = Self.listener.bearing(to: Self.place)
        let expected = headings.map { BeaconStyle.component(forAngle: $0.map { $0 - bearing }, componentCount: 4, ringing: 15) }
        #expect(parts == expected)
        #expect(parts == [0, 1, 2, 3, 1, 3, 0])
        #expect(engine.beacon.trace.allSatisfy { $0.phraseFrame % style.framesPerBeat == 0 }, "changes fall on beats")
    }
}
