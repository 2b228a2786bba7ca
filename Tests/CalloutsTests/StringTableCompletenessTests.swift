import Callouts
import Geo
import Testing

@Suite struct StringTableCompletenessTests {
    @Test func everyLanguageHasEveryKeyOfEveryOther() throws {
        let languages = StringTable.availableLanguages
        #expect(languages.contains("en") && languages.contains("de"))
        let tables = try languages.map { try StringTable(language: $0) }
        let all = tables.reduce(into: Set<String>()) { $0.formUnion($1.keys) }
        for table in tables {
            let missing = all.subtracting(table.keys)
            #expect(missing.isEmpty, "\(table.language) lacks \(missing.sorted())")
        }
    }

    @Test func slotsMatchAcrossLanguages() throws {
        let en = try StringTable(language: "en"), de = try StringTable(language: "de")
        for key in en.keys {
            let probe = ["«1»", "«2»", "«3»"]
            for (i, p) in probe.enumerated() {
                #expect(en.format(key, probe).contains(p) == de.format(key, probe).contains(p),
                        "slot \(i + 1) of \(key) differs between en and de")
            }
        }
    }

    @Test func germanPhrasesUseGermanWordsAndDecimalCommas() throws {
        let de = Phrasing(table: try StringTable(language: "de"))
        #expect(de.distances.string(meters: 1234) == "1,25 Kilometer")
        #expect(de.distances.string(meters: 42) == "40 Meter")
        #expect(de.nameAndDistance("Stockmann", distance: 42, accuracy: 15) == "Stockmann, etwa 40 Meter")
        #expect(de.heading(90, kind: .walking, along: "Pohjoisesplanadi") == "Unterwegs nach Osten entlang Pohjoisesplanadi")
        #expect(de.table("intersection.road_left", "Kaivokatu") == "Kaivokatu, geht nach links")
        #expect(de.beaconDistance(10, accuracy: 5) == "Signal ganz nah")
    }
}
