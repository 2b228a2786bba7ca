import Foundation
import SwiftProtobuf

/// The tags of one OSM element, in file order. Elements carry few tags, so a linear search beats a
/// dictionary both in speed and in memory.
public struct OSMTags: Sendable, Hashable, Sequence {
    public var pairs: [OSMTag]

    public init(_ pairs: [OSMTag] = []) { self.pairs = pairs }
    public init(_ dictionary: [String: String]) {
        pairs = dictionary.sorted { $0.key < $1.key }.map { OSMTag(key: $0.key, value: $0.value) }
    }

    public subscript(key: String) -> String? {
        for tag in pairs where tag.key == key { return tag.value }
        return nil
    }

    public var isEmpty: Bool { pairs.isEmpty }
    public var count: Int { pairs.count }
    public func makeIterator() -> IndexingIterator<[OSMTag]> { pairs.makeIterator() }
    public var dictionary: [String: String] {
        var d: [String: String] = [:]
        for t in pairs { d[t.key] = t.value }
        return d
    }

    /// True when the key is present with a value other than "no".
    public func isSet(_ key: String) -> Bool {
        guard let v = self[key] else { return false }
        return v != "no" && v != "false" && v != "0"
    }
}

public struct OSMTag: Sendable, Hashable {
    public var key: String
    public var value: String
    public init(key: String, value: String) { self.key = key; self.value = value }
}

public enum OSMElementKind: Int, Sendable, Codable {
    case node = 0, way = 1, relation = 2
}

/// An OSM element reference. Tiles of the Soundscape service carry element ids as one integer space
/// (nodes keep their id, ways are negated, relations are negated and shifted by 10^17); `encoded`
/// and `init(encoded:)` convert to and from that form.
public struct OSMElementID: Sendable, Hashable, Codable, CustomStringConvertible {
    public var kind: OSMElementKind
    public var id: Int64

    public init(_ kind: OSMElementKind, _ id: Int64) { self.kind = kind; self.id = id }

    static let relationShift: Int64 = 100_000_000_000_000_000

    public var encoded: Int64 {
        switch kind {
        case .node: return id
        case .way: return -id
        case .relation: return -(id + Self.relationShift)
        }
    }

    public init(encoded: Int64) {
        if encoded >= 0 { self.init(.node, encoded) }
        else if -encoded >= Self.relationShift { self.init(.relation, -encoded - Self.relationShift) }
        else { self.init(.way, -encoded) }
    }

    /// "n123", "w456", "r789": the form osmium uses.
    public var description: String {
        switch kind {
        case .node: return "n\(id)"
        case .way: return "w\(id)"
        case .relation: return "r\(id)"
        }
    }
}

struct OSMWay: Sendable {
    var id: Int64
    var refs: [Int64]
    var tags: OSMTags
}

struct OSMMember: Sendable {
    var kind: OSMElementKind
    var ref: Int64
    var role: String
}

struct OSMRelation: Sendable {
    var id: Int64
    var members: [OSMMember]
    var tags: OSMTags
}

/// A decoded `OSMData` block. Node coordinates are in 1e-7 degrees; untagged nodes carry no tags
/// object at all.
struct OSMBlock: Sendable {
    var nodeIDs: [Int64] = []
    var nodeLat: [Int32] = []
    var nodeLon: [Int32] = []
    /// (index into nodeIDs, tags) for nodes that have tags.
    var taggedNodes: [(index: Int, tags: OSMTags)] = []
    var ways: [OSMWay] = []
    var relations: [OSMRelation] = []
}

/// What the `OSMHeader` block says about the file.
public struct PBFHeaderInfo: Sendable {
    public var requiredFeatures: [String] = []
    public var optionalFeatures: [String] = []
    public var writingProgram: String?
    public var source: String?
    /// (minLat, minLon, maxLat, maxLon) in degrees, if the header has a bbox.
    public var bbox: (Double, Double, Double, Double)?
}

enum PBFDecoder {
    static let supportedFeatures: Set<String> = ["OsmSchema-V0.6", "DenseNodes"]

