@testable import Audio
import Foundation
import Geo
import Testing

@Suite struct AudioBeaconTests {
    static let listener = Coordinate(latitude: 60.1700, longitude: 24.9400)
    static let beaconNorth = Coordinate(latitude: 60.1750, longitude: 24.9400)   // bearing 0 from the listener

    @Test func angularWindowsFollowTheSpecification() {
        // Four components: centre ±t, offset to 55°, side to 125°, behind.
        let four = { (a: Double, t: Double) in BeaconStyle.component(forAngle: a, componentCount: 4, ringing: t) }
        #expect([0, 15, 345, 14.9].map { four($0, 15) } == [0, 0, 0, 0])
        #expect([15.1, 55, 305, 344.9].map { four($0, 15) } == [1, 1, 1, 1])
        #expect([55.1, 125, 235, 304.9].map { four($0, 15) } == [2, 2, 2, 2])
        #expect([125.1, 180, 234.9, -180].map { four($0, 15) } == [3, 3, 3, 3])
        // The ringing angle is adjustable 5…20° and clamped.
        #expect(four(8, 5) == 1 && four(8, 20) == 0 && four(19, 40) == 0 && four(21, 40) == 1 && four(4, 1) == 0 && four(6, 1) == 1)
        // Three components: centre ±t, offset to 125°, behind.
        let three = { (a: Double) in BeaconStyle.component(forAngle: a, componentCount: 3, ringing: 15) }
        #expect([0, 20, 125, 235, 340, 180].map(three) == [0, 1, 1, 1, 1, 2])
        // Two: on axis ±t, off axis elsewhere; no heading → the last component.
        #expect(BeaconStyle.component(forAngle: 10, componentCount: 2) == 0)
        #expect(BeaconStyle.component(forAngle: 90, componentCount: 2) == 1)
        #expect(BeaconStyle.component(forAngle: nil, componentCount: 4) == 3)
        #expect(BeaconStyle.component(forAngle: .nan, componentCount: 3) == 2)
    }

    @Test func builtInStylesAreBeatExactAndDistinct() {
        for name in BeaconStyle.builtInNames {
            let style = BeaconStyle.builtIn(name)!
            #expect(style.phraseFrames % style.beatsPerPhrase == 0)
            #expect(style.components.count >= 2)
            // The components must sound different: the fuller patterns carry more energy.
            let levels = style.components.map { AudioTestSupport.rms($0[...]) }
            #expect(levels.allSatisfy { $0 > 0.01 })
            for i in 0..<levels.count { for j in (i + 1)..<levels.count {
                let a = style.components[i], b = style.components[j]
                var diff: Float = 0
                for k in a.indices { diff += (a[k] - b[k]) * (a[k] - b[k]) }
                #expect((diff / Float(a.count)).squareRoot() > 0.02, "\(name): components \(i) and \(j) are too alike")
            } }
        }
        #expect(BeaconStyle.builtIn("Chime")!.beatsPerPhrase == 6)
        #expect(abs(Double(BeaconStyle.builtIn("Chime")!.phraseFrames) / 48_000 - 2.416) < 0.001)
    }

    /// The listener turns a full circle and more while the beacon plays: every component change must
    /// fall on a beat boundary, keep the phrase position, and pick the component the angular windows
    /// give for the heading at that moment; no boundary that needed a change may be skipped.
    @Test func turningListenerChangesComponentsOnlyOnBeatsAndByTheWindows() throws {
        let engine = try AudioTestSupport.offlineEngine()
        let style = BeaconStyle.builtIn("Chime")!
        engine.setListener(location: Self.listener, heading: 0)
        engine.beacon.start(BeaconSound(style: style, location: Self.beaconNorth))
        let bearing = Self.listener.bearing(to: Self.beaconNorth)
        let block = engine.configuration.blockFrames
        var headingOfBlock: [Double] = []
        // Turn at 75°/s with some jitter, for 7 s.
        for b in 0..<(7 * 48_000 / block) {
            let t = Double(b * block) / 48_000
            let heading = Angle.normalized(75 * t + 4 * sin(7 * t))
            engine.setHeading(heading)
            headingOfBlock.append(heading)
            engine.render(frames: block)
        }
        let trace = engine.beacon.trace
        let perBeat = style.framesPerBeat
        #expect(trace.count >= 6, "a full turn passes through every window: \(trace.count) changes")
        #expect(Set(trace.map(\.component)) == [0, 1, 2, 3])
        for change in trace {
            #expect(change.phraseFrame % perBeat == 0, "change at \(change.phraseFrame) is not on a beat")
            #expect(change.frame == change.phraseFrame, "no intro: the loop starts at the first frame")
            let heading = headingOfBlock[change.frame / block]
            let expected = BeaconStyle.component(forAngle: heading - bearing, componentCount: 4, ringing: 15)
            #expect(change.component == expected, "heading \(heading): got \(change.component), windows say \(expected)")
            #expect(abs(Angle.signedDifference(change.angle ?? .nan, heading - bearing)) < 1e-6)
        }
        // Replay the windows beat by beat: the changes are exactly where the wanted component changes.
        var wanted: [(Int, Int)] = []
        var last = -1
        for beatStart in stride(from: 0, to: headingOfBlock.count * block, by: perBeat) {
            let c = BeaconStyle.component(forAngle: headingOfBlock[beatStart / block] - bearing, componentCount: 4, ringing: 15)
            if c != last { wanted.append((beatStart, c)); last = c }
        }
        #expect(trace.map(\.frame) == wanted.map(\.0))
        #expect(trace.map(\.component) == wanted.map(\.1))
    }

