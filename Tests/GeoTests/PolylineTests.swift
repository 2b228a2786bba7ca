import Testing
import Geo

@Suite("Polyline")
struct PolylineTests {
    // Along the parallel 60.17° N, 24.94° E → 24.96° E (≈ 1106 m, roughly east-west).
    static let a = Coordinate(latitude: 60.17, longitude: 24.94)
    static let b = Coordinate(latitude: 60.17, longitude: 24.96)
    // L shape: a → c (due north, 0.01°) → d (east along 60.18° N).
    static let c = Coordinate(latitude: 60.18, longitude: 24.94)
    static let d = Coordinate(latitude: 60.18, longitude: 24.96)

    @Test func lengthMatchesIndependentSum() {
        // Law-of-cosines segment lengths 282.303667 m + 402.814847 m (Python).
        let line = Polyline([City.helsinki, City.rautatientori, Coordinate(latitude: 60.1720, longitude: 24.9500)])
        #expect(isClose(line.length, 685.118_514, within: 0.001))
        let summed = City.helsinki.distance(to: City.rautatientori)
            + City.rautatientori.distance(to: Coordinate(latitude: 60.1720, longitude: 24.9500))
        #expect(isClose(line.length, summed, within: 1e-9))
        #expect(Polyline([]).length == 0)
        #expect(Polyline([City.helsinki]).length == 0)
        #expect(isClose(Polyline([Self.a, Self.c, Self.d]).length, 1_111.950_802 + 1_105.894_754, within: 0.001))
    }

    @Test func nearestPointOnEastWestSegment() throws {
        let line = Polyline([Self.a, Self.b])
        // 0.001° due north of the segment's middle: foot is (60.17, 24.95), 111.195 m away
        // (0.001° of meridian = R·π/180 000), 553.116 m along (law of cosines).
        let hit = try #require(line.nearestPoint(to: Coordinate(latitude: 60.171, longitude: 24.95)))
        #expect(isClose(hit.coordinate.latitude, 60.17, within: 1e-9))
        #expect(isClose(hit.coordinate.longitude, 24.95, within: 1e-9))
        #expect(isClose(hit.distance, 111.195_080, within: 0.001))
        #expect(hit.segmentIndex == 0)
        #expect(isClose(hit.distanceAlong, 553.115_745, within: 0.001))
    }

    @Test func nearestPointClampsToEndpoints() throws {
        let line = Polyline([Self.a, Self.b])
        let east = try #require(line.nearestPoint(to: Coordinate(latitude: 60.1705, longitude: 24.97)))
        #expect(east.coordinate == Self.b)
        #expect(isClose(east.distance, 555.898_784, within: 0.001))
        #expect(isClose(east.distanceAlong, 1_106.231_488, within: 0.001))
        let west = try #require(line.nearestPoint(to: Coordinate(latitude: 60.169, longitude: 24.93)))
        #expect(west.coordinate == Self.a)
        #expect(west.distanceAlong == 0)
    }

    @Test func nearestPointPicksTheRightSegment() throws {
        let line = Polyline([Self.a, Self.c, Self.d])
        // North of the second leg's middle: foot (60.18, 24.95), 555.975 m away, 1664.898 m along.
        let hit = try #require(line.nearestPoint(to: Coordinate(latitude: 60.185, longitude: 24.95)))
        #expect(hit.segmentIndex == 1)
        #expect(isClose(hit.coordinate.latitude, 60.18, within: 1e-9))
        #expect(isClose(hit.coordinate.longitude, 24.95, within: 1e-9))
        #expect(isClose(hit.distance, 555.975_401, within: 0.001))
        #expect(isClose(hit.distanceAlong, 1_664.898_181, within: 0.001))
        // West of the first leg: foot on segment 0 at latitude 60.175.
        let west = try #require(line.nearestPoint(to: Coordinate(latitude: 60.175, longitude: 24.93)))
        #expect(west.segmentIndex == 0)
        #expect(isClose(west.coordinate.latitude, 60.175, within: 1e-9))
        #expect(isClose(west.coordinate.longitude, 24.94, within: 1e-9))
    }

    @Test func nearestPointDegenerateLines() throws {
        #expect(Polyline([]).nearestPoint(to: Self.a) == nil)
        let single = try #require(Polyline([Self.a]).nearestPoint(to: Self.c))
        #expect(single.coordinate == Self.a)
        #expect(single.segmentIndex == 0 && single.distanceAlong == 0)
        #expect(isClose(single.distance, 1_111.950_802, within: 0.001))
    }

