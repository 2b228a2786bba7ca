@testable import App
import Foundation
import Geo
import Location
import Testing

/// The beacon's callouts through the real assistant, Guidance and pipeline: each is said once, by the one that
/// makes it (a command's read-back by Guidance; the distance updates and the arrival by the pipeline's beacon
/// generator, from the state changes Guidance posts).
@Suite("Beacon callouts through the pipeline")
struct BeaconCalloutsTests {
    static let here = VoiceSettingsTests.here

    @Test func eachBeaconCalloutIsSaidOnceByItsMaker() async throws {
        let h = try await VoiceSettingsTests.harness()
        #expect(await h.say("beacon here") == ["Beacon set on Audio Beacon, close by"])

        // Out 100 m east, a fix every 10 m and 10 s, and back.
        var time = Date().addingTimeInterval(1)
        func walk(to meters: Double) async {
            time += 10
            await h.assistant.locate(LocationFix(coordinate: Self.here.destination(bearing: 90, distance: meters), timestamp: time,
                                                 horizontalAccuracy: 5, speed: 1, course: meters > 0 ? 90 : 270))
            await h.assistant.settle()
        }
        let before = h.output.texts.count
        for m in stride(from: 10.0, through: 100, by: 10) { await walk(to: m) }
        #expect(await h.say("unmute beacon") == ["Beacon unmuted"])
        let stopped = await h.say("stop")
        #expect(stopped.filter { $0 == "Beacon muted" }.count == 1, "\(stopped)")
        #expect(await h.say("unmute beacon") == ["Beacon unmuted"])
        for m in [90.0, 70, 50, 20, 0] { await walk(to: m) }
        let heard = Array(h.output.texts.dropFirst(before))

        // The beacon sounded on the way back: arriving mutes it, once, and says so.
        #expect(heard.filter { $0.hasPrefix("Beacon within") } == ["Beacon within 15 meters. The beacon sound is now off"],
                "\(heard)")
        // Out of the arrival distance at 20 m, then after more than 50 m walked: at 80 m, and at 20 m coming back.
        #expect(heard.filter { $0.hasPrefix("Beacon, ") } == ["Beacon, 20 meters", "Beacon, 80 meters", "Beacon, 20 meters"],
                "\(heard)")
        #expect(await h.say("where is the beacon") == ["Beacon close by"])
    }
}
