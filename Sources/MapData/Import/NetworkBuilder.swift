import Foundation
import Geo

enum LegGeometry {
    /// Soundscape measures a road's direction from an intersection to the point this far along it.
    static let measureDistance = 25.0

    /// A bearing as the map stores it: hundredths of a degree, an integer of two or three bytes where
    /// a REAL takes eight (the callouts speak in whole degrees at best).
    static func stored(bearing: Double) -> Int64 { Int64((bearing * 100).rounded()) % 36_000 }
    static func bearing(stored: Int64) -> Double { Double(stored) / 100 }

    /// Bearing from `coords[index]` towards the point `measureDistance` metres along the line in
    /// `direction` (+1 forwards, -1 backwards); the far end when the line is shorter.
    static func bearing<C: RandomAccessCollection<Coordinate>>(_ coords: C, from index: Int, direction: Int) -> Double?
        where C.Index == Int {
        let origin = coords[index]
        var previous = origin
        var travelled = 0.0
        var i = index + direction
        var target: Coordinate?
        while i >= 0 && i < coords.count {
            let next = coords[i]
            let d = previous.distance(to: next)
            if travelled + d >= measureDistance && d > 0 {
                let t = (measureDistance - travelled) / d
                target = Coordinate(latitude: previous.latitude + (next.latitude - previous.latitude) * t,
                                    longitude: previous.longitude + (next.longitude - previous.longitude) * t)
                break
            }
            travelled += d
            previous = next
            i += direction
        }
        let end = target ?? previous
        if end == origin { return nil }
        return origin.bearing(to: end)
    }
}

struct PendingLeg: Sendable {
    var wayID: Int64
    var name: String?
    var highway: String
    var bearing: Double
    var direction: Int
    var isRoundabout: Bool
    var level: LevelClass
}

struct PendingIntersection: Sendable {
    var nodeID: Int64
    var coordinate: Coordinate
    var wayIDs: [Int64]
    var legs: [PendingLeg]
    var isRoundabout: Bool
    var level: LevelClass
}

struct PendingWalkEdge: Sendable {
    var from: Int64
    var to: Int64
    var wayID: Int64
    var name: String?
    var highway: String
    var length: Double
    var isCrossing: Bool
    var trafficSignals: Bool
    var signalSound: Bool
    var level: LevelClass
    var onewayFoot: Bool
    var coords: [Coordinate]
}

struct NodeFlags: OptionSet, Hashable, Sendable {
    let rawValue: UInt8
    static let crossing = NodeFlags(rawValue: 1)
    static let trafficSignals = NodeFlags(rawValue: 2)
    static let signalSound = NodeFlags(rawValue: 4)
    static let entrance = NodeFlags(rawValue: 8)

    static func from(_ tags: OSMTags) -> NodeFlags {
        var flags: NodeFlags = []
        let highway = tags["highway"]
        if highway == "crossing" || tags["crossing"] != nil || tags["railway"] == "crossing" { flags.insert(.crossing) }
        if highway == "traffic_signals" || tags["crossing"] == "traffic_signals" { flags.insert(.trafficSignals) }
        if tags["traffic_signals:sound"] == "yes" { flags.insert(.signalSound) }
        if let entrance = tags["entrance"], entrance != "no" { flags.insert(.entrance) }
        return flags
    }
}

/// The travel ways (roads, paths, connectors) of an import in flat arrays: what intersections and the
/// walking graph need of each way, without its tags. While the ways are read the arrays are appended to
/// scratch files, and `seal()` maps them read-only: a region's network (about 30 MB at 100 × Helsinki)
/// then no longer grows the heap during the read, and its pages can be given back once they are used.
// @unchecked: the buffers are mapped read-only by `seal()`; before it only the reading thread appends,
// after it any thread may read. `files` keeps the mappings alive as long as any copy of the network.
struct TravelNetwork: @unchecked Sendable {
    struct Way: Sendable {
        var wayID: Int64
        /// The way's feature row, 0 when it made none.
        var featureID: Int64
        /// Its resolved vertices: `start..<start + count` in the vertex arrays.
        var start: Int
        var count: Int
        var highway: Int32
        /// Index of its name in `strings`, -1 when it has none.
        var name: Int32
        /// The level's raw value: a plain integer keeps the record bitwise copyable, for its scratch file.
        private var levelCode: Int8
        var flags: Flags