    @Test func aChangeKeepsThePhrasePosition() throws {
        let engine = try AudioTestSupport.offlineEngine()
        let style = BeaconStyle.builtIn("Chime")!
        engine.setListener(location: Self.listener, heading: 0)
        engine.beacon.start(BeaconSound(style: style, location: Self.beaconNorth))
        engine.render(frames: style.framesPerBeat * 2 + 100)    // into beat 3 of the centre component
        engine.setHeading(90)                                    // now "side"
        engine.render(frames: style.framesPerBeat * 2)
        let change = try #require(engine.beacon.trace.last)
        #expect(change.component == 2)
        #expect(change.phraseFrame == style.framesPerBeat * 3, "switches at the next beat, phrase position kept")
    }

    @Test func withoutHeadingTheBehindPartPlaysQuieter() throws {
        let engine = try AudioTestSupport.offlineEngine()
        let style = BeaconStyle.builtIn("Chime")!
        engine.setListener(location: Self.listener, heading: 180)   // beacon behind: component 3 at full level
        engine.beacon.start(BeaconSound(style: style, location: Self.beaconNorth))
        engine.render(frames: style.phraseFrames * 2)
        engine.setHeading(nil)
        engine.render(frames: style.phraseFrames * 2)
        let rec = engine.recording().samples
        let phrase = style.phraseFrames * 2
        let withHeading = AudioTestSupport.rms(rec[phrase..<(2 * phrase)])
        let without = AudioTestSupport.rms(rec[(3 * phrase)..<(4 * phrase)])
        #expect(engine.beacon.trace.map(\.component) == [3])
        let drop = AudioTestSupport.db(withHeading, without)
        #expect(drop > 6 && drop < 10, "pulled back to 5 m ≈ −8 dB, measured \(drop) dB")
    }

    @Test func muteAndUnmuteFadeWithoutClicks() throws {
        let engine = try AudioTestSupport.offlineEngine()
        let style = BeaconStyle.builtIn("Marimba")!
        engine.setListener(location: Self.listener, heading: 0)
        engine.beacon.start(BeaconSound(style: style, location: Self.beaconNorth))
        engine.render(seconds: 1.0)
        engine.beacon.setMuted(true)
        engine.render(seconds: 1.0)
        engine.beacon.setMuted(false)
        engine.render(seconds: 1.0)
        let rec = engine.recording().samples
        let second = 96_000
        #expect(AudioTestSupport.rms(rec[(second + 2 * 4_800)..<(2 * second)]) < 1e-5, "muted after the fade")
        #expect(AudioTestSupport.rms(rec[(2 * second + 2 * 4_800)..<(3 * second)]) > 0.01, "back after un-muting")
        // The fade takes ≈50 ms: no sample-to-sample jump larger than the playing beacon's own.
        func maxStep(_ r: Range<Int>) -> Float { var m: Float = 0; for i in r { m = max(m, abs(rec[i + 2] - rec[i])) }; return m }
        let normal = maxStep(0..<(second - 2))
        #expect(maxStep((second - 2_000)..<(second + 12_000)) <= normal * 1.05)
        #expect(maxStep((2 * second - 2_000)..<(2 * second + 12_000)) <= normal * 1.05)
        #expect(engine.beacon.isActive)
    }

    @Test func introPlaysFirstAndOutroEndsOnABeat() async throws {
        let engine = try AudioTestSupport.offlineEngine()
        let style = BeaconStyle.builtIn("Chime")!
        engine.setListener(location: Self.listener, heading: 0)
        engine.beacon.start(BeaconSound(style: style, location: Self.beaconNorth, playIntro: true))
        engine.render(seconds: 3)
        let first = try #require(engine.beacon.trace.first)
        #expect(first.frame == style.intro!.count && first.phraseFrame == 0, "the loop starts after the intro")
        let before = engine.renderedFrames
        await engine.beacon.stop(playOutro: true)
        #expect(!engine.beacon.isActive)
        let outroStart = before + (style.framesPerBeat - (before - first.frame) % style.framesPerBeat) % style.framesPerBeat
        let end = outroStart + style.outro!.count
        #expect(engine.renderedFrames >= end && engine.renderedFrames < end + engine.configuration.blockFrames,
                "stop returns right after the end melody")
    }
}
