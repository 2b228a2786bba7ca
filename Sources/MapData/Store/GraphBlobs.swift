import Foundation
import Geo
import GRDB

/// The walking graph as map format 6 stores it: chunks of nodes (`walk_node_chunks`) and of edges
/// (`walk_edge_chunks`), each chunk one row holding a blob of varints, instead of a row per node and per
/// edge. The graph is only ever read whole (``WalkingGraph/load(_:)``), and a row per item was most of what
/// an import's writer did at the end (issue 33): a region's graph is a few hundred inserts this way, encoded
/// on the thread that builds it, and it reads back faster than rows.
///
/// A node chunk holds its nodes in ascending id order, each as the zigzag varint differences of its id and
/// its latitude and longitude (1e-7 degrees) from the node before (the first from 0), then a byte of flags
/// (1 crossing, 2 traffic signals, 4 signal sound). An edge chunk holds consecutive edges (their ids follow
/// the chunk's `first_id`), each as zigzag varints: `from` minus the edge before's `to` (0 for edges of a
/// way, which follow one another), `to` minus `from`, the way id minus the edge before's; a byte of flags
/// (1 crossing, 2 traffic signals, 4 signal sound, 8 one way for pedestrians, and the level plus one from
/// bit 4 on); then the vertices between its two nodes: a varint count and each vertex as differences from
/// the one before, the first from the `from` node (the end points are the nodes' own).
enum WalkGraphBlob {
    /// Items per chunk: a chunk's blob is a few kilobytes.
    static let chunkSize = 1_024

    /// A chunk ready to insert.
    struct Chunk: Sendable, Equatable {
        enum Kind: Sendable { case nodes, edges }
        var kind: Kind
        /// The id of its first edge (edges only: their ids are consecutive, from 1 in an import).
        var firstID: Int64
        var count: Int
        var data: Data
    }

    /// A node as a chunk stores it.
    struct NodeRecord: Sendable, Hashable {
        var id: Int64
        var lat: Int32
        var lon: Int32
        var flags: NodeFlags
    }

    /// An edge as a chunk stores it.
    struct EdgeRecord: Sendable, Hashable {
        var id: Int64
        var from: Int64
        var to: Int64
        var wayID: Int64
        var isCrossing: Bool
        var trafficSignals: Bool
        var signalSound: Bool
        var level: Int
        var onewayFoot: Bool
        /// The vertices between `from` and `to` in 1e-7 degrees relative to `from`'s coordinate, latitude
        /// and longitude of each in turn.
        var inner: [Int32]
    }

    /// Collects nodes (in ascending id order) into chunks.
    struct NodeEncoder {
        private var bytes: [UInt8] = []
        private(set) var count = 0
        private var last = (id: Int64(0), lat: Int64(0), lon: Int64(0))

        mutating func append(id: Int64, lat: Int32, lon: Int32, flags: NodeFlags) {
            GeometryBlob.putVarint(GeometryBlob.zigzag(id &- last.id), &bytes)
            GeometryBlob.putVarint(GeometryBlob.zigzag(Int64(lat) - last.lat), &bytes)
            GeometryBlob.putVarint(GeometryBlob.zigzag(Int64(lon) - last.lon), &bytes)
            bytes.append(flags.intersection([.crossing, .trafficSignals, .signalSound]).rawValue)
            last = (id, Int64(lat), Int64(lon))
            count += 1
        }

        /// The chunk collected so far; the encoder starts a new one.
        mutating func take() -> Chunk {
            defer { self = NodeEncoder() }
            return Chunk(kind: .nodes, firstID: 0, count: count, data: Data(bytes))
        }
    }

    /// Collects edges, numbered from `firstID` on, into chunks.
    struct EdgeEncoder {
        private var bytes: [UInt8] = []
        private(set) var count = 0
        private var firstID: Int64
        private var lastTo: Int64 = 0, lastWay: Int64 = 0

        init(firstID: Int64 = 1) { self.firstID = firstID }

