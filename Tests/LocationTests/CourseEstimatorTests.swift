import Foundation
import Geo
import Location
import Testing

@Suite struct CourseEstimatorTests {
    /// Median and 90th percentile of absolute errors.
    func stats(_ errors: [Double]) -> (median: Double, p90: Double) {
        let sorted = errors.sorted()
        return (sorted[sorted.count / 2], sorted[Int(Double(sorted.count) * 0.9)])
    }

    /// On the straight stretches of a real walk, the course derived from the last few seconds matches the direction
    /// the walker actually went (the chord over ±10 s).
    @Test(arguments: ["tracklib/sep/raw/MC_polar.gpx", "tracklib/sep/raw/DC_polar.gpx", "tracklib/sep/raw/FC_garmin.gpx"])
    func derivedCourseFollowsStraightStretches(file: String) throws {
        let fixes = try GPSData.fixes(file)
        var estimator = CourseEstimator()
        let derived = fixes.map { estimator.complete($0).course }
        let c = fixes.map(\.coordinate)
        var errors: [Double] = []
        for i in 10..<(c.count - 10) {
            let before = c[i - 10].distance(to: c[i]), after = c[i].distance(to: c[i + 10])
            guard before > 8, after > 8 else { continue }   // moving
            guard abs(Angle.signedDifference(c[i - 10].bearing(to: c[i]), c[i].bearing(to: c[i + 10]))) < 10 else { continue }
            var path = 0.0
            for j in (i - 10)..<(i + 10) { path += c[j].distance(to: c[j + 1]) }
            guard path < 1.05 * c[i - 10].distance(to: c[i + 10]) else { continue }   // straight
            guard let course = derived[i] else { Issue.record("\(file): no course derived at \(i) while walking"); continue }
            errors.append(abs(Angle.signedDifference(course, c[i - 10].bearing(to: c[i + 10]))))
        }
        #expect(errors.count > 300, "\(file): only \(errors.count) straight samples")
        let (median, p90) = stats(errors)
        #expect(median < 8, "\(file): median course error \(median)°")
        #expect(p90 < 20, "\(file): 90th percentile course error \(p90)°")
    }

    @Test func givenValuesAreKeptAndStandingStillGivesNoCourse() {
        var e = CourseEstimator()
        let start = Coordinate(latitude: 60.17, longitude: 24.94)
        let t0 = Date(timeIntervalSince1970: 0)
        var first = LocationFix(coordinate: start, timestamp: t0)
        first.course = 33
        #expect(e.complete(first).course == 33)
        // Jitter within a metre for five seconds: no course, speed near zero.
        var last = LocationFix(coordinate: start, timestamp: t0)
        for i in 1...5 {
            last = e.complete(LocationFix(coordinate: start.destination(bearing: Double(i * 70), distance: 0.8), timestamp: t0.addingTimeInterval(Double(i))))
        }
        #expect(last.course == nil)
        #expect((last.speed ?? 1) < 0.4)
        // Then walking north at 1.5 m/s.
        var walking = last
        for i in 1...4 {
            walking = e.complete(LocationFix(coordinate: start.destination(bearing: 0, distance: 1.5 * Double(i)), timestamp: t0.addingTimeInterval(Double(5 + i))))
        }
        #expect(abs(Angle.signedDifference(walking.course ?? 180, 0)) < 15)
        #expect(abs((walking.speed ?? 0) - 1.5) < 0.5)
    }
}
