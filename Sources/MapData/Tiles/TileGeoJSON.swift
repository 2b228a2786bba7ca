import Foundation
import Geo
import GRDB

/// The GeoJSON tile format of the Soundscape data service (spec §6.2): a FeatureCollection whose
/// features carry `osm_ids`, `feature_type`, `feature_value` and `properties` (the OSM tags) next
/// to their geometry.
public enum TileGeoJSON {
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// A feature as the tile carries it.
    struct TileFeature {
        var osmIDs: [Int64]
        var featureType: String
        var featureValue: String
        var properties: OSMTags
        var geometry: FeatureGeometry
    }

    // MARK: rendering

    /// Renders the z16 tile `tile` from a map database: every feature whose bounding box meets the
    /// tile, in the service's format (6 decimals, sorted keys, ordered by osm_ids). The properties are the tags the
    /// map keeps (``FeatureRules/storedTagKeys``) and the names, which the map stores apart.
    public static func render(tile: Tile, databasePath: String) throws -> Data {
        let queue = try MapStore.openReadOnly(path: databasePath)
        defer { try? queue.close() }
        return try queue.read { db in try render(tile: tile, db: db) }
    }

    static func render(tile: Tile, db: Database) throws -> Data {
        let b = tile.bounds
        let rows = try Row.fetchAll(db, sql: """
            SELECT f.osm_ids, f.feature_type, f.feature_value, f.tags, f.geometry_kind, f.geometry, f.names, f.key,
                f.name, f.tagged, f.lat, f.lon
            FROM feature_index r JOIN features f ON f.id = r.id
            WHERE r.min_lat <= ? AND r.max_lat >= ? AND r.min_lon <= ? AND r.max_lon >= ?
            """, arguments: [b.maxLatitude, b.minLatitude, b.maxLongitude, b.minLongitude])
        // Ordered by the ids' JSON text, then the key, byte by byte (as SQLite's ORDER BY on the text did
        // when every row stored its ids).
        let sorted = rows.map { row -> (ids: [Int64], text: String, key: String, row: Row) in
            let key: String = row[7]
            let ids = MapStore.osmIDs(key: key, stored: row[0])
            return (ids, JSONText.integers(ids), key, row)
        }.sorted {
            $0.text != $1.text ? $0.text.utf8.lexicographicallyPrecedes($1.text.utf8) : $0.key.utf8.lexicographicallyPrecedes($1.key.utf8)
        }
        let features = sorted.compactMap { item -> RenderedFeature? in
            let row = item.row
            guard let kind = FeatureGeometry.Kind(rawValue: row[4]),
                  let geometry = FeatureGeometry(kind: kind, encoded: row[5], origin: GeometryBlob.Origin(stored: row[10], row[11]))
            else { return nil }
            let tags = MapStore.tags(stored: row[3], type: row[1], value: row[2], tagged: row[9])
            let names = MapStore.names(stored: row[6], name: row[8])
            return RenderedFeature(featureType: row[1], featureValue: row[2], geometry: RenderedGeometry(geometry: geometry),
                                   osmIDs: item.ids, properties: tags.merging(names) { tag, _ in tag })
        }
        return try encode(features)
    }

    /// The features as a tile in the service's format (sorted keys, 6 decimals).
    static func encode(_ features: [RenderedFeature]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(RenderedCollection(features: features))
    }

    private struct RenderedCollection: Encodable {
        var features: [RenderedFeature]
        var type = "FeatureCollection"
    }

    struct RenderedFeature: Encodable {
        var featureType: String
        var featureValue: String
        var geometry: RenderedGeometry
        var osmIDs: [Int64]
        var properties: [String: String]
        var type = "Feature"
        enum CodingKeys: String, CodingKey {
            case featureType = "feature_type", featureValue = "feature_value", geometry, osmIDs = "osm_ids", properties, type
        }
    }

    /// GeoJSON geometry: `[lon, lat]` positions rounded to 6 decimals (about 0.1 m), as the service writes them.
    struct RenderedGeometry: Encodable {
        var geometry: FeatureGeometry
        enum CodingKeys: String, CodingKey { case coordinates, type }