        /// Appends an edge; its geometry runs from its `from` node's coordinate to its `to` node's.
        mutating func append(_ e: PendingWalkEdge) {
            GeometryBlob.putVarint(GeometryBlob.zigzag(e.from &- lastTo), &bytes)
            GeometryBlob.putVarint(GeometryBlob.zigzag(e.to &- e.from), &bytes)
            GeometryBlob.putVarint(GeometryBlob.zigzag(e.wayID &- lastWay), &bytes)
            var flags = UInt8(e.isCrossing ? 1 : 0) | (e.trafficSignals ? 2 : 0) | (e.signalSound ? 4 : 0) | (e.onewayFoot ? 8 : 0)
            flags |= UInt8(e.level.rawValue + 1) << 4
            bytes.append(flags)
            let inner = max(e.coords.count - 2, 0)
            GeometryBlob.putVarint(UInt64(inner), &bytes)
            if inner > 0 {
                var lastLat = Int64(GeometryMath.e7(e.coords[0].latitude)), lastLon = Int64(GeometryMath.e7(e.coords[0].longitude))
                for c in e.coords[1...inner] {
                    let lat = Int64(GeometryMath.e7(c.latitude)), lon = Int64(GeometryMath.e7(c.longitude))
                    GeometryBlob.putVarint(GeometryBlob.zigzag(lat - lastLat), &bytes)
                    GeometryBlob.putVarint(GeometryBlob.zigzag(lon - lastLon), &bytes)
                    lastLat = lat
                    lastLon = lon
                }
            }
            lastTo = e.to
            lastWay = e.wayID
            count += 1
        }

        /// The chunk collected so far; the encoder starts a new one, numbered on.
        mutating func take() -> Chunk {
            defer { self = EdgeEncoder(firstID: firstID + Int64(count)) }
            return Chunk(kind: .edges, firstID: firstID, count: count, data: Data(bytes))
        }
    }

    /// The nodes of a chunk; nil when the blob does not hold `count` of them exactly.
    static func nodes(_ data: Data, count: Int) -> [NodeRecord]? {
        data.withUnsafeBytes { raw -> [NodeRecord]? in
            var cursor = GeometryBlob.Cursor(raw, origin: .zero)
            var out: [NodeRecord] = []
            out.reserveCapacity(count)
            var id: Int64 = 0
            for _ in 0..<count {
                guard let dID = cursor.varint(), let (lat, lon) = cursor.vertex(), cursor.offset < raw.count else { return nil }
                id &+= unzigzag(dID)
                let flags = NodeFlags(rawValue: raw[cursor.offset])
                cursor.offset += 1
                out.append(NodeRecord(id: id, lat: lat, lon: lon, flags: flags))
            }
            return cursor.offset == raw.count ? out : nil
        }
    }

    /// The edges of a chunk; nil when the blob does not hold `count` of them exactly.
    static func edges(_ data: Data, firstID: Int64, count: Int) -> [EdgeRecord]? {
        data.withUnsafeBytes { raw -> [EdgeRecord]? in
            var cursor = GeometryBlob.Cursor(raw, origin: .zero)
            var out: [EdgeRecord] = []
            out.reserveCapacity(count)
            var lastTo: Int64 = 0, lastWay: Int64 = 0
            for i in 0..<count {
                guard let dFrom = cursor.varint(), let dTo = cursor.varint(), let dWay = cursor.varint(),
                      cursor.offset < raw.count else { return nil }
                let from = lastTo &+ unzigzag(dFrom), to = from &+ unzigzag(dTo), way = lastWay &+ unzigzag(dWay)
                let flags = raw[cursor.offset]
                cursor.offset += 1
                guard let n = cursor.varint(), n <= UInt64(raw.count - cursor.offset) / 2 else { return nil }
                // The vertices relative to the start node, which the reader adds back.
                cursor.lat = 0
                cursor.lon = 0
                var inner: [Int32] = []
                inner.reserveCapacity(2 * Int(n))
                for _ in 0..<Int(n) {
                    guard let (lat, lon) = cursor.vertex() else { return nil }
                    inner.append(lat)
                    inner.append(lon)
                }
                out.append(EdgeRecord(id: firstID + Int64(i), from: from, to: to, wayID: way, isCrossing: flags & 1 != 0,
                                      trafficSignals: flags & 2 != 0, signalSound: flags & 4 != 0,
                                      level: Int(flags >> 4) - 1, onewayFoot: flags & 8 != 0, inner: inner))
                lastTo = to
                lastWay = way
            }
            return cursor.offset == raw.count ? out : nil
        }
    }

