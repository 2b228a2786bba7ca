import Foundation
import Geo
import GRDB

/// One OSM element as a spatial database holds it (PostGIS loaded by osm2pgsql): its id, all its tags and its
/// geometry. `TileGeoJSON.render(elements:)` turns such elements into a tile with the importer's own rules, so that
/// a tile from PostGIS names the same features, with the same types, as one from the SQLite map.
public struct TileElement: Sendable {
    public var id: OSMElementID
    public var tags: [String: String]
    public var geometry: FeatureGeometry

    public init(id: OSMElementID, tags: [String: String], geometry: FeatureGeometry) {
        self.id = id
        self.tags = tags
        self.geometry = geometry
    }
}

extension TileGeoJSON {
    /// Renders a z16 tile from a map database opened once by the caller (a server keeps it open between requests).
    public static func render(tile: Tile, queue: DatabaseQueue) async throws -> Data {
        try await queue.read { db in try render(tile: tile, db: db) }
    }

    /// A GeoJSON geometry object (`{"type": …, "coordinates": …}`) as a feature geometry, or nil when unreadable.
    public static func geometry(geoJSON data: Data) -> FeatureGeometry? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return parseGeometry(object)
    }

    /// Renders elements as a tile in the service's format: those the importer would keep, classified as it does,
    /// with the same tags; ordered by osm_ids like the SQLite rendering.
    public static func render(elements: [TileElement]) -> Data {
        var features: [(ids: String, feature: RenderedFeature)] = []
        features.reserveCapacity(elements.count)
        for element in elements {
            let encoded = element.id.encoded
            guard let f = FeatureRules.makeFeature(key: element.id.description, osmIDs: [encoded],
                                                   tags: OSMTags(element.tags), geometry: element.geometry) else { continue }
            // The properties a map's own tile of it has: the stored tags and the names.
            let tags = Dictionary((f.tags.pairs.map { ($0.key, $0.value) }) + f.names, uniquingKeysWith: { first, _ in first })
            features.append(("[\(encoded)]", RenderedFeature(featureType: f.featureType, featureValue: f.featureValue,
                                                             geometry: RenderedGeometry(geometry: f.geometry),
                                                             osmIDs: [encoded], properties: tags)))
        }
        features.sort { $0.ids < $1.ids }
        return (try? encode(features.map(\.feature))) ?? Data(#"{"features":[],"type":"FeatureCollection"}"#.utf8)
    }

    /// The features of a tile as `(osm_ids, feature_type, feature_value)`, for comparing two renderings.
    public static func featureKeys(_ data: Data) throws(ParseError) -> Set<String> {
        Set(try parse(data).map { "\($0.osmIDs.map(String.init).joined(separator: ","))|\($0.featureType)=\($0.featureValue)" })
    }

    /// Reads a tile the way the client does and checks that it is the tile asked for: every feature must meet
    /// the tile's bounds (a server answering with another tile's data is caught here).
    public static func check(_ data: Data, tile: Tile) throws(ParseError) -> Int {
        try parse(data, tile: tile).count
    }

    static func parse(_ data: Data, tile: Tile) throws(ParseError) -> [TileFeature] {
        let features = try parse(data)
        let b = tile.bounds
        // Spatial indexes (SQLite's R*Tree, PostGIS's GiST) keep boxes as 32-bit floats, rounded outwards: allow about
        // 10 m, far less than a z16 tile (about 600 m), so another tile's data is still caught.
        let margin = 1e-4
        for f in features {
            let fb = f.geometry.boundingBox
            if fb.minLatitude > b.maxLatitude + margin || fb.maxLatitude < b.minLatitude - margin
                || fb.minLongitude > b.maxLongitude + margin || fb.maxLongitude < b.minLongitude - margin {
                let id = OSMElementID(encoded: f.osmIDs[0]).description
                let at = String(format: "%.5f,%.5f", fb.minLatitude, fb.minLongitude)
                throw ParseError(description: "wrong tile coordinates: feature \(id) (\(f.featureType)=\(f.featureValue)) at \(at) "
                                 + "lies outside tile 16/\(tile.x)/\(tile.y)")
            }
        }
        return features
    }
}