        func encode(to encoder: any Encoder) throws {
            func position(_ c: Coordinate) -> [Double] {
                [(c.longitude * 1e6).rounded() / 1e6, (c.latitude * 1e6).rounded() / 1e6]
            }
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch geometry {
            case .point(let c): try container.encode(position(c), forKey: .coordinates)
            case .line(let cs), .multiPoint(let cs): try container.encode(cs.map(position), forKey: .coordinates)
            case .polygon(let rings): try container.encode(rings.map { $0.map(position) }, forKey: .coordinates)
            case .multiPolygon(let polys): try container.encode(polys.map { $0.map { $0.map(position) } }, forKey: .coordinates)
            }
            try container.encode(geometry.kind.geoJSONType, forKey: .type)
        }
    }

    // MARK: parsing

    static func parse(_ data: Data) throws(ParseError) -> [TileFeature] {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw ParseError(description: "invalid JSON: \(error.localizedDescription)")
        }
        guard let root = object as? [String: Any] else { throw ParseError(description: "the top level is not an object") }
        guard (root["type"] as? String) == "FeatureCollection" || root["features"] != nil else {
            throw ParseError(description: "not a FeatureCollection")
        }
        guard let features = root["features"] as? [Any] else { throw ParseError(description: "no features array") }
        var out: [TileFeature] = []
        out.reserveCapacity(features.count)
        for (i, item) in features.enumerated() {
            guard let f = item as? [String: Any] else { throw ParseError(description: "feature \(i) is not an object") }
            guard let type = f["feature_type"] as? String, let value = f["feature_value"] as? String else {
                throw ParseError(description: "feature \(i) has no feature_type/feature_value")
            }
            let ids = (f["osm_ids"] as? [Any] ?? []).compactMap { ($0 as? NSNumber)?.int64Value }
            guard !ids.isEmpty else { throw ParseError(description: "feature \(i) has no osm_ids") }
            var tags: [OSMTag] = []
            for (k, v) in (f["properties"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) {
                tags.append(OSMTag(key: k, value: (v as? String) ?? "\(v)"))
            }
            guard let g = f["geometry"] as? [String: Any], let geometry = parseGeometry(g) else {
                throw ParseError(description: "feature \(i) (\(type)=\(value)) has an unreadable geometry")
            }
            out.append(TileFeature(osmIDs: ids, featureType: type, featureValue: value, properties: OSMTags(tags),
                                   geometry: geometry))
        }
        return out
    }

    static func parseGeometry(_ g: [String: Any]) -> FeatureGeometry? {
        guard let type = g["type"] as? String, let coordinates = g["coordinates"] else { return nil }
        func point(_ any: Any) -> Coordinate? {
            guard let pair = any as? [Any], pair.count >= 2,
                  let lon = (pair[0] as? NSNumber)?.doubleValue, let lat = (pair[1] as? NSNumber)?.doubleValue else { return nil }
            return Coordinate(latitude: lat, longitude: lon)
        }
        func line(_ any: Any) -> [Coordinate]? {
            guard let items = any as? [Any] else { return nil }
            let points = items.compactMap(point)
            return points.count == items.count ? points : nil
        }
        func poly(_ any: Any) -> [[Coordinate]]? {
            guard let rings = any as? [Any] else { return nil }
            let parsed = rings.compactMap(line)
            return parsed.count == rings.count && !parsed.isEmpty ? parsed : nil
        }
        switch type {
        case "Point": return point(coordinates).map { .point($0) }
        case "LineString": return line(coordinates).flatMap { $0.count >= 2 ? .line($0) : nil }
        case "MultiPoint": return line(coordinates).flatMap { $0.isEmpty ? nil : .multiPoint($0) }
        case "Polygon": return poly(coordinates).map { .polygon($0) }
        case "MultiPolygon":
            guard let polys = coordinates as? [Any] else { return nil }
            let parsed = polys.compactMap(poly)
            return parsed.count == polys.count && !parsed.isEmpty ? .multiPolygon(parsed) : nil
        case "MultiLineString":
            // Kept as its longest line: roads in tiles are single lines, this is a fallback.
            guard let lines = (coordinates as? [Any])?.compactMap(line), let longest = lines.max(by: { $0.count < $1.count }),
                  longest.count >= 2 else { return nil }
            return .line(longest)
        default: return nil
        }
    }
}