    @inline(__always) static func unzigzag(_ v: UInt64) -> Int64 {
        Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1)
    }
}

/// An intersection's legs as map format 6 stores them: one `intersection_legs` row per intersection, its
/// legs in one blob, instead of a row per leg (issue 33: a region has some 600,000 legs). The blob is a
/// varint count, then per leg a byte (1 against the way's node order, 2 roundabout, 4 the road has a feature
/// row, and the level plus one from bit 3 on), the way id as the zigzag varint difference from the leg
/// before's (the first from 0), the road's feature id likewise when it has one, and the bearing in
/// hundredths of a degree as a varint.
enum IntersectionLegsBlob {
    static func encoded(_ legs: [FeatureWriter.PreparedLeg]) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1 + 10 * legs.count)
        GeometryBlob.putVarint(UInt64(legs.count), &bytes)
        var lastWay: Int64 = 0, lastRoad: Int64 = 0
        for leg in legs {
            var flags = UInt8(leg.direction < 0 ? 1 : 0) | (leg.isRoundabout ? 2 : 0) | (leg.roadFeatureID != nil ? 4 : 0)
            flags |= UInt8(clamping: leg.level + 1) << 3
            bytes.append(flags)
            GeometryBlob.putVarint(GeometryBlob.zigzag(leg.wayID &- lastWay), &bytes)
            lastWay = leg.wayID
            if let road = leg.roadFeatureID {
                GeometryBlob.putVarint(GeometryBlob.zigzag(road &- lastRoad), &bytes)
                lastRoad = road
            }
            GeometryBlob.putVarint(UInt64(clamping: leg.bearing), &bytes)
        }
        return Data(bytes)
    }

    /// The legs of a blob, in the order they were stored; nil when it is not one.
    static func decoded(_ data: Data) -> [FeatureWriter.PreparedLeg]? {
        data.withUnsafeBytes { raw -> [FeatureWriter.PreparedLeg]? in
            var cursor = GeometryBlob.Cursor(raw, origin: .zero)
            guard let count = cursor.varint(), count <= UInt64(raw.count) else { return nil }
            var legs: [FeatureWriter.PreparedLeg] = []
            legs.reserveCapacity(Int(count))
            var lastWay: Int64 = 0, lastRoad: Int64 = 0
            for _ in 0..<Int(count) {
                guard cursor.offset < raw.count else { return nil }
                let flags = raw[cursor.offset]
                cursor.offset += 1
                guard let dWay = cursor.varint() else { return nil }
                lastWay &+= WalkGraphBlob.unzigzag(dWay)
                var road: Int64?
                if flags & 4 != 0 {
                    guard let dRoad = cursor.varint() else { return nil }
                    lastRoad &+= WalkGraphBlob.unzigzag(dRoad)
                    road = lastRoad
                }
                guard let bearing = cursor.varint(), let stored = Int64(exactly: bearing) else { return nil }
                legs.append(FeatureWriter.PreparedLeg(roadFeatureID: road, wayID: lastWay, bearing: stored,
                                                      direction: flags & 1 != 0 ? -1 : 1, isRoundabout: flags & 2 != 0,
                                                      level: Int64(flags >> 3) - 1))
            }
            return cursor.offset == raw.count ? legs : nil
        }
    }
}