    static func decodeHeader(_ raw: PBFRawBlock, path: String) throws(MapImportError) -> PBFHeaderInfo {
        let header: OSMPBF_HeaderBlock
        do {
            header = try OSMPBF_HeaderBlock(serializedBytes: raw.payload)
        } catch {
            throw MapImportError(file: path, offset: raw.offset, block: raw.number,
                                 reason: .invalidBlock("OSMHeader does not decode: \(error)"))
        }
        for feature in header.requiredFeatures where !supportedFeatures.contains(feature) {
            throw MapImportError(file: path, offset: raw.offset, block: raw.number, reason: .unsupportedFeature(feature))
        }
        var info = PBFHeaderInfo()
        info.requiredFeatures = header.requiredFeatures
        info.optionalFeatures = header.optionalFeatures
        info.writingProgram = header.hasWritingprogram ? header.writingprogram : nil
        info.source = header.hasSource ? header.source : nil
        if header.hasBbox {
            let b = header.bbox
            info.bbox = (Double(b.bottom) * 1e-9, Double(b.left) * 1e-9, Double(b.top) * 1e-9, Double(b.right) * 1e-9)
        }
        return info
    }

    /// The number of key/value pairs of a dense node's tags that start at `start` (up to the 0 that ends them).
    private static func pairCount(_ kv: [Int32], from start: Int) -> Int {
        var end = start
        while end < kv.count, kv[end] != 0 { end += 2 }
        return (end - start) / 2
    }