        var level: LevelClass { LevelClass(rawValue: Int(levelCode)) ?? .ground }

        init(wayID: Int64, featureID: Int64, start: Int, count: Int, highway: Int32, name: Int32, level: LevelClass, flags: Flags) {
            self.wayID = wayID
            self.featureID = featureID
            self.start = start
            self.count = count
            self.highway = highway
            self.name = name
            levelCode = Int8(level.rawValue)
            self.flags = flags
        }
    }

    struct Flags: OptionSet, Sendable {
        let rawValue: UInt8
        static let roundabout = Flags(rawValue: 1)
        static let joinsIntersections = Flags(rawValue: 2)
        static let walkable = Flags(rawValue: 4)
        static let crossing = Flags(rawValue: 8)
        static let signals = Flags(rawValue: 16)
        static let signalSound = Flags(rawValue: 32)
        static let onewayFoot = Flags(rawValue: 64)
    }

    /// The scratch files behind the arrays.
    private final class Files {
        let ways: RecordFile<Way>
        let nodeIDs: RecordFile<Int64>
        let lat: RecordFile<Int32>
        let lon: RecordFile<Int32>

        init(prefix: String, source: String) throws(MapImportError) {
            ways = try RecordFile(path: prefix + "-ways", source: source, bufferRecords: 1 << 12)
            nodeIDs = try RecordFile(path: prefix + "-ids", source: source)
            lat = try RecordFile(path: prefix + "-lat", source: source)
            lon = try RecordFile(path: prefix + "-lon", source: source)
        }
    }

    private var files: Files?
    private(set) var ways = UnsafeBufferPointer<Way>(start: nil, count: 0)
    private(set) var nodeIDs = UnsafeBufferPointer<Int64>(start: nil, count: 0)
    private(set) var lat = UnsafeBufferPointer<Int32>(start: nil, count: 0)
    private(set) var lon = UnsafeBufferPointer<Int32>(start: nil, count: 0)
    private var vertexCount = 0
    private(set) var strings: [String] = []
    private var stringIndex: [String: Int32] = [:]

    /// An empty network.
    init() {}

    /// A network to be filled with `add` and then sealed, kept in files named `prefix-…` (deleted with it).
    init(scratchPrefix prefix: String, source: String) throws(MapImportError) {
        files = try Files(prefix: prefix, source: source)
    }

    /// Maps what was added; nothing can be added after.
    mutating func seal() throws(MapImportError) {
        guard let files else { return }
        ways = try files.ways.seal()
        nodeIDs = try files.nodeIDs.seal()
        lat = try files.lat.seal()
        lon = try files.lon.seal()
        stringIndex = [:]
    }

    /// Lets the kernel take back the mapped pages read so far (they are read again when next touched).
    func releasePages() {
        guard let files else { return }
        files.ways.releasePages()
        files.nodeIDs.releasePages()
        files.lat.releasePages()
        files.lon.releasePages()
    }

    private mutating func intern(_ text: String?) -> Int32 {
        guard let text else { return -1 }
        if let i = stringIndex[text] { return i }
        let i = Int32(strings.count)
        strings.append(text)
        stringIndex[text] = i
        return i
    }

    func string(_ index: Int32) -> String? { index >= 0 ? strings[Int(index)] : nil }

    /// The feature row of a way, nil when it made none or is not in the network (ways are added in
    /// ascending id order, as the file has them, so this is a binary search).
    func featureID(ofWay id: Int64) -> Int64? {
        var lo = 0, hi = ways.count - 1
        while lo <= hi {
            let mid = (lo + hi) >> 1
            let v = ways[mid].wayID
            if v == id { return ways[mid].featureID != 0 ? ways[mid].featureID : nil }
            if v < id { lo = mid + 1 } else { hi = mid - 1 }
        }
        return nil
    }

