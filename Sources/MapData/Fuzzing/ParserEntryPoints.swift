import Foundation
import Geo

/// Public doors into MapData's parsers for the fuzzers in Fuzz/ (a separate package, which sees only
/// public API). Each takes untrusted bytes, must never crash, and returns how many items it accepted.
public enum MapDataParserEntryPoints {
    /// A tile's GeoJSON, as the tile service sends it.
    public static func tileJSON(_ data: Data) -> Int {
        (try? TileGeoJSON.parse(data))?.count ?? -1
    }

    /// One PBF frame's blob (a `Blob` message, raw or zlib) decoded as an `OSMHeader` and as an `OSMData`
    /// block, the way the importer decodes it.
    public static func pbfBlob(_ data: Data) -> Int {
        guard let payload = try? PBFFrameReader.unpack(data, path: "fuzz", offset: 0, block: 1) else { return -1 }
        return decode(payload)
    }

    /// Small seed inputs from a real map database: for a few tiles of central Helsinki, each of the first features
    /// of the tile's GeoJSON as a collection of its own, and one collection of the first five.
    public static func tileSeeds(databasePath: String) throws -> [Data] {
        var seeds: [Data] = []
        for (lat, lon) in [(60.1676, 24.9514), (60.1699, 24.9384), (60.1718, 24.9414)] {
            let tile = Tile(containing: Coordinate(latitude: lat, longitude: lon), zoom: 16)
            let data = try TileGeoJSON.render(tile: tile, databasePath: databasePath)
            guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let features = root["features"] as? [Any] else { continue }
            var pieces = features.prefix(20).map { [$0] }
            pieces.append(Array(features.prefix(5)))
            for piece in pieces {
                seeds.append(try JSONSerialization.data(withJSONObject: ["type": "FeatureCollection", "features": piece],
                                                        options: [.sortedKeys]))
            }
        }
        return seeds
    }

    /// A decompressed block payload decoded as both block kinds.
    public static func pbfPayload(_ data: Data) -> Int { decode(data) }

    private static func decode(_ payload: Data) -> Int {
        let raw = PBFRawBlock(type: "OSMData", offset: 0, number: 1, payload: payload)
        var count = 0
        if let header = try? PBFDecoder.decodeHeader(raw, path: "fuzz") { count += header.requiredFeatures.count }
        if let block = try? PBFDecoder.decodeData(raw, path: "fuzz") {
            count += block.nodeIDs.count + block.ways.count + block.relations.count
        }
        return count
    }

    /// Small seed inputs from a real PBF file: the header blob, and from each of the first `blocks` data blocks
    /// a cut-down copy (a few nodes, ways and relations with the block's string table) as a raw blob and as a
    /// bare payload. Whole blocks are too large for a million fuzzing runs.
    public static func pbfSeeds(fromFile path: String, blocks: Int = 8) throws -> (blobs: [Data], payloads: [Data]) {
        var reader = try PBFFrameReader(path: path)
        defer { reader.close() }
        var blobs: [Data] = [], payloads: [Data] = []
        var seen = 0
        while seen <= blocks, let frame = try reader.next() {
            seen += 1
            var payload = frame.payload
            if frame.type == "OSMData", var block = try? OSMPBF_PrimitiveBlock(serializedBytes: frame.payload) {
                block.primitivegroup = block.primitivegroup.prefix(3).map(cutDown)
                payload = (try? block.serializedData()) ?? Data()
            }
            payloads.append(payload)
            var blob = OSMPBF_Blob()
            blob.raw = payload
            blob.rawSize = Int32(payload.count)
            if let bytes = try? blob.serializedData() { blobs.append(bytes) }
        }
        return (blobs, payloads)
    }

    private static func cutDown(_ group: OSMPBF_PrimitiveGroup) -> OSMPBF_PrimitiveGroup {
        var g = group
        g.nodes = Array(g.nodes.prefix(3))
        g.ways = Array(g.ways.prefix(3)).map { way in
            var w = way
            w.refs = Array(w.refs.prefix(6))
            w.lat = Array(w.lat.prefix(6))
            w.lon = Array(w.lon.prefix(6))
            return w
        }
        g.relations = Array(g.relations.prefix(2)).map { relation in
            var r = relation
            r.memids = Array(r.memids.prefix(4))
            r.rolesSid = Array(r.rolesSid.prefix(4))
            r.types = Array(r.types.prefix(4))
            return r
        }
        if g.hasDense {
            var d = g.dense
            let n = min(d.id.count, 6)
            d.id = Array(d.id.prefix(n))
            d.lat = Array(d.lat.prefix(n))
            d.lon = Array(d.lon.prefix(n))
            // keys_vals: each node's pairs end with a 0.
            var kv: [Int32] = [], ended = 0
            for v in d.keysVals where ended < n {
                kv.append(v)
                if v == 0 { ended += 1 }
            }
            d.keysVals = d.keysVals.isEmpty ? [] : kv
            d.clearDenseinfo()
            g.dense = d
        }
        return g
    }
}