    /// Decodes a data block. With `keepKey`, tags whose key it refuses are left out (and an element left with
    /// none is untagged); it is asked once for each key string of the block's table. With `keepMembers`, a
    /// relation whose (kept) tags it refuses is decoded without its members.
    static func decodeData(_ raw: PBFRawBlock, path: String, keepKey: ((String) -> Bool)? = nil,
                           keepMembers: ((OSMTags) -> Bool)? = nil) throws(MapImportError) -> OSMBlock {
        // Read without the elements' metadata (osmread.proto): skipped, not decoded.
        let block: OSMPBFRead_PrimitiveBlock
        do {
            var options = BinaryDecodingOptions()
            options.discardUnknownFields = true
            block = try OSMPBFRead_PrimitiveBlock(serializedBytes: raw.payload, options: options)
        } catch {
            throw MapImportError(file: path, offset: raw.offset, block: raw.number,
                                 reason: .invalidBlock("OSMData does not decode: \(error)"))
        }
        func fail(_ why: String) -> MapImportError {
            MapImportError(file: path, offset: raw.offset, block: raw.number, reason: .invalidBlock(why))
        }
        let strings = block.stringtable.s.map { String(decoding: $0, as: UTF8.self) }
        // Whether each string is a kept key: 0 unknown, 1 kept, 2 dropped.
        var keyVerdict = [UInt8](repeating: keepKey == nil ? 1 : 0, count: strings.count)
        @inline(__always) func keeps(_ key: Int) -> Bool {
            if keyVerdict[key] == 0 { keyVerdict[key] = keepKey!(strings[key]) ? 1 : 2 }
            return keyVerdict[key] == 1
        }
        let granularity = Int64(block.granularity)
        let latOffset = block.latOffset
        let lonOffset = block.lonOffset
        @inline(__always) func e7(_ offset: Int64, _ value: Int64) -> Int32 {
            let nano = offset &+ granularity &* value
            // Round half away from zero to 1e-7 degrees.
            let q = nano >= 0 ? (nano + 50) / 100 : (nano - 50) / 100
            return Int32(clamping: q)
        }
        func string(_ index: Int) throws(MapImportError) -> String {
            guard index >= 0, index < strings.count else { throw fail("string index \(index) outside a table of \(strings.count)") }
            return strings[index]
        }
        func tags(_ keys: [UInt32], _ vals: [UInt32]) throws(MapImportError) -> OSMTags {
            guard keys.count == vals.count else { throw fail("\(keys.count) tag keys but \(vals.count) values") }
            if keys.isEmpty { return OSMTags() }
            var pairs: [OSMTag] = []
            pairs.reserveCapacity(keys.count)
            for i in keys.indices {
                let key = try string(Int(keys[i])), value = try string(Int(vals[i]))
                if keeps(Int(keys[i])) { pairs.append(OSMTag(key: key, value: value)) }
            }
            return OSMTags(pairs)
        }

        var out = OSMBlock()
        for group in block.primitivegroup {
            // Plain nodes.
            for node in group.nodes {
                let t = try tags(node.keys, node.vals)
                if !t.isEmpty { out.taggedNodes.append((out.nodeIDs.count, t)) }
                out.nodeIDs.append(node.id)
                out.nodeLat.append(e7(latOffset, node.lat))
                out.nodeLon.append(e7(lonOffset, node.lon))
            }
            // Dense nodes: delta-coded columns plus a 0-separated key/value stream.
            if group.hasDense {
                let dense = group.dense
                let n = dense.id.count
                guard dense.lat.count == n, dense.lon.count == n else {
                    throw fail("dense nodes: \(n) ids, \(dense.lat.count) latitudes, \(dense.lon.count) longitudes")
                }
                out.nodeIDs.reserveCapacity(out.nodeIDs.count + n)
                out.nodeLat.reserveCapacity(out.nodeLat.count + n)
                out.nodeLon.reserveCapacity(out.nodeLon.count + n)
                let kv = dense.keysVals
                var kvIndex = 0
                var id: Int64 = 0, lat: Int64 = 0, lon: Int64 = 0
                for i in 0..<n {
                    id &+= dense.id[i]
                    lat &+= dense.lat[i]
                    lon &+= dense.lon[i]
                    if !kv.isEmpty {
                        var pairs: [OSMTag] = []
                        let first = kvIndex
                        while kvIndex < kv.count, kv[kvIndex] != 0 {
                            guard kvIndex + 1 < kv.count else { throw fail("dense nodes: key without a value") }
                            let key = try string(Int(kv[kvIndex])), value = try string(Int(kv[kvIndex + 1]))
                            if keeps(Int(kv[kvIndex])) {
                                // Sized once for the node's pairs, not grown one by one.
                                if pairs.isEmpty { pairs.reserveCapacity(Self.pairCount(kv, from: first)) }
                                pairs.append(OSMTag(key: key, value: value))
                            }
                            kvIndex += 2
                        }
                        kvIndex += 1 // the 0 separator
                        if !pairs.isEmpty { out.taggedNodes.append((out.nodeIDs.count, OSMTags(pairs))) }
                    }
                    out.nodeIDs.append(id)
                    out.nodeLat.append(e7(latOffset, lat))
                    out.nodeLon.append(e7(lonOffset, lon))
                }
            }
            for way in group.ways {
                var refs: [Int64] = []
                refs.reserveCapacity(way.refs.count)
                var ref: Int64 = 0
                for delta in way.refs { ref &+= delta; refs.append(ref) }
                out.ways.append(OSMWay(id: way.id, refs: refs, tags: try tags(way.keys, way.vals)))
            }
            for relation in group.relations {
                let m = relation.memids.count
                guard relation.rolesSid.count == m, relation.types.count == m else {
                    throw fail("relation \(relation.id): member arrays of different lengths")
                }
                let relationTags = try tags(relation.keys, relation.vals)
                if let keepMembers, !keepMembers(relationTags) {
                    out.relations.append(OSMRelation(id: relation.id, members: [], tags: relationTags))
                    continue
                }
                var members: [OSMMember] = []
                members.reserveCapacity(m)
                var ref: Int64 = 0
                for i in 0..<m {
                    ref &+= relation.memids[i]
                    let kind: OSMElementKind
                    switch relation.types[i] {
                    case .node: kind = .node
                    case .way: kind = .way
                    case .relation: kind = .relation
                    }
                    members.append(OSMMember(kind: kind, ref: ref, role: try string(Int(relation.rolesSid[i]))))
                }
                out.relations.append(OSMRelation(id: relation.id, members: members, tags: relationTags))
            }
        }
        return out
    }
}
