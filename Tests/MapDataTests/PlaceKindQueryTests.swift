import Foundation
import Geo
@testable import MapData
import MapTestSupport
import Testing

@Suite("Nearest of a kind and entrances on the real map")
struct PlaceKindQueryTests {
    static let pharmacy = PlaceKind(name: "pharmacy", plural: "pharmacies", names: ["pharmacy"],
                                    matches: [[TagCondition(key: "amenity", value: "pharmacy")],
                                              [TagCondition(key: "healthcare", value: "pharmacy")]])

    /// Pharmacies straight from the file (osmium), nearest first, a name given twice within 25 m once.
    static func osmiumPharmacies(from point: Coordinate) throws -> [(id: String, distance: Double)] {
        let elements = Osmium.parseOPL(try Osmium.run(["tags-filter", "-f", "opl", "-o", "-", try TestData.helsinki(),
                                                       "n/amenity=pharmacy", "n/healthcare=pharmacy"]))
        var found: [(id: String, name: String?, at: Coordinate, distance: Double)] = []
        for e in elements where e.id.hasPrefix("n") && (e.tags["amenity"] == "pharmacy" || e.tags["healthcare"] == "pharmacy") {
            guard let lat = e.latitude, let lon = e.longitude else { continue }
            let c = Coordinate(latitude: lat, longitude: lon)
            found.append((e.id, e.tags["name"], c, point.distance(to: c)))
        }
        found.sort { $0.distance < $1.distance }
        var kept: [(id: String, name: String?, at: Coordinate, distance: Double)] = []
        for f in found where !kept.contains(where: { $0.name != nil && $0.name == f.name && $0.at.distance(to: f.at) < 25 }) {
            kept.append(f)
        }
        return kept.map { ($0.id, $0.distance) }
    }

    @Test("the nearest pharmacies are the ones a scan of the file finds, in order, with the same distances",
          arguments: [Coordinate(latitude: 60.1690, longitude: 24.9520), Coordinate(latitude: 60.1775, longitude: 24.9480)])
    func nearestPharmacies(from point: Coordinate) async throws {
        let view = try await SharedHelsinki.get().view
        let oracle = try Self.osmiumPharmacies(from: point)
        #expect(oracle.count >= 3)
        let ours = try view.nearest(Self.pharmacy, to: point, limit: 3)
        #expect(ours.map(\.feature.key) == oracle.prefix(3).map(\.id))
        for (a, b) in zip(ours, oracle) { #expect(abs(a.distance - b.distance) < 1 + b.distance * 0.002, "\(a.feature.key): \(a.distance) vs \(b.distance)") }
    }

    @Test("the search widens until it finds a kind that is far away, and says nothing of what is not there")
    func widening() async throws {
        let view = try await SharedHelsinki.get().view
        // The far north-east corner of the extract: the pharmacies are 800 m and more away, beyond the first ring.
        let corner = Coordinate(latitude: 60.1785, longitude: 24.9530)
        let far = try view.nearest(Self.pharmacy, to: corner, limit: 1)
        #expect(far.count == 1 && far[0].distance > 300)
        let nothing = PlaceKind(name: "spaceport", plural: "spaceports", names: [], matches: [[TagCondition(key: "aeroway", value: "spaceport")]])
        #expect(try view.nearest(nothing, to: corner, limit: 3, maxRadius: 3000).isEmpty)
    }

    @Test("a kind's tags test any tag, not only the main one, and a negated test excludes")
    func secondaryTags() async throws {
        let view = try await SharedHelsinki.get().view
        let trainStation = PlaceKind(name: "railway station", plural: "railway stations", names: [],
                                     matches: [[TagCondition(key: "railway", value: "station"),
                                                TagCondition(key: "station", value: "subway", negated: true)]])
        let here = Coordinate(latitude: 60.1705, longitude: 24.9428)
        for f in try view.nearest(trainStation, to: here, limit: 5) {
            #expect(f.feature.tags["railway"] == "station" && f.feature.tags["station"] != "subway")
        }
        #expect(try view.nearest(trainStation, to: here, limit: 1).first?.feature.key == "n25389429")
    }

    @Test("the entrance chosen is the nearest usable one; emergency and private doors are not")
    func entranceChoice() {
        let origin = Coordinate(latitude: 60.1680, longitude: 24.9420)
        func at(_ metresNorth: Double) -> Coordinate { origin.destination(bearing: 0, distance: metresNorth) }
        let main = BuildingEntrance(nodeID: 1, coordinate: at(40), kind: "main", buildingFeatureID: 9)
        let side = BuildingEntrance(nodeID: 2, coordinate: at(30), kind: "yes", buildingFeatureID: 9)
        let emergency = BuildingEntrance(nodeID: 3, coordinate: at(10), kind: "emergency", buildingFeatureID: 9)
        let privateDoor = BuildingEntrance(nodeID: 4, coordinate: at(12), kind: "yes", tags: ["access": "private"], buildingFeatureID: 9)
        let exit = BuildingEntrance(nodeID: 5, coordinate: at(15), kind: "exit", buildingFeatureID: 9)
        #expect(BuildingEntrance.nearestUsable([main, side, emergency, privateDoor, exit], from: origin)?.nodeID == 2)
        #expect(BuildingEntrance.nearestUsable([main, emergency], from: origin)?.nodeID == 1)
        #expect(BuildingEntrance.nearestUsable([emergency, exit, privateDoor], from: origin) == nil)
        // Equally near: the main entrance.
        let twin = BuildingEntrance(nodeID: 0, coordinate: at(40), kind: "yes", buildingFeatureID: 9)
        #expect(BuildingEntrance.nearestUsable([twin, main], from: origin)?.nodeID == 1)
    }

    @Test("a building's entrances are its entrance nodes in the file, and a place inside it shares them")
    func entrancesOfABuilding() async throws {
        let view = try await SharedHelsinki.get().view
        // Stockmann's department store: its outline and the entrance nodes on it (osmium as the oracle).
        let building = try #require(try view.feature(key: "w122595241"))
        let ways = Osmium.parseOPL(try Osmium.run(["getid", "-f", "opl", try TestData.helsinki(), "w122595241"]))
        let outline = Set(try #require(ways.first).nodes)
        let nodes = Osmium.parseOPL(try Osmium.run(["tags-filter", "-f", "opl", "-o", "-", try TestData.helsinki(), "n/entrance"]))
        let expected = Set(nodes.filter { outline.contains($0.id) }.map { Int64($0.id.dropFirst())! })
        let entrances = try view.entrances(of: building)
        #expect(!expected.isEmpty)
        #expect(Set(entrances.map(\.nodeID)) == expected)
        // A point place inside the building (the pharmacy in its basement) gets the building's entrances.
        let inside = try #require(try view.feature(key: "n6049453002"))
        #expect(Set(try view.entrances(of: inside).map(\.nodeID)) == expected)
    }
}
