import Testing
import Geo

@Suite("CompassDirection")
struct CompassDirectionTests {
    // Sectors are 45° wide centred on each point; the lower edge is inclusive.
    @Test("sector edges", arguments: [
        (0.0, CompassDirection.north), (22.4999, .north), (22.5, .northEast),
        (45.0, .northEast), (67.4999, .northEast), (67.5, .east),
        (90.0, .east), (112.4999, .east), (112.5, .southEast),
        (135.0, .southEast), (157.4999, .southEast), (157.5, .south),
        (180.0, .south), (202.4999, .south), (202.5, .southWest),
        (225.0, .southWest), (247.4999, .southWest), (247.5, .west),
        (270.0, .west), (292.4999, .west), (292.5, .northWest),
        (315.0, .northWest), (337.4999, .northWest), (337.5, .north),
        (359.9999, .north), (360.0, .north),
        (-22.5, .north), (-22.5001, .northWest), (-90.0, .west), (405.0, .northEast),
    ])
    func sector(bearing: Double, expected: CompassDirection) {
        #expect(CompassDirection(bearing: bearing) == expected)
    }

    @Test func nonFiniteBearingIsNorth() {
        #expect(CompassDirection(bearing: .nan) == .north)
        #expect(CompassDirection(bearing: -.infinity) == .north)
    }

    @Test func nominalBearingsAndKeys() {
        #expect(CompassDirection.allCases.map(\.bearing) == [0, 45, 90, 135, 180, 225, 270, 315])
        #expect(CompassDirection.allCases.map(\.rawValue) == [
            "north", "north_east", "east", "south_east", "south", "south_west", "west", "north_west",
        ])
    }

    @Test func helsinkiToTallinnIsSouth() {
        // Bearing ≈ 187.3° (see CoordinateTests).
        #expect(CompassDirection(bearing: City.helsinki.bearing(to: City.tallinn)) == .south)
    }
}