    /// Adds a travel way with its resolved vertices (node ids and coordinates in 1e-7 degrees).
    mutating func add(wayID: Int64, featureID: Int64?, tags: OSMTags, highway: String,
                      ids: [Int64], lat wayLat: [Int32], lon wayLon: [Int32]) throws(MapImportError) {
        guard let files else { preconditionFailure("a network made with init() cannot be added to") }
        var flags: Flags = []
        if ["roundabout", "circular"].contains(tags["junction"] ?? "") { flags.insert(.roundabout) }
        if FeatureRules.joinsIntersections(tags, highway: highway) { flags.insert(.joinsIntersections) }
        if FeatureRules.isWalkable(tags, highway: highway) { flags.insert(.walkable) }
        if tags["footway"] == "crossing" || highway == "crossing" || tags["crossing"] != nil { flags.insert(.crossing) }
        if tags["crossing"] == "traffic_signals" { flags.insert(.signals) }
        if tags["traffic_signals:sound"] == "yes" { flags.insert(.signalSound) }
        if tags["oneway:foot"] == "yes" { flags.insert(.onewayFoot) }
        try files.ways.append(Way(wayID: wayID, featureID: featureID ?? 0, start: vertexCount, count: ids.count,
                                  highway: intern(highway), name: intern(tags["name"]), level: LevelClass.classify(tags),
                                  flags: flags))
        try files.nodeIDs.append(contentsOf: ids)
        try files.lat.append(contentsOf: wayLat)
        try files.lon.append(contentsOf: wayLon)
        vertexCount += ids.count
    }

    func coordinate(_ vertex: Int) -> Coordinate {
        Coordinate(latitude: Double(lat[vertex]) * 1e-7, longitude: Double(lon[vertex]) * 1e-7)
    }

    /// A way's vertices as coordinates, read from the network's arrays as they are used: the legs'
    /// bearings look 25 m along a way, so copying the whole way for each of its intersections cost
    /// more than the bearings themselves.
    func coordinates(of way: Way) -> WayCoordinates {
        WayCoordinates(lat: lat, lon: lon, start: way.start, count: way.count)
    }

    struct WayCoordinates: RandomAccessCollection {
        let lat: UnsafeBufferPointer<Int32>, lon: UnsafeBufferPointer<Int32>
        let start: Int
        let count: Int
        var startIndex: Int { 0 }
        var endIndex: Int { count }
        subscript(i: Int) -> Coordinate {
            Coordinate(latitude: Double(lat[start + i]) * 1e-7, longitude: Double(lon[start + i]) * 1e-7)
        }
    }
}

