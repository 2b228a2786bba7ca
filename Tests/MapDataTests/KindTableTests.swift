import Foundation
@testable import MapData
import MapTestSupport
import Testing

@Suite("Kinds table")
struct KindTableTests {
    static let sample = """
        # a comment
        pharmacy / pharmacies, chemist / chemists = amenity=pharmacy | healthcare=pharmacy

        railway station / railway stations = railway=station & station!=subway | railway=halt   # trailing comment
        shop / shops = shop=*
        drinking water = amenity=drinking_water
        """

    @Test("names, plurals and tag alternatives are read as written")
    func parsesLines() throws {
        let table = try KindTable.parse(Self.sample, path: "kinds.txt")
        #expect(table.kinds.map(\.name) == ["pharmacy", "railway station", "shop", "drinking water"])
        let pharmacy = try #require(table.kinds.first)
        #expect(pharmacy.plural == "pharmacies")
        #expect(pharmacy.names == ["pharmacy", "pharmacies", "chemist", "chemists"])
        #expect(pharmacy.matches == [[TagCondition(key: "amenity", value: "pharmacy")], [TagCondition(key: "healthcare", value: "pharmacy")]])
        #expect(pharmacy.origin == "kinds.txt:2")
        let station = table.kinds[1]
        #expect(station.matches[0] == [TagCondition(key: "railway", value: "station"),
                                       TagCondition(key: "station", value: "subway", negated: true)])
        #expect(station.origin == "kinds.txt:4")
        #expect(table.kinds[2].matches == [[TagCondition(key: "shop", value: nil)]])
        // No plural given: the name serves for both.
        #expect(table.kinds[3].plural == "drinking water")
        #expect(table.kinds[3].counted(3) == "drinking water")
        #expect(pharmacy.counted(1) == "pharmacy" && pharmacy.counted(2) == "pharmacies")
    }

    @Test("tag tests match feature tags: exact, any value, and any value but one")
    func matching() throws {
        let table = try KindTable.parse(Self.sample, path: "kinds.txt")
        let station = table.kinds[1]
        #expect(station.matches(["railway": "station", "name": "Helsinki"]))
        #expect(station.matches(["railway": "station", "station": "train"]))
        #expect(!station.matches(["railway": "station", "station": "subway"]))
        #expect(station.matches(["railway": "halt"]))
        #expect(!station.matches(["railway": "platform"]))
        #expect(table.kinds[2].matches(["shop": "books"]))
        #expect(!table.kinds[2].matches(["amenity": "cafe"]))
    }

    @Test("a spoken kind is found by any of its names, singular or plural, with an article or accents")
    func lookupByName() throws {
        let table = try KindTable.parse(Self.sample, path: "kinds.txt")
        #expect(table.kind(named: "pharmacies")?.name == "pharmacy")
        #expect(table.kind(named: "the Chemist")?.name == "pharmacy")
        #expect(table.kind(named: "a railway station")?.name == "railway station")
        #expect(table.kind(named: "Phármacy")?.name == "pharmacy")
        #expect(table.kind(named: "spaceport") == nil)
    }

    @Test("an unknown kind is offered the closest ones")
    func closestKinds() throws {
        let table = try KindTable.parse(Self.sample, path: "kinds.txt")
        #expect(table.closest(to: "pharmacie", limit: 1).map(\.name) == ["pharmacy"])
        #expect(table.closest(to: "station", limit: 1).map(\.name) == ["railway station"])
        #expect(table.closest(to: "water", limit: 1).map(\.name) == ["drinking water"])
    }

    @Test("a bad line is reported with the file, the line and what to write",
          arguments: [
              ("pharmacy amenity pharmacy", "no \"=\""),
              ("Pharmacy = amenity=pharmacy", "lower-case"),
              ("pharmacy / = amenity=pharmacy", "singular / plural"),
              ("pharmacy = amenity", "not a tag test"),
              ("pharmacy = amen ity=pharmacy", "not an OpenStreetMap key"),
              ("pharmacy = amenity=", "has no value"),
              ("pharmacy = station!=subway", "at least one tag"),
              ("cafe = amenity=cafe\nshop / cafe = shop=*", "already a kind on line 2"),
          ])
    func badLines(line: String, message: String) throws {
        let text = "# header\n" + line + "\n"
        do {
            _ = try KindTable.parse(text, path: "/x/kinds.txt")
            Issue.record("\(line) must not be accepted")
        } catch let error as KindTableError {
            #expect(error.path == "/x/kinds.txt")
            #expect(error.line == 1 + line.split(separator: "\n").count)
            #expect(error.description.hasPrefix("/x/kinds.txt:\(error.line): "))
            #expect(error.message.contains(message), "\(error)")
        }
    }

    @Test("the shipped table reads, every walker's kind is in it, and no name is given twice")
    func shippedTable() throws {
        let path = TestData.packageRoot.appendingPathComponent("Grammars/kinds.txt").path
        let table = try KindTable.load(path: path)
        for name in ["pharmacy", "cafe", "bakery", "restaurant", "supermarket", "atm", "bank", "toilet", "bus stop", "tram stop",
                     "metro station", "railway station", "ferry terminal", "park", "bench", "drinking water",
                     "crossing with signals", "post office", "hospital", "doctor"] {
            #expect(table.kind(named: name) != nil, "no kind \(name)")
        }
        #expect(table.kind(named: "toilets")?.name == "toilet")
        #expect(table.kind(named: "cash machine")?.name == "atm")
        let names = table.kinds.flatMap(\.names)
        #expect(Set(names).count == names.count)
    }
}
