import Foundation
import Testing
@testable import Geo

/// City-centre coordinates; see ReferenceValues.swift.
enum City {
    static let helsinki = Coordinate(latitude: 60.1699, longitude: 24.9384)
    static let tallinn = Coordinate(latitude: 59.4370, longitude: 24.7536)
    static let london = Coordinate(latitude: 51.5074, longitude: -0.1278)
    static let paris = Coordinate(latitude: 48.8566, longitude: 2.3522)
    static let newYork = Coordinate(latitude: 40.7128, longitude: -74.0060)
    static let losAngeles = Coordinate(latitude: 34.0522, longitude: -118.2437)
    static let rautatientori = Coordinate(latitude: 60.1710, longitude: 24.9430)
}

@Suite("Coordinate")
struct CoordinateTests {
    @Test func earthRadiusIsIUGGMean() {
        #expect(Geo.earthRadius == 6_371_008.8)
    }

    @Test func validity() {
        #expect(Coordinate(latitude: 0, longitude: 0).isValid)
        #expect(Coordinate(latitude: 90, longitude: 180).isValid)
        #expect(Coordinate(latitude: -90, longitude: -180).isValid)
        #expect(!Coordinate(latitude: 90.0001, longitude: 0).isValid)
        #expect(!Coordinate(latitude: 0, longitude: -180.0001).isValid)
        #expect(!Coordinate(latitude: .nan, longitude: 0).isValid)
        #expect(!Coordinate(latitude: 0, longitude: .infinity).isValid)
    }

    @Test func codableRoundTripUsesNamedKeys() throws {
        let c = Coordinate(latitude: 60.171, longitude: 24.943)
        let data = try JSONEncoder().encode(c)
        let json = String(decoding: data, as: UTF8.self)
        #expect(json.contains("\"latitude\":60.171"))
        #expect(json.contains("\"longitude\":24.943"))
        #expect(try JSONDecoder().decode(Coordinate.self, from: data) == c)
    }

    // Expected values: spherical law of cosines (see ReferenceValues.swift). Tolerance 0.01 m:
    // the two spherical formulas agree far better than that in double precision.
    @Test("Spherical distance between city pairs", arguments: [
        (City.helsinki, City.tallinn, 82_147.555),
        (City.london, City.paris, 343_556.535),
        (City.newYork, City.losAngeles, 3_935_751.691),
    ])
    func sphericalDistance(a: Coordinate, b: Coordinate, expected: Double) {
        #expect(isClose(a.distance(to: b), expected, within: 0.01))
        #expect(isClose(b.distance(to: a), expected, within: 0.01))
    }

    // Published-style ellipsoidal (WGS-84 Vincenty) distances; the sphere must be within 0.5 %.
    @Test("Distance within 0.5 % of the WGS-84 geodesic", arguments: [
        (City.helsinki, City.tallinn, 82_307.766),
        (City.london, City.paris, 343_923.120),
        (City.newYork, City.losAngeles, 3_944_422.232),
    ])
    func ellipsoidalAgreement(a: Coordinate, b: Coordinate, geodesic: Double) {
        let d = a.distance(to: b)
        #expect(abs(d - geodesic) / geodesic < 0.005)
    }

    @Test func distanceAlongMeridianAndToSelf() {
        // 0.1° of latitude on the sphere is R·π/1800 = 11 119.508 m.
        let a = Coordinate(latitude: 60, longitude: 25)
        let b = Coordinate(latitude: 60.1, longitude: 25)
        #expect(isClose(a.distance(to: b), 11_119.508_023, within: 0.001))
        #expect(a.distance(to: a) == 0)
        // Half way round the equator: π·R.
        let antipode = Coordinate(latitude: 0, longitude: 180)
        #expect(isClose(Coordinate(latitude: 0, longitude: 0).distance(to: antipode), .pi * 6_371_008.8, within: 0.001))
    }

    // Expected values: east/north vector projection (see ReferenceValues.swift). Tolerance 1e-4°.
    @Test("Initial bearing between city pairs", arguments: [
        (City.helsinki, City.tallinn, 187.307_747),
        (City.tallinn, City.helsinki, 7.148_020),
        (City.london, City.paris, 148.115_617),
        (City.paris, City.london, 330.021_093),
        (City.newYork, City.losAngeles, 273.687_132),
        (City.losAngeles, City.newYork, 65.918_840),
    ])
    func initialBearing(a: Coordinate, b: Coordinate, expected: Double) {
        let bearing = a.bearing(to: b)
        #expect(isClose(bearing, expected, within: 1e-4))
        #expect(bearing >= 0 && bearing < 360)
    }

    @Test func cardinalBearings() {
        let o = Coordinate(latitude: 10, longitude: 20)
        #expect(isClose(o.bearing(to: Coordinate(latitude: 11, longitude: 20)), 0, within: 1e-9))
        #expect(isClose(o.bearing(to: Coordinate(latitude: 9, longitude: 20)), 180, within: 1e-9))
        // Due west along the equator is exactly 270, never -90.
        let e = Coordinate(latitude: 0, longitude: 20)
        #expect(isClose(e.bearing(to: Coordinate(latitude: 0, longitude: 19)), 270, within: 1e-9))
        #expect(isClose(e.bearing(to: Coordinate(latitude: 0, longitude: 21)), 90, within: 1e-9))
        #expect(o.bearing(to: o) == 0)
    }

    // Expected values: vector rotation (see ReferenceValues.swift). Tolerance 1e-7° (≈ 1 cm).
    @Test("Destination point", arguments: [
        (Coordinate(latitude: 60.1710, longitude: 24.9430), 45.0, 1_000.0, 60.177_358_540, 24.955_786_929),
        (City.london, 123.0, 250_000.0, 50.245_120_185, 2.821_252_888),
        (Coordinate(latitude: 0, longitude: 179.9), 90.0, 50_000.0, 0.0, -179.650_339_818),
        (Coordinate(latitude: -33.8688, longitude: 151.2093), 300.0, 10_000.0, -33.823_798_486, 151.115_549_632),
    ])
    func destination(start: Coordinate, bearing: Double, distance: Double, lat: Double, lon: Double) {
        let d = start.destination(bearing: bearing, distance: distance)
        #expect(isClose(d.latitude, lat, within: 1e-7))
        #expect(isClose(d.longitude, lon, within: 1e-7))
        #expect(d.isValid)
    }

    @Test("Destination round trip", arguments: [0.0, 37.5, 90.0, 181.0, 270.0, 359.0])
    func destinationRoundTrip(bearing: Double) {
        let start = Coordinate(latitude: 60.1710, longitude: 24.9430)
        for distance in [1.0, 150.0, 5_000.0, 80_000.0] {
            let end = start.destination(bearing: bearing, distance: distance)
            #expect(isClose(start.distance(to: end), distance, within: 1e-6 * distance + 1e-6))
            #expect(isCloseAngle(start.bearing(to: end), bearing, within: 1e-6))
        }
    }

    @Test func relativeAngleToTarget() {
        let here = Coordinate(latitude: 60, longitude: 25)
        let north = Coordinate(latitude: 60.01, longitude: 25)
        // Facing east, something due north is 270° (to the left).
        #expect(isClose(here.relativeAngle(to: north, heading: 90), 270, within: 1e-9))
    }
}
