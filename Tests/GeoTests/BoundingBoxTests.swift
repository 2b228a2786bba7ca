import Testing
import Geo

@Suite("BoundingBox")
struct BoundingBoxTests {
    @Test func squareAroundRautatientori() {
        // 1000 m = 0.0089932036° of latitude; ÷ cos(60.171°) = 0.0180799488° of longitude (Python).
        let box = BoundingBox(center: City.rautatientori, radius: 1_000)
        #expect(isClose(box.minLatitude, 60.162_006_796_4, within: 1e-9))
        #expect(isClose(box.maxLatitude, 60.179_993_203_6, within: 1e-9))
        #expect(isClose(box.minLongitude, 24.924_920_051_2, within: 1e-9))
        #expect(isClose(box.maxLongitude, 24.961_079_948_8, within: 1e-9))
        #expect(isClose(box.center.latitude, 60.1710, within: 1e-12))
        #expect(isClose(box.center.longitude, 24.9430, within: 1e-12))
    }

    @Test func edgesOfSquareAreRadiusAway() {
        let c = City.rautatientori
        let box = BoundingBox(center: c, radius: 500)
        // North/south edges are exactly 500 m away along the meridian, east/west along the parallel
        // (a great circle to a point on the same parallel is a hair shorter than the parallel arc).
        #expect(isClose(c.distance(to: Coordinate(latitude: box.maxLatitude, longitude: c.longitude)), 500, within: 1e-6))
        #expect(isClose(c.distance(to: Coordinate(latitude: c.latitude, longitude: box.maxLongitude)), 500, within: 0.01))
    }

    @Test func containsIsInclusive() {
        let box = BoundingBox(minLatitude: 10, minLongitude: 20, maxLatitude: 11, maxLongitude: 22)
        #expect(box.contains(Coordinate(latitude: 10.5, longitude: 21)))
        #expect(box.contains(Coordinate(latitude: 10, longitude: 20)))
        #expect(box.contains(Coordinate(latitude: 11, longitude: 22)))
        #expect(!box.contains(Coordinate(latitude: 11.000_001, longitude: 21)))
        #expect(!box.contains(Coordinate(latitude: 10.5, longitude: 19.999_999)))
        #expect(!box.contains(Coordinate(latitude: .nan, longitude: 21)))
    }

    @Test func intersects() {
        let a = BoundingBox(minLatitude: 0, minLongitude: 0, maxLatitude: 1, maxLongitude: 1)
        let overlapping = BoundingBox(minLatitude: 0.5, minLongitude: 0.5, maxLatitude: 2, maxLongitude: 2)
        let touching = BoundingBox(minLatitude: 1, minLongitude: 0, maxLatitude: 2, maxLongitude: 1)
        let inside = BoundingBox(minLatitude: 0.2, minLongitude: 0.2, maxLatitude: 0.3, maxLongitude: 0.3)
        let eastOnly = BoundingBox(minLatitude: 0, minLongitude: 1.1, maxLatitude: 1, maxLongitude: 2)
        let northOnly = BoundingBox(minLatitude: 1.1, minLongitude: 0, maxLatitude: 2, maxLongitude: 1)
        #expect(a.intersects(overlapping) && overlapping.intersects(a))
        #expect(a.intersects(touching))
        #expect(a.intersects(inside) && inside.intersects(a))
        #expect(!a.intersects(eastOnly) && !eastOnly.intersects(a))
        #expect(!a.intersects(northOnly) && !northOnly.intersects(a))
    }

    @Test func nearPoleSpansAllLongitudes() {
        let box = BoundingBox(center: Coordinate(latitude: 89.995, longitude: 10), radius: 1_000)
        #expect(box.maxLatitude == 90)
        #expect(box.minLongitude == -180 && box.maxLongitude == 180)
    }

    @Test func clampedAtAntimeridian() {
        let box = BoundingBox(center: Coordinate(latitude: 0, longitude: 179.999), radius: 1_000)
        #expect(box.maxLongitude == 180)
        #expect(box.minLongitude < 179.999)
    }
}