    @Test func pointAtDistance() throws {
        // Along a meridian: 5000 m north of 60° N is 60° + degrees(5000 / R) = 60.0449660182° N.
        let meridian = Polyline([Coordinate(latitude: 60, longitude: 25), Coordinate(latitude: 60.1, longitude: 25)])
        let p = try #require(meridian.point(atDistance: 5_000))
        #expect(isClose(p.latitude, 60.044_966_018_2, within: 1e-9))
        #expect(isClose(p.longitude, 25, within: 1e-9))
        // Half way along a → b on the great circle (vector rotation in Python): 60.1700003766, 24.95.
        let mid = try #require(Polyline([Self.a, Self.b]).point(atDistance: 553.115_745))
        #expect(isClose(mid.latitude, 60.170_000_376_6, within: 1e-9))
        #expect(isClose(mid.longitude, 24.95, within: 1e-9))
    }

    @Test func pointAtDistanceClampsAndCrossesVertices() throws {
        let line = Polyline([Self.a, Self.c, Self.d])
        #expect(line.point(atDistance: -5) == Self.a)
        #expect(line.point(atDistance: 0) == Self.a)
        #expect(line.point(atDistance: 1e9) == Self.d)
        #expect(line.point(atDistance: .infinity) == Self.d)
        #expect(line.point(atDistance: .nan) == nil)
        #expect(Polyline([]).point(atDistance: 1) == nil)
        // 100 m past the corner: 100 m east of c along the second leg.
        let p = try #require(line.point(atDistance: 1_111.950_802 + 100))
        #expect(isClose(Self.c.distance(to: p), 100, within: 0.001))
        #expect(isClose(p.latitude, 60.18, within: 1e-6))
    }

    @Test func pointAndNearestPointRoundTrip() throws {
        let line = Polyline([Self.a, Self.c, Self.d])
        for along in stride(from: 0.0, through: line.length, by: 137.0) {
            let p = try #require(line.point(atDistance: along))
            let hit = try #require(line.nearestPoint(to: p))
            #expect(isClose(hit.distanceAlong, along, within: 0.05))
            #expect(hit.distance < 0.05)
        }
    }

    @Test func bearingAlongLine() throws {
        let line = Polyline([Self.a, Self.c, Self.d])
        // First leg is due north.
        #expect(isCloseAngle(try #require(line.bearing(atDistance: 500, lookAhead: 20)), 0, within: 1e-6))
        // Start of the second leg: initial great-circle bearing c → d is 89.991324° (Python).
        let corner = 1_111.950_802
        #expect(isClose(try #require(line.bearing(atDistance: corner + 0.01, lookAhead: 0)), 89.991_324, within: 1e-4))
        // Exactly on the vertex (the first leg's own length, to the last bit) with no look-ahead:
        // the segment leaving the vertex.
        let exactCorner = Polyline([Self.a, Self.c]).length
        #expect(isClose(exactCorner, corner, within: 0.001))
        #expect(isClose(try #require(line.bearing(atDistance: exactCorner, lookAhead: 0)), 89.991_324, within: 1e-4))
        // Just before the vertex: still the first leg (north).
        #expect(isCloseAngle(try #require(line.bearing(atDistance: exactCorner - 0.01, lookAhead: 0)), 0, within: 1e-6))
        // Window straddling the corner points north-east-ish.
        let turning = try #require(line.bearing(atDistance: corner - 50, lookAhead: 100))
        #expect(turning > 30 && turning < 60)
    }

    @Test func bearingNearTheEndSlidesBack() throws {
        let line = Polyline([Self.a, Self.c, Self.d])
        // The last 20 m of c → d bear 90.008362° (Python, vector method).
        let atEnd = try #require(line.bearing(atDistance: line.length, lookAhead: 20))
        #expect(isClose(atEnd, 90.008_362, within: 1e-4))
        let pastEnd = try #require(line.bearing(atDistance: line.length + 500, lookAhead: 20))
        #expect(isClose(pastEnd, 90.008_362, within: 1e-4))
    }

    @Test func bearingOfDegenerateLines() {
        #expect(Polyline([]).bearing(atDistance: 0, lookAhead: 10) == nil)
        #expect(Polyline([Self.a]).bearing(atDistance: 0, lookAhead: 10) == nil)
        #expect(Polyline([Self.a, Self.a]).bearing(atDistance: 0, lookAhead: 10) == nil)
        #expect(Polyline([Self.a, Self.b]).bearing(atDistance: .nan, lookAhead: 10) == nil)
        // A repeated vertex does not break the segment fallback.
        let withRepeat = Polyline([Self.a, Self.a, Self.b])
        #expect(isClose(withRepeat.bearing(atDistance: 0, lookAhead: 0) ?? -1, 89.991_325, within: 1e-4))
    }
}
