import Foundation
import Geo
import Location
import Testing

@Suite struct FixFilterTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let here = Coordinate(latitude: 48.8370, longitude: 2.4218)

    func fix(_ c: Coordinate, _ seconds: Double, accuracy: Double? = 5) -> LocationFix {
        LocationFix(coordinate: c, timestamp: t0.addingTimeInterval(seconds), horizontalAccuracy: accuracy)
    }

    @Test func invalidFixesAreDropped() {
        var f = FixFilter()
        #expect(f.admit(fix(Coordinate(latitude: .nan, longitude: 2), 0)) == .failure(.invalidCoordinate))
        #expect(f.admit(fix(Coordinate(latitude: 48, longitude: .infinity), 0)) == .failure(.invalidCoordinate))
        #expect(f.admit(fix(Coordinate(latitude: 91, longitude: 0), 0)) == .failure(.invalidCoordinate))
        #expect(f.admit(fix(here, 0, accuracy: -1)) == .failure(.invalidAccuracy))
        #expect(f.admit(fix(here, 0, accuracy: .nan)) == .failure(.invalidAccuracy))
        #expect(f.last == nil)
        var odd = fix(here, 0)
        odd.speed = .nan
        odd.course = 370
        guard case .success(let cleaned) = f.admit(odd) else { Issue.record("a fix with a NaN speed is still a position"); return }
        #expect(cleaned.speed == nil)
        #expect(cleaned.course == 10)
    }

    @Test func repeatsAndReorderingAreDropped() {
        var f = FixFilter()
        #expect(f.admit(fix(here, 1)) == .success(fix(here, 1)))
        #expect(f.admit(fix(here, 1)) == .failure(.outOfOrder))
        #expect(f.admit(fix(here, 0.5)) == .failure(.outOfOrder))
        #expect(f.admit(fix(here, 2)) == .success(fix(here, 2)))
    }

    @Test func aClockThatWentBackIsFollowedAfterThreeFixesButARepeatNeverGetsIn() {
        var f = FixFilter()
        // One fix stamped six days ahead (our clock, before the receiver gave a date); then the receiver's times.
        _ = f.admit(fix(here, 6 * 86_400), motion: .walking)
        func step(_ s: Double) -> LocationFix { fix(here.destination(bearing: 90, distance: 1.4 * s), s) }
        #expect(f.admit(step(1), motion: .walking) == .failure(.outOfOrder))
        #expect(f.admit(step(2), motion: .walking) == .failure(.outOfOrder))
        #expect(f.admit(step(3), motion: .walking) == .success(step(3)))
        #expect(f.admit(step(4), motion: .walking) == .success(step(4)))
        // A fix repeated any number of times, or reordered fixes among in-order ones, never start a new order.
        for _ in 0..<5 { #expect(f.admit(step(4), motion: .walking) == .failure(.outOfOrder)) }
        for s in 5..<10 {
            #expect(f.admit(step(Double(s) - 1.5), motion: .walking) == .failure(.outOfOrder))
            #expect(f.admit(step(Double(s)), motion: .walking) == .success(step(Double(s))))
        }
        // Earlier fixes that are far apart do not agree with one another: no new order from them either.
        for s in 1...4 {
            #expect(f.admit(fix(here.destination(bearing: 90 * Double(s), distance: 5_000), Double(s)), motion: .walking) == .failure(.outOfOrder))
        }
    }

    @Test func theJumpFilterKeepsEveryRealWalkingFix() throws {
        // Every walk of the tracklib multi-receiver set (Polar, Garmin, Keymaze, phone), 1 Hz, 35,000+ fixes.
        for name in ["MC_polar", "MC_garmin", "MC_telephone", "DC_polar", "DC_garmin", "FC_garmin", "FC_keymaze", "FC_telephone"] {
            let fixes = try GPSData.fixes("tracklib/sep/raw/\(name).gpx")
            var f = FixFilter()
            var dropped: [FixRejection] = []
            for fix in fixes {
                if case .failure(let why) = f.admit(fix, motion: .walking) { dropped.append(why) }
            }
            #expect(dropped.isEmpty, "\(name): \(dropped.count) real fixes dropped: \(dropped.prefix(5))")
        }
    }

    @Test func anInjected500MetreJumpIsDroppedAndTheWalkGoesOn() throws {
        var fixes = try GPSData.fixes("tracklib/sep/raw/MC_polar.gpx")
        #expect(fixes.count == 4954)
        // Replace fix 1000 by the same moment 500 m away (a multipath glitch); the polar file has no accuracy.
        let glitch = 1000
        fixes[glitch].coordinate = fixes[glitch].coordinate.destination(bearing: 135, distance: 500)
        var f = FixFilter()
        var dropped: [Int] = []
        for (i, fix) in fixes.enumerated() {
            if case .failure(let why) = f.admit(fix, motion: .walking) {
                #expect(why == .impossibleJump)
                dropped.append(i)
            }
        }
        #expect(dropped == [glitch])
    }

    @Test func aJumpIsDroppedEvenWhenMotionIsUnknown() {
        var f = FixFilter()
        _ = f.admit(fix(here, 0))
        #expect(f.admit(fix(here.destination(bearing: 0, distance: 500), 1)) == .failure(.impossibleJump))
        // 500 m in 10 s is 50 m/s: a train, possible when we do not know the user is on foot…
        #expect(f.admit(fix(here.destination(bearing: 0, distance: 500), 10)) != .failure(.impossibleJump))
        // …but not for someone walking.
        var g = FixFilter()
        _ = g.admit(fix(here, 0), motion: .walking)
        #expect(g.admit(fix(here.destination(bearing: 0, distance: 500), 10), motion: .walking) == .failure(.impossibleJump))
    }

    @Test func accuracyIsAllowedFor() {
        var f = FixFilter()
        _ = f.admit(fix(here, 0, accuracy: 60))
        // 150 m in 1 s with 60 m + 60 m uncertainty: 30 m/s, allowed for an unknown motion.
        #expect(f.admit(fix(here.destination(bearing: 90, distance: 150), 1, accuracy: 60)) != .failure(.impossibleJump))
    }

    @Test func consistentRejectedFixesReanchor() {
        var f = FixFilter()
        _ = f.admit(fix(here, 0), motion: .walking)
        let elsewhere = here.destination(bearing: 200, distance: 2_000)
        #expect(f.admit(fix(elsewhere, 1), motion: .walking) == .failure(.impossibleJump))
        #expect(f.admit(fix(elsewhere.destination(bearing: 0, distance: 1), 2), motion: .walking) == .failure(.impossibleJump))
        // The third fix that agrees with the other two: the receiver really is there.
        guard case .success = f.admit(fix(elsewhere.destination(bearing: 0, distance: 2), 3), motion: .walking) else {
            Issue.record("the filter must follow a receiver that really moved"); return
        }
        #expect(f.admit(fix(elsewhere.destination(bearing: 0, distance: 3), 4), motion: .walking) == .success(fix(elsewhere.destination(bearing: 0, distance: 3), 4)))
    }

    @Test func aRealGlitchInARecordedTrackIsCaught() throws {
        // gpxpy's cerknicko-jezero.gpx (a real 2 h track) contains one step of ~92 m/s.
        let fixes = try GPSData.fixes("gpxpy/cerknicko-jezero.gpx")
        var f = FixFilter()
        var dropped = 0
        for fix in fixes { if case .failure = f.admit(fix) { dropped += 1 } }
        #expect(dropped >= 1 && dropped <= 3, "dropped \(dropped) of \(fixes.count)")
    }
}
