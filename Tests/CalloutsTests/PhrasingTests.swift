import Callouts
import Geo
import Testing

@Suite struct PhrasingTests {
    let en = try! StringTable(language: "en")

    @Test(arguments: [(12.0, "10 meters"), (13.0, "15 meters"), (0.0, "0 meters"), (997.0, "1 kilometer"),
                      (1234.0, "1.25 kilometers"), (2000.0, "2 kilometers"), (3.0, "5 meters"), (970.0, "970 meters"), (1000.0, "1 kilometer"), (3460, "3.45 kilometers")])
    func metricDistancesRoundAsSoundscapeDoes(_ meters: Double, _ expected: String) {
        #expect(DistanceFormatter(units: .metric, table: en).string(meters: meters) == expected)
    }

    @Test(arguments: [(30.0, "100 feet"), (400.0, "0.25 miles"), (1609.344, "1 mile"), (3.0, "10 feet")])
    func imperialDistances(_ meters: Double, _ expected: String) {
        #expect(DistanceFormatter(units: .imperial, table: en).string(meters: meters) == expected)
    }

    @Test func placesHedgeByAccuracyAndSayCloseBy() {
        let p = Phrasing(table: en)
        #expect(p.place("Stockmann", distance: 42, direction: .aheadRight, accuracy: 5) == "Stockmann, 40 meters, ahead to the right")
        #expect(p.place("Stockmann", distance: 42, direction: .aheadRight, accuracy: 15) == "Stockmann, about 40 meters, ahead to the right")
        #expect(p.place("Stockmann", distance: 42, direction: .left, accuracy: 35) == "Stockmann, around 40 meters, to the left")
        #expect(p.place("Stockmann", distance: 250, direction: .left, accuracy: 35) == "Stockmann, 250 meters, to the left")
        #expect(p.place("Havis Amanda", distance: 15.4, direction: .behind, accuracy: 5) == "Havis Amanda, close by")
        #expect(p.place("Havis Amanda", distance: 15.6, direction: .behind, accuracy: 5) == "Havis Amanda, 15 meters, behind")
    }

    @Test func slotsAreFilledByPositionAndMissingKeysAreAudible() {
        let t = StringTable(language: "xx", strings: ["two": "%2$@ before %1$@", "plain": "100%"])
        #expect(t("two", "a", "b") == "b before a")
        #expect(t("plain") == "100%")
        #expect(t("nope") == "[nope]")
    }

    @Test func everyDirectionAndCompassKeyHasAPhrase() {
        let p = Phrasing(table: en)
        for d in RelativeDirection.allCases { #expect(!p.direction(d).hasPrefix("[")) }
        for c in CompassDirection.allCases { #expect(!p.compass(c).hasPrefix("[")) }
        #expect(p.direction(nil) == "away")
    }
}
