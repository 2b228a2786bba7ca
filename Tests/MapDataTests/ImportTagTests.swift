import Foundation
import Geo
import GRDB
@testable import MapData
import MapTestSupport
import Testing

/// The map keeps only the tags some rule, query or reply reads (`FeatureRules.storedTagKeys`); these tests check
/// that nothing a reader needs is lost with the rest.
@Suite("Import keeps the tags readers use")
struct ImportTagTests {
    @Test("every key the shipped kinds table tests is a stored key")
    func kindKeysAreStored() throws {
        let table = try KindTable.load(path: TestData.packageRoot.appendingPathComponent("Grammars/kinds.txt").path)
        let keys = Set(table.kinds.flatMap { $0.matches.flatMap { $0.map(\.key) } })
        #expect(keys.count > 10)
        #expect(keys.subtracting(FeatureRules.storedTagKeys).isEmpty, "not stored: \(keys.subtracting(FeatureRules.storedTagKeys).sorted())")
    }

    /// A feature made from an element's tags, and the same feature made again from what a tile of it carries (the
    /// stored tags and the names), as the tile client does: both must classify and name it alike.
    @Test("a feature rebuilt from its stored tags and names is classified and named as from all its tags")
    func storedTagsClassifyAlike() throws {
        let text = try Osmium.run(["cat", "-t", "node", "-t", "way", "-f", "opl", TestData.helsinkiPath])
        let elements = Osmium.parseOPL(text)
        var coords: [String: Coordinate] = [:]
        for e in elements where e.id.hasPrefix("n") {
            if let lat = e.latitude, let lon = e.longitude { coords[e.id] = Coordinate(latitude: lat, longitude: lon) }
        }
        var compared = 0
        var dropped = 0
        for e in elements where !e.tags.isEmpty {
            let geometry: FeatureGeometry
            if e.id.hasPrefix("n") {
                guard let c = coords[e.id] else { continue }
                geometry = .point(c)
            } else {
                let ring = e.nodes.compactMap { coords[$0] }
                guard ring.count >= 2 else { continue }
                geometry = e.nodes.count >= 4 && e.nodes.first == e.nodes.last ? .polygon([ring]) : .line(ring)
            }
            let raw = OSMTags(e.tags)
            guard let full = FeatureRules.makeFeature(key: e.id, osmIDs: [0], tags: raw, geometry: geometry) else { continue }
            #expect(!full.tags.pairs.contains { $0.key == "name" || $0.key.hasPrefix("name:") }, "\(e.id): names are stored apart")
            dropped += raw.count - full.tags.count - full.names.count
            let properties = Dictionary(full.tags.pairs.map { ($0.key, $0.value) } + full.names, uniquingKeysWith: { a, _ in a })
            // Chosen again from the tile's properties alone, and as the tile client does, from its feature_type.
            let forcings: [(String, String)?] = [nil, (full.featureType, full.featureValue)]
            for forced in forcings {
                let again = try #require(FeatureRules.makeFeature(key: e.id, osmIDs: [0], tags: OSMTags(properties),
                                                                  geometry: geometry, forcedType: forced), "\(e.id)")
                #expect(again.featureType == full.featureType && again.featureValue == full.featureValue, "\(e.id)")
                #expect(again.superCategory == full.superCategory && again.category == full.category, "\(e.id)")
                #expect(again.level == full.level && again.layer == full.layer && again.roadClass == full.roadClass, "\(e.id)")
                #expect(again.isRoundabout == full.isRoundabout && again.name == full.name, "\(e.id)")
                #expect(again.names.map { "\($0)=\($1)" }.sorted() == full.names.map { "\($0)=\($1)" }.sorted(), "\(e.id)")
                #expect(again.tags == full.tags, "\(e.id)")
            }
            compared += 1
        }
        #expect(compared > 5000, "features compared: \(compared)")
        #expect(dropped > 10000, "tags left out: \(dropped)")
    }

    @Test("the imported map stores read keys only, names apart, and keeps the addresses and entrances replies use")
    func importedTags() async throws {
        let view = try await SharedHelsinki.get().view
        let keys = try await view.queue.read { db in
            // The primary tag of a feature is in feature_type and feature_value, not in `tags`.
            try String.fetchAll(db, sql: """
                SELECT j.key FROM features, json_each(features.tags) j UNION SELECT feature_type FROM features WHERE tagged = 1
                """)
        }
        #expect(Set(keys).subtracting(FeatureRules.storedTagKeys).isEmpty, "\(Set(keys).subtracting(FeatureRules.storedTagKeys).sorted())")
        for key in ["addr:street", "addr:housenumber", "entrance", "wikidata", "amenity", "building", "level"] {
            #expect(keys.contains(key), "no feature keeps \(key)")
        }
        #expect(!keys.contains("website") && !keys.contains("opening_hours") && !keys.contains("name"))
        let havis = try #require(try view.feature(key: "n1376320186"))
        #expect(havis.tags["tourism"] == "artwork" && havis.tags["name"] == nil && havis.names["name"] == "Havis Amanda")
    }
}

@Suite("Import text columns")
struct ImportTextTests {
    @Test("plain ASCII names normalise without Foundation's folding exactly as with it")
    func asciiNormalisationAgrees() {
        let printable = (32...126).map { String(UnicodeScalar(UInt8($0))) }
        var samples = ["Kauppatori", "  Robert's Coffee ", "K-Market Kamppi", "7-Eleven", "HSL_Stop #1234", "A`B", "", "   ",
                       "Café"]
        samples += printable + printable.map { "a\($0)B" }
        for text in samples {
            let fast = NameNormalizer.normalizeASCII(text)
            if text.unicodeScalars.allSatisfy(\.isASCII) {
                #expect(fast == NameNormalizer.normalizeFolding(text), "\(text.debugDescription)")
            } else {
                #expect(fast == nil, "\(text.debugDescription)")
            }
        }
        #expect(NameNormalizer.normalize("  Robert's Coffee ") == "roberts coffee")
        #expect(NameNormalizer.normalize("Café Ekberg") == "cafe ekberg")
    }

    @Test("OSM id lists are written as JSON the decoder reads back, and empty objects as {}")
    func jsonColumns() {
        for ids: [Int64] in [[], [1376320186], [-35435008, -100_000_000_002_919_185, .max, .min, 0]] {
            let text = JSONText.integers(ids)
            #expect(JSONText.decodeIntegers(text) == ids, "\(text)")
            #expect(text.hasPrefix("[") && !text.contains(" "), "\(text)")
        }
        #expect(JSONText.object([]) == "{}" && JSONText.decodeStringMap("{}").isEmpty)
        #expect(JSONText.decodeStringMap(JSONText.object([("name", "Havis \"Amanda\""), ("name", "x")])) == ["name": "Havis \"Amanda\""])
    }
}
