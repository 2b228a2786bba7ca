import Foundation
import Geo
import GRDB
@testable import MapData
import MapTestSupport
import Testing

@Suite("Feature model")
struct FeatureTests {
    /// Number of features carrying key=value (or key=* when value is nil).
    static func featureCount(_ view: SpatialDataView, key: String, value: String?) throws -> Int {
        try view.queue.read { db in
            if let value {
                return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM features f WHERE \(MapStore.tagSQL(key)) = ?",
                                        arguments: [value]) ?? -1
            }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM features f WHERE \(MapStore.tagSQL(key)) IS NOT NULL AND feature_type != 'gd_entrance_list'") ?? -1
        }
    }

    @Test("feature counts per tag equal osmium tags-count")
    func tagCountsMatchOsmium() async throws {
        let helsinki = try await SharedHelsinki.get()
        let pbf = try TestData.helsinki()
        let filters = ["amenity=bench", "amenity=restaurant", "amenity=cafe", "highway=crossing", "highway=bus_stop",
                       "railway=tram_stop", "tourism=hotel", "entrance"]
        // Output lines look like: 162	"amenity"	"bench"
        let output = try Osmium.run(["tags-count", pbf] + filters)
        var osmiumCounts: [String: Int] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: "\t").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            guard parts.count >= 2, let n = Int(parts[0]) else { continue }
            osmiumCounts[parts.count == 3 ? "\(parts[1])=\(parts[2])" : parts[1]] = n
        }
        #expect(osmiumCounts["amenity=bench"] == 162)
        #expect(osmiumCounts["highway=crossing"] == 621)
        for filter in filters {
            let kv = filter.split(separator: "=").map(String.init)
            let ours = try Self.featureCount(helsinki.view, key: kv[0], value: kv.count > 1 ? kv[1] : nil)
            #expect(ours == osmiumCounts[filter], "\(filter): ours \(ours), osmium \(osmiumCounts[filter] ?? -1)")
        }
    }

    @Test("primary tag, names, categories and tile of known features")
    func knownFeatures() async throws {
        let view = try await SharedHelsinki.get().view
        let havis = try #require(try view.feature(key: "n1376320186"))
        #expect(havis.name == "Havis Amanda")
        #expect(havis.featureType == "tourism" && havis.featureValue == "artwork")
        #expect(havis.superCategory == .landmark)
        #expect(havis.names["name:ru"] == "Фонтан Хавис Аманда")
        #expect(havis.osmIDs == [OSMElementID(.node, 1376320186)])
        #expect(havis.tile == Tile(containing: havis.centroid, zoom: 16))
        if case .point = havis.geometry {} else { Issue.record("Havis Amanda should be a point") }

        let market = try #require(try view.feature(key: "r2919185"))
        #expect(market.name == "Kauppatori")
        #expect(market.names["name:sv"] == "Salutorget" && market.names["name:en"] == "Market Square")
        #expect(market.featureType == "highway" && market.featureValue == "pedestrian")
        #expect(market.superCategory == .road)
        #expect(market.osmIDs.first?.encoded == -(100_000_000_000_000_000 + 2919185))
        switch market.geometry {
        case .polygon, .multiPolygon: break
        default: Issue.record("Kauppatori should be an area")
        }

        let stockmann = try #require(try view.feature(key: "w122595241"))
        #expect(stockmann.featureType == "shop" && stockmann.featureValue == "department_store")
        #expect(stockmann.superCategory == .landmark)
        #expect(stockmann.tags["building"] == "retail")

        let busStop = try #require(try view.feature(key: "n6241421796"))
        #expect(busStop.superCategory == .mobility && busStop.category == "bus_stop")
        #expect(busStop.spokenName() == "Stockmann Bus Stop")

        let keskuskatu = try #require(try view.feature(key: "w15466245"))
        #expect(keskuskatu.superCategory == .road && keskuskatu.roadClass == .road && keskuskatu.level == .ground)
        if case .line(let points) = keskuskatu.geometry { #expect(points.count == 2) } else { Issue.record("line expected") }

        // A tunnel footway is underground.
        let tunnel = try #require(try view.feature(key: "w323451511"))
        #expect(tunnel.name == "Opintoputki" && tunnel.level == .underground && tunnel.roadClass == .path)
    }

    @Test("super-category rules follow the spec's order")
    func categorizer() {
        func cat(_ pairs: [String: String], _ type: String = "", _ value: String = "") -> SuperCategory {
            Categorizer.superCategory(featureType: type, featureValue: value, tags: OSMTags(pairs))
        }
        #expect(cat(["highway": "crossing"], "highway", "crossing") == .mobility)
        #expect(cat(["highway": "footway", "footway": "crossing"], "highway", "footway") == .mobility)
        #expect(cat(["entrance": "main"], "entrance", "main") == .entrance)
        #expect(cat(["amenity": "bank"], "amenity", "bank") == .place)
        #expect(cat(["amenity": "atm"], "amenity", "atm") == .mobility)
        #expect(cat(["highway": "residential"], "highway", "residential") == .road)
        #expect(cat(["highway": "path"], "highway", "path") == .path)
        #expect(cat(["amenity": "bench"], "amenity", "bench") == .object)
        #expect(cat(["amenity": "restaurant", "wheelchair": "yes"], "amenity", "restaurant") == .place)
        #expect(cat(["tourism": "museum"], "tourism", "museum") == .landmark)
        // safety beats everything in the word lists.
        #expect(cat(["amenity": "parking", "tourism": "museum"], "amenity", "parking") == .safety)
        #expect(cat(["emergency": "defibrillator"], "emergency", "defibrillator") == .information)
        #expect(cat(["shop": "anything_new"], "shop", "anything_new") == .place)
        #expect(cat(["indoormark": "beacon"], "indoormark", "beacon") == .beacons)
        #expect(Categorizer.label(tags: OSMTags(["highway": "footway"])) == "walking_path")
        #expect(Categorizer.displayName(forLabel: "walking_path") == "Walking Path")
    }

    @Test("entrance lists hold the entrance nodes of the building outline (checked with osmium getid -r)")
    func entranceLists() async throws {
        let view = try await SharedHelsinki.get().view
        let pbf = try TestData.helsinki()
        let stockmann = try #require(try view.feature(key: "w122595241"))
        let ours = Set(try view.entrances(ofBuilding: stockmann.id).map { "n\($0.nodeID)" })
        // `osmium getid -r FILE w122595241 -f opl` lists the way and its nodes; entrances carry entrance=*.
        let elements = Osmium.parseOPL(try Osmium.run(["getid", "-r", pbf, "w122595241", "-f", "opl"]))
        let expected = Set(elements.filter { $0.id.hasPrefix("n") && $0.tags["entrance"] != nil }.map(\.id))
        #expect(expected.count == 7)
        #expect(ours == expected)
        let list = try #require(try view.feature(key: "ew122595241"))
        #expect(list.featureType == "gd_entrance_list" && list.featureValue == "yes" && list.superCategory == .entrances)
        #expect(list.osmIDs.first == OSMElementID(.way, 122595241))
        #expect(Set(list.osmIDs.dropFirst().map(\.description)) == expected)
    }

    @Test("geometry encoding round-trips and measures distances")
    func geometry() throws {
        let a = Coordinate(latitude: 60.17, longitude: 24.94)
        let b = Coordinate(latitude: 60.17, longitude: 24.95)
        let c = Coordinate(latitude: 60.18, longitude: 24.95)
        let shapes: [FeatureGeometry] = [
            .point(a), .line([a, b, c]), .polygon([[a, b, c, a]]), .multiPoint([a, c]),
            .multiPolygon([[[a, b, c, a]], [[c, b, a, c], [a, b, c, a]]]),
        ]
        for shape in shapes {
            let decoded = try #require(FeatureGeometry(kind: shape.kind, encoded: shape.encoded()))
            #expect(decoded.kind == shape.kind)
            // Stored at 1e-7 degrees (about a centimetre).
            let pairs = zip(decoded.allPoints, shape.allPoints)
            #expect(decoded.allPoints.count == shape.allPoints.count)
            #expect(pairs.allSatisfy { abs($0.latitude - $1.latitude) < 1e-7 && abs($0.longitude - $1.longitude) < 1e-7 })
            #expect(FeatureGeometry(kind: decoded.kind, encoded: decoded.encoded()) == decoded)
            // A blob cut short anywhere does not decode (nor is it measured) instead of reading past its end.
            let blob = shape.encoded()
            for cut in 0..<blob.count {
                #expect(FeatureGeometry(kind: shape.kind, encoded: blob.prefix(cut)) == nil, "\(shape.kind) cut at \(cut)")
                #expect(GeometryBlob.closest(kind: shape.kind, blob: Data(blob.prefix(cut)), to: a) == nil)
            }
        }
        // Measured from an origin (a feature's stored lat/lon): a point there is one byte and decodes
        // (and measures) as that point; other shapes read back exactly as without an origin.
        let o = GeometryBlob.Origin(lat: GeometryMath.e7(b.latitude), lon: GeometryMath.e7(b.longitude))
        #expect(FeatureGeometry.point(b).encoded(origin: o) == Data([0]))
        #expect(FeatureGeometry(kind: .point, encoded: Data([0]), origin: o) == .point(o.coordinate))
        let measured = try #require(GeometryBlob.closest(kind: .point, blob: Data([0]), from: o, to: a))
        #expect(abs(measured.distance - a.distance(to: b)) < 1)
        for shape in shapes {
            let relative = shape.encoded(origin: o)
            #expect(FeatureGeometry(kind: shape.kind, encoded: relative, origin: o) == FeatureGeometry(kind: shape.kind, encoded: shape.encoded()))
            #expect(relative.count <= shape.encoded().count)
        }
        // Vertices metres apart take four bytes each (two per coordinate step), not eight.
        let walk = (0..<100).map { Coordinate(latitude: 60.17 + Double($0) * 2e-5, longitude: 24.94 + Double($0 % 7) * 3e-5) }
        #expect(FeatureGeometry.line(walk).encoded().count <= 4 * walk.count + 16)
        // 100 m north of the line a–b: distance ≈ 100 m, closest point straight south.
        let p = Coordinate(latitude: 60.17 + 100 / 111_195.0, longitude: 24.945)
        let closest = try #require(GeometryMath.closest(.line([a, b]), to: p))
        #expect(abs(closest.distance - 100) < 0.5)
        #expect(abs(closest.point.longitude - 24.945) < 1e-6)
        // Inside the triangle the distance is 0.
        let inside = Coordinate(latitude: 60.171, longitude: 24.9495)
        let i = try #require(GeometryMath.closest(.polygon([[a, b, c, a]]), to: inside))
        #expect(i.inside && i.distance == 0)
    }

    @Test("name normalisation folds case, diacritics and punctuation")
    func normalizer() {
        #expect(NameNormalizer.normalize("Biáng!") == "biang")
        #expect(NameNormalizer.normalize("  Robert's  Coffee ") == "roberts coffee")
        #expect(NameNormalizer.normalize("Järnvägstorget") == "jarnvagstorget")
        #expect(NameNormalizer.normalize("Stockmann & Co.") == "stockmann co")
        #expect(NameNormalizer.editDistance("stokmann", "stockmann") == 1)
        #expect(NameNormalizer.editDistance("kitten", "sitting") == 3)
    }
}
