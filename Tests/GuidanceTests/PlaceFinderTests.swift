import Foundation
import Geo
@testable import Guidance
import MapData
import MapTestSupport
import Testing

@Suite("Finding places by kind and by name on the real map")
struct PlaceFinderTests {
    /// Rautatientori, in front of the station.
    static let here = Coordinate(latitude: 60.1705, longitude: 24.9428)

    static func kinds() throws -> KindTable {
        try KindTable.load(path: TestData.packageRoot.appendingPathComponent("Grammars/kinds.txt").path)
    }

    @Test("what a walker calls a place resolves through English names, other names and kinds",
          arguments: [
              ("the market square", "r2919185"),          // name:en "Market Square" (Kauppatori)
              ("the railway station", "n25389429"),       // a kind: the nearest railway=station that is not the metro
              ("the cathedral", "w419479428"),            // a kind: building=cathedral (Helsingin tuomiokirkko)
              ("Helsinki Cathedral", "w419479428"),       // int_name / name:en
              ("steissi", "n25389429"),                   // loc_name
              ("stokmann", "w122595241"),                 // a typo of Stockmann
              ("Havis", "n1376320186"),                   // part of a name
          ])
    func best(spoken: String, key: String) async throws {
        let map = try await HelsinkiMap.get().view
        let found = try #require(try PlaceFinder.best(spoken, from: Self.here, map: map, kinds: Self.kinds()), "nothing for \(spoken)")
        #expect(found.featureKey == key, "\(spoken) → \(found.featureKey) \(found.name)")
    }

    @Test("search lists the places a name matches, nearest first, and says how many")
    func searchByName() async throws {
        let map = try await HelsinkiMap.get().view
        guard case .names(_, let total, let places) = try PlaceFinder.search("kiasma", from: Self.here, map: map, kinds: Self.kinds()) else {
            Issue.record("kiasma is a name, not a kind"); return
        }
        #expect(total >= 1 && places.count == min(total, 5))
        #expect(places.map(\.distance) == places.map(\.distance).sorted())
        #expect(places.allSatisfy { NameNormalizer.normalize($0.name).contains("kiasma") })
    }

    @Test("a kind's name searches the kind; a name that is nothing offers the closest names")
    func searchByKindAndNothing() async throws {
        let map = try await HelsinkiMap.get().view
        guard case .kind(let kind, let places) = try PlaceFinder.search("pharmacies", from: Self.here, map: map, kinds: Self.kinds()) else {
            Issue.record("pharmacies is a kind"); return
        }
        #expect(kind.name == "pharmacy" && places.count >= 3)
        #expect(places.map(\.distance) == places.map(\.distance).sorted())
        guard case .nothing(_, let offeredKinds, _) = try PlaceFinder.search("bakerie shopz", from: Self.here, map: map, kinds: Self.kinds()) else {
            Issue.record("nonsense must find nothing"); return
        }
        #expect(offeredKinds.contains { $0.name == "bakery" }, "\(offeredKinds.map(\.name))")
        guard case .nothing(_, _, let close) = try PlaceFinder.search("Kiasmoo", from: Self.here, map: map, kinds: .empty) else {
            Issue.record("Kiasmoo is too far from any name to be taken for one"); return
        }
        #expect(close.contains { $0.lowercased().contains("kiasma") }, "\(close)")
    }

    @Test("a building with entrances is aimed at its nearest usable entrance, named with its street")
    func entrance() async throws {
        let map = try await HelsinkiMap.get().view
        let building = try #require(try map.feature(key: "w122595241"))
        let entrances = try map.entrances(of: building)
        #expect(!entrances.isEmpty)
        // From each side of the building, the entrance chosen is the nearest usable one there.
        for from in [Coordinate(latitude: 60.1690, longitude: 24.9405), Coordinate(latitude: 60.1686, longitude: 24.9445)] {
            let aimed = PlaceFinder.aim(building, from: from, map: map)
            #expect(aimed.viaEntrance)
            let nearest = try #require(BuildingEntrance.nearestUsable(entrances, from: from))
            #expect(aimed.coordinate == nearest.coordinate)
            #expect(abs(aimed.distance - from.distance(to: nearest.coordinate)) < 0.01)
            let language = try GuidanceLanguage("en")
            #expect(aimed.spokenName(language).hasPrefix("Stockmann, entrance"), "\(aimed.spokenName(language))")
        }
        // A place without entrances is aimed at its nearest point.
        let square = try #require(try map.feature(key: "r2919185"))
        #expect(!PlaceFinder.aim(square, from: Self.here, map: map).viaEntrance)
    }
}
