import Clocks
import Foundation
import Location
import Testing

@Suite struct MotionClassifierTests {
    let clock = Timeline()

    func feed(_ classifier: inout MotionClassifier<TestClock<Duration>.Instant>, _ speeds: [Double]) -> [MotionState] {
        speeds.map { speed in
            clock.advance(by: .seconds(1))
            return classifier.update(speed: speed, at: clock.now)
        }
    }

    @Test func walkingAndStandingWithHysteresis() {
        var c = MotionClassifier<TestClock<Duration>.Instant>()
        #expect(c.state == .unknown)
        #expect(feed(&c, [0.1]) == [.stationary])
        // One noisy 0.5 m/s sample does not start a walk; two seconds of it do (≥ 1 s sustained).
        #expect(feed(&c, [0.5, 0.1]) == [.stationary, .stationary])
        #expect(feed(&c, [1.2, 1.3]) == [.stationary, .walking])
        // A one-second dip is still walking; two seconds below 0.4 m/s is standing.
        #expect(feed(&c, [0.2, 1.2]) == [.walking, .walking])
        #expect(feed(&c, [0.2, 0.2, 0.1]) == [.walking, .walking, .stationary])
        #expect(!c.state.isInMotion)
    }

    @Test func aVehicleNeedsFiveSecondsAboveFiveMetresPerSecondAndSurvivesStops() {
        var c = MotionClassifier<TestClock<Duration>.Instant>()
        _ = feed(&c, [1.3, 1.3])
        #expect(c.state == .walking)
        // A short sprint is not a vehicle.
        #expect(feed(&c, [6, 6, 6, 1.3]).allSatisfy { $0 == .walking })
        let ride = feed(&c, [7, 8, 9, 10, 11, 12])
        #expect(ride.last == .inVehicle)
        #expect(ride.firstIndex(of: .inVehicle) == 5)   // 5 s after the first fast sample
        #expect(c.state.isInMotion)
        // 20 s stopped at lights: still in the vehicle.
        #expect(feed(&c, Array(repeating: 0, count: 20)).allSatisfy { $0 == .inVehicle })
        #expect(feed(&c, [10, 10]).allSatisfy { $0 == .inVehicle })
        // Off the bus and walking for 30 s: walking.
        let off = feed(&c, Array(repeating: 1.2, count: 31))
        #expect(off.last == .walking)
        #expect(off.dropLast().allSatisfy { $0 == .inVehicle })
    }

    @Test func invalidSpeedsAreIgnored() {
        var c = MotionClassifier<TestClock<Duration>.Instant>()
        #expect(feed(&c, [.nan, -1, .infinity]) == [.unknown, .unknown, .unknown])
    }

    @Test func aRealWalkIsWalking() throws {
        // MC_polar: a 83-minute walk in the Bois de Vincennes (tracklib). Speeds derived from the positions.
        let fixes = try GPSData.fixes("tracklib/sep/raw/MC_polar.gpx")
        var estimator = CourseEstimator()
        var c = MotionClassifier<TestClock<Duration>.Instant>()
        var counts: [MotionState: Int] = [:]
        var previous: Date?
        for fix in fixes {
            let completed = estimator.complete(fix)
            if let previous { clock.advance(by: .seconds(fix.timestamp.timeIntervalSince(previous))) }
            previous = fix.timestamp
            if let s = completed.speed { counts[c.update(speed: s, at: clock.now), default: 0] += 1 }
        }
        let total = counts.values.reduce(0, +)
        #expect(total > 4000)
        #expect(counts[.inVehicle, default: 0] == 0)
        #expect(Double(counts[.walking, default: 0]) / Double(total) > 0.9, "\(counts)")
    }
}
