import Callouts
import Geo
import Testing

@Suite struct CalloutPhrasingTests {
    let en = Phrasing(table: try! StringTable(language: "en"))

    @Test(arguments: [(15.4, 5.0, "Stockmann, close by"), (42, 5, "Stockmann, 40 meters"), (42, 15, "Stockmann, about 40 meters"),
                      (42, 35, "Stockmann, around 40 meters"), (250, 35, "Stockmann, 250 meters"), (1234, 35, "Stockmann, 1.25 kilometers")])
    func nameAndDistanceFollowsTheDistanceStyle(_ distance: Double, _ accuracy: Double, _ expected: String) {
        #expect(en.nameAndDistance("Stockmann", distance: distance, accuracy: accuracy) == expected)
    }

    @Test func hedgeWithoutAKnownAccuracyIsPlain() {
        #expect(Phrasing.hedge(distance: 42, accuracy: nil) == .exact)
        #expect(Phrasing.hedge(distance: 15, accuracy: nil) == .closeBy)
    }

    @Test func imperialNamesAndBeacon() {
        let imperial = Phrasing(table: en.table, units: .imperial)
        #expect(imperial.nameAndDistance("Stockmann", distance: 30, accuracy: 5) == "Stockmann, 100 feet")
        #expect(imperial.beaconDistance(400, accuracy: 5) == "Beacon, 0.25 miles")
        #expect(en.beaconDistance(120, accuracy: 5) == "Beacon, 120 meters")
        #expect(en.beaconDistance(40, accuracy: 15) == "Beacon, about 40 meters")
        #expect(en.beaconDistance(14, accuracy: 50) == "Beacon close by")
    }

    @Test func headingSentencesByHeadingSource() {
        #expect(en.heading(90, kind: .walking, along: "Pohjoisesplanadi") == "Heading east along Pohjoisesplanadi")
        #expect(en.heading(10, kind: .facing) == "Facing north")
        #expect(en.heading(225, kind: .traveling, along: "Mannerheimintie") == "Traveling south-west along Mannerheimintie")
        #expect(en.compass(bearing: 337.5) == "north")
        #expect(en.compass(bearing: 337.4) == "north-west")
    }

    @Test func listsJoinNamesTheEnglishWay() {
        #expect(en.list([]) == "")
        #expect(en.list(["Kaivokatu"]) == "Kaivokatu")
        #expect(en.list(["Kaivokatu", "Keskuskatu"]) == "Kaivokatu and Keskuskatu")
        #expect(en.list(["A", "B", "C", "D"]) == "A, B, C and D")
    }

    @Test(arguments: [(0.0, "ahead"), (20, "ahead to the right"), (90, "to the right"), (150, "behind to the right"),
                      (180, "behind"), (200, "behind to the left"), (270, "to the left"), (300, "ahead to the left")])
    func eightWayDirections(_ relative: Double, _ expected: String) {
        #expect(en.direction(RelativeDirection.combined(relativeAngle: relative)) == expected)
    }
}