/// Synthesises intersections and the walking graph from highway ways.
enum NetworkBuilder {
    /// Calls `emit` for every intersection, in ascending node id order.
    static func intersections(_ network: TravelNetwork, emit: (PendingIntersection) throws -> Void) rethrows {
        // The vertices of the ways that join intersections, by node id and then by vertex (that is, by way
        // and position), which brings every way through a node together: 4 bytes a vertex where a
        // (node, way, position) triple took 16, at the moment of a region's import that needs the most memory.
        var order: [Int32] = []
        // Sized first: grown by doubling, the array held its old and new buffers at once.
        order.reserveCapacity(network.ways.reduce(0) { $0 + ($1.flags.contains(.joinsIntersections) ? $1.count : 0) })
        for way in network.ways where way.flags.contains(.joinsIntersections) {
            order.append(contentsOf: (Int32(way.start)..<Int32(way.start + way.count)))
        }
        // The network's mapped pages are let go as they are passed (they are read again from the page
        // cache when needed): read whole, they were a fifth of a region's peak memory.
        network.releasePages()
        let nodeIDs = network.nodeIDs
        order.sort { a, b in
            let na = nodeIDs[Int(a)], nb = nodeIDs[Int(b)]
            return na != nb ? na < nb : a < b
        }
        /// The way a vertex belongs to (ways hold consecutive vertex ranges, in order).
        func wayIndex(_ vertex: Int) -> Int {
            var lo = 0, hi = network.ways.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) >> 1
                if network.ways[mid].start <= vertex { lo = mid } else { hi = mid - 1 }
            }
            return lo
        }
        network.releasePages()
        var groupStart = 0
        var groupsSinceRelease = 0
        // Reused from node to node.
        var group: [(way: Int, position: Int)] = []
        var distinctWays: [Int] = []
        while groupStart < order.count {
            groupsSinceRelease += 1
            if groupsSinceRelease == 100_000 {
                network.releasePages()
                groupsSinceRelease = 0
            }
            let node = nodeIDs[Int(order[groupStart])]
            var groupEnd = groupStart + 1
            while groupEnd < order.count && nodeIDs[Int(order[groupEnd])] == node { groupEnd += 1 }
            defer { groupStart = groupEnd }
            guard groupEnd - groupStart >= 2 else { continue }
            group.removeAll(keepingCapacity: true)
            var possibleLegs = 0
            for vertex in order[groupStart..<groupEnd] {
                let w = wayIndex(Int(vertex))
                let position = Int(vertex) - network.ways[w].start
                group.append((w, position))
                possibleLegs += (position > 0 ? 1 : 0) + (position + 1 < network.ways[w].count ? 1 : 0)
            }
            // Two ways joined end to end are one road continuing, not an intersection: known before any bearing.
            guard possibleLegs >= 3 else { continue }
            distinctWays.removeAll(keepingCapacity: true)
            for use in group where !distinctWays.contains(use.way) { distinctWays.append(use.way) }
            guard distinctWays.count >= 2 else { continue } // a way meeting itself is not an intersection
            var legs: [PendingLeg] = []
            legs.reserveCapacity(possibleLegs)
            var coordinate: Coordinate?
            var cachedWay = -1
            var coords = TravelNetwork.WayCoordinates(lat: network.lat, lon: network.lon, start: 0, count: 0)
            for use in group {
                let way = network.ways[use.way]
                if cachedWay != use.way {
                    coords = network.coordinates(of: way)
                    cachedWay = use.way
                }
                let position = use.position
                coordinate = coords[position]
                let isRoundabout = way.flags.contains(.roundabout)
                for direction in stride(from: 1, through: -1, by: -2) { // 1, then -1
                    // (A ring's closing vertex repeats its first one; the bounds check below gives
                    // each of them the one direction it has.)
                    let next = position + direction
                    guard next >= 0 && next < coords.count,
                          let bearing = LegGeometry.bearing(coords, from: position, direction: direction) else { continue }
                    legs.append(PendingLeg(wayID: way.wayID, name: network.string(way.name),
                                           highway: network.string(way.highway) ?? "", bearing: bearing,
                                           direction: direction, isRoundabout: isRoundabout, level: way.level))
                }
            }
            // Two ways joined end to end are one road continuing, not an intersection.
            guard legs.count >= 3, let coordinate else { continue }
            let levels = legs.map(\.level)
            try emit(PendingIntersection(
                nodeID: node, coordinate: coordinate, wayIDs: distinctWays.map { network.ways[$0].wayID },
                legs: legs, isRoundabout: legs.contains { $0.isRoundabout },
                level: levels.contains(.ground) ? .ground : levels[0]))
        }
    }

    /// Calls `emitEdge` for every walking-graph edge (in way order) and returns the graph's vertices
    /// in ascending node id order, each once, as indices into the network's vertex arrays (4 bytes a
    /// vertex where an (id, coordinate, flags) tuple took 32, twice over, at the import's peak).
    /// Whether a way is in the walking graph: every such way has at least one edge (its last vertex ends one).
    /// (Tested in place rather than copied: the copy of the walkable ways was 48 bytes a way at the peak.)
    static func isWalkable(_ way: TravelNetwork.Way) -> Bool { way.flags.contains(.walkable) && way.count >= 2 }

    static func walkingGraph(_ network: TravelNetwork, nodeFlags: [Int64: NodeFlags],
                             emitEdge: (PendingWalkEdge) throws -> Void) rethrows -> [Int32] {
        // The walkable ways' vertices by node id (4-byte indices, where a sorted list of the ids took 8),
        // and from them a bit for each vertex whose node the walkable ways use more than once.
        let nodeIDs = network.nodeIDs
        var order: [Int32] = []
        order.reserveCapacity(network.ways.reduce(0) { $0 + (isWalkable($1) ? $1.count : 0) })
        for way in network.ways where isWalkable(way) { order.append(contentsOf: Int32(way.start)..<Int32(way.start + way.count)) }
        order.sort { nodeIDs[Int($0)] < nodeIDs[Int($1)] }
        func groupEnd(_ start: Int) -> Int {
            var end = start + 1
            while end < order.count && nodeIDs[Int(order[end])] == nodeIDs[Int(order[start])] { end += 1 }
            return end
        }
        var shared = VertexBits(count: nodeIDs.count)
        var groupStart = 0
        while groupStart < order.count {
            let end = groupEnd(groupStart)
            if end - groupStart > 1 { for k in groupStart..<end { shared.insert(Int(order[k])) } }
            groupStart = end
        }
        var isVertex = VertexBits(count: nodeIDs.count)
        network.releasePages()
        for (n, way) in network.ways.enumerated() where isWalkable(way) {
            // The mapped pages are let go as they are passed (read whole, they were the end's peak).
            if n % 65_536 == 65_535 { network.releasePages() }
            let ids = network.nodeIDs[way.start..<(way.start + way.count)]
            let coords = network.coordinates(of: way)
            let wayCrossing = way.flags.contains(.crossing)
            let waySignals = way.flags.contains(.signals)
            let waySound = way.flags.contains(.signalSound)
            var start = 0
            var length = 0.0
            var edgeFlags: NodeFlags = []
            for i in 0..<way.count {
                let id = ids[way.start + i]
                if i > 0 { length += coords[i - 1].distance(to: coords[i]) }
                let flags = nodeFlags[id] ?? []
                let vertex = i == 0 || i == way.count - 1 || shared.contains(way.start + i)
                    || flags.contains(.crossing) || flags.contains(.trafficSignals)
                guard vertex else { edgeFlags.formUnion(flags); continue }
                isVertex.insert(way.start + i)
                if i > start {
                    let startID = ids[way.start + start]
                    let endFlags = (nodeFlags[startID] ?? []).union(flags).union(edgeFlags)
                    try emitEdge(PendingWalkEdge(
                        from: startID, to: id, wayID: way.wayID, name: network.string(way.name),
                        highway: network.string(way.highway) ?? "", length: length, isCrossing: wayCrossing,
                        trafficSignals: waySignals || (wayCrossing && endFlags.contains(.trafficSignals)),
                        signalSound: waySound || (wayCrossing && endFlags.contains(.signalSound)),
                        level: way.level, onewayFoot: way.flags.contains(.onewayFoot), coords: Array(coords[start...i])))
                }
                start = i
                length = 0
                edgeFlags = []
            }
        }
        // The graph's nodes in id order, one vertex of each (every use of a node has the same coordinate
        // and flags, so which one does not matter), kept in place in `order`.
        var kept = 0
        groupStart = 0
        while groupStart < order.count {
            let end = groupEnd(groupStart)
            if let k = (groupStart..<end).first(where: { isVertex.contains(Int(order[$0])) }) {
                order[kept] = order[k]
                kept += 1
            }
            groupStart = end
        }
        order.removeLast(order.count - kept)
        return order
    }
}

/// One bit for each vertex of a travel network.
struct VertexBits {
    private var words: [UInt64]
    init(count: Int) { words = Array(repeating: 0, count: (count + 63) / 64) }
    mutating func insert(_ i: Int) { words[i >> 6] |= 1 << UInt64(i & 63) }
    func contains(_ i: Int) -> Bool { words[i >> 6] & (1 << UInt64(i & 63)) != 0 }
}
