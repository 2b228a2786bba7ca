import Foundation
import Geo

/// The shape of a map feature, in WGS-84 degrees.
public enum FeatureGeometry: Sendable, Hashable {
    case point(Coordinate)
    case line([Coordinate])
    /// Rings: the outer ring first, then holes. Rings are closed (first point == last point).
    case polygon([[Coordinate]])
    case multiPoint([Coordinate])
    /// Polygons, each as in `.polygon`.
    case multiPolygon([[[Coordinate]]])

    public enum Kind: Int, Sendable, Codable {
        case point = 0, line = 1, polygon = 2, multiPoint = 3, multiPolygon = 4

        public var geoJSONType: String {
            switch self {
            case .point: return "Point"
            case .line: return "LineString"
            case .polygon: return "Polygon"
            case .multiPoint: return "MultiPoint"
            case .multiPolygon: return "MultiPolygon"
            }
        }
    }

    public var kind: Kind {
        switch self {
        case .point: return .point
        case .line: return .line
        case .polygon: return .polygon
        case .multiPoint: return .multiPoint
        case .multiPolygon: return .multiPolygon
        }
    }

    /// Every vertex, in order.
    public var allPoints: [Coordinate] {
        switch self {
        case .point(let c): return [c]
        case .line(let cs), .multiPoint(let cs): return cs
        case .polygon(let rings): return rings.flatMap { $0 }
        case .multiPolygon(let polys): return polys.flatMap { $0.flatMap { $0 } }
        }
    }

    public var boundingBox: BoundingBox {
        var minLat = Double.infinity, minLon = Double.infinity
        var maxLat = -Double.infinity, maxLon = -Double.infinity
        for c in allPoints {
            minLat = min(minLat, c.latitude); maxLat = max(maxLat, c.latitude)
            minLon = min(minLon, c.longitude); maxLon = max(maxLon, c.longitude)
        }
        return BoundingBox(minLatitude: minLat, minLongitude: minLon, maxLatitude: maxLat, maxLongitude: maxLon)
    }

    /// A representative point: the point itself, the middle of a line (by length), the area centroid
    /// of a polygon's outer ring (or of the largest polygon), the mean of a multipoint.
    public var centroid: Coordinate {
        switch self {
        case .point(let c):
            return c
        case .line(let cs):
            return GeometryMath.midpoint(of: cs)
        case .multiPoint(let cs):
            let n = Double(max(cs.count, 1))
            return Coordinate(latitude: cs.reduce(0) { $0 + $1.latitude } / n,
                              longitude: cs.reduce(0) { $0 + $1.longitude } / n)
        case .polygon(let rings):
            return GeometryMath.ringCentroid(rings.first ?? [])
        case .multiPolygon(let polys):
            let largest = polys.max { GeometryMath.ringArea($0.first ?? []) < GeometryMath.ringArea($1.first ?? []) }
            return GeometryMath.ringCentroid(largest?.first ?? [])
        }
    }

    // MARK: binary encoding

    /// Compact encoding stored in the database: a varint part count, then for each part a varint
    /// `count << 1 | startsPolygon` (a ring that starts a new polygon of a multipolygon) followed by its
    /// vertices, each as the zigzag-varint difference in 1e-7 degrees (latitude, then longitude) from
    /// the vertex before it, the first from `origin` (a point the reader already has: the feature's
    /// stored `lat`/`lon`, or an edge's start node). Neighbouring vertices are close, so most take two or
    /// three bytes instead of eight. A point at the origin itself is the single byte 0 (no parts).
    public func encoded(origin: GeometryBlob.Origin = .zero) -> Data {
        if case .point(let c) = self, GeometryMath.e7(c.latitude) == origin.lat, GeometryMath.e7(c.longitude) == origin.lon {
            return Data([0])
        }
        var parts: [(UInt64, ArraySlice<Coordinate>)] = []
        switch self {
        case .point(let c): parts = [(1 << 1, [c][...])]
        case .line(let cs), .multiPoint(let cs): parts = [(UInt64(cs.count) << 1, cs[...])]
        case .polygon(let rings): parts = rings.map { (UInt64($0.count) << 1, $0[...]) }
        case .multiPolygon(let polys):
            for poly in polys {
                for (i, ring) in poly.enumerated() {
                    parts.append((UInt64(ring.count) << 1 | (i == 0 ? 1 : 0), ring[...]))
                }
            }
        }
        let vertexCount = parts.reduce(0) { $0 + $1.1.count }
        var bytes = [UInt8]()
        bytes.reserveCapacity(2 + 2 * parts.count + 6 * vertexCount)
        GeometryBlob.putVarint(UInt64(parts.count), &bytes)
        var lastLat = Int64(origin.lat), lastLon = Int64(origin.lon)
        for part in parts {
            GeometryBlob.putVarint(part.0, &bytes)
            for c in part.1 {
                let lat = Int64(GeometryMath.e7(c.latitude)), lon = Int64(GeometryMath.e7(c.longitude))
                GeometryBlob.putVarint(GeometryBlob.zigzag(lat - lastLat), &bytes)
                GeometryBlob.putVarint(GeometryBlob.zigzag(lon - lastLon), &bytes)
                lastLat = lat
                lastLon = lon
            }
        }
        return Data(bytes)
    }

    /// Decodes ``encoded(origin:)``; `origin` must be the one it was encoded from.
    public init?(kind: Kind, encoded data: Data, origin: GeometryBlob.Origin = .zero) {
        guard let parts = GeometryBlob.decodeParts(data, origin: origin) else { return nil }
        switch kind {
        case .point:
            if parts.isEmpty {
                self = .point(origin.coordinate)
                return
            }
            guard let c = parts.first?.points.first else { return nil }
            self = .point(c)
        case .line:
            self = .line(parts.first?.points ?? [])
        case .multiPoint:
            self = .multiPoint(parts.first?.points ?? [])
        case .polygon:
            self = .polygon(parts.map(\.points))
        case .multiPolygon:
            var polys: [[[Coordinate]]] = []
            for part in parts {
                if part.startsPolygon || polys.isEmpty { polys.append([]) }
                polys[polys.count - 1].append(part.points)
            }
            self = .multiPolygon(polys)
        }
    }
}

/// Reads the encoded geometry without building arrays of coordinates: the query paths use it to
/// measure distances for many candidates quickly.
public enum GeometryBlob {
    /// Where an encoding's first vertex is measured from, in 1e-7 degrees.
    public struct Origin: Sendable, Equatable {
        public var lat: Int32
        public var lon: Int32
        public static let zero = Origin(lat: 0, lon: 0)

        public init(lat: Int32, lon: Int32) {
            self.lat = lat
            self.lon = lon
        }

        /// From a row's stored `lat`/`lon` (1e-7 degrees); zero for values out of range, which no map stores.
        init(stored lat: Int64, _ lon: Int64) {
            self.init(lat: Int32(exactly: lat) ?? 0, lon: Int32(exactly: lon) ?? 0)
        }

        var coordinate: Coordinate { Coordinate(latitude: Double(lat) * 1e-7, longitude: Double(lon) * 1e-7) }
    }

    struct Part {
        var points: [Coordinate]
        var startsPolygon: Bool
    }

    @inline(__always) static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }

    static func putVarint(_ value: UInt64, _ bytes: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// Reads the encoding sequentially; every read fails (nil) rather than run past the end.
    struct Cursor {
        let raw: UnsafeRawBufferPointer
        var offset = 0
        var lat: Int64 = 0
        var lon: Int64 = 0

        init(_ raw: UnsafeRawBufferPointer, origin: Origin) {
            self.raw = raw
            lat = Int64(origin.lat)
            lon = Int64(origin.lon)
        }

        @inline(__always) mutating func varint() -> UInt64? {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while offset < raw.count && shift < 64 {
                let byte = raw[offset]
                offset += 1
                result |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return result }
                shift += 7
            }
            return nil
        }

        /// The next vertex in 1e-7 degrees.
        @inline(__always) mutating func vertex() -> (Int32, Int32)? {
            guard let dLat = varint(), let dLon = varint() else { return nil }
            lat &+= Int64(bitPattern: dLat >> 1) ^ -Int64(bitPattern: dLat & 1)
            lon &+= Int64(bitPattern: dLon >> 1) ^ -Int64(bitPattern: dLon & 1)
            guard let la = Int32(exactly: lat), let lo = Int32(exactly: lon) else { return nil }
            return (la, lo)
        }

        /// A part's vertex count and whether it starts a polygon; nil past the end or for a count
        /// the remaining bytes cannot hold.
        @inline(__always) mutating func partHeader() -> (count: Int, startsPolygon: Bool)? {
            guard let h = varint() else { return nil }
            let n = h >> 1
            guard n <= UInt64(raw.count - offset) / 2 else { return nil }
            return (Int(n), h & 1 == 1)
        }
    }

    static func decodeParts(_ data: Data, origin: Origin = .zero) -> [Part]? {
        data.withUnsafeBytes { raw -> [Part]? in
            var cursor = Cursor(raw, origin: origin)
            guard let count = cursor.varint(), count <= UInt64(raw.count) else { return nil }
            var parts: [Part] = []
            parts.reserveCapacity(Int(count))
            for _ in 0..<Int(count) {
                guard let (n, startsPolygon) = cursor.partHeader() else { return nil }
                var pts: [Coordinate] = []
                pts.reserveCapacity(n)
                for _ in 0..<n {
                    guard let (lat, lon) = cursor.vertex() else { return nil }
                    pts.append(Coordinate(latitude: Double(lat) * 1e-7, longitude: Double(lon) * 1e-7))
                }
                parts.append(Part(points: pts, startsPolygon: startsPolygon))
            }
            return parts
        }
    }

    /// Distance in metres from `origin` to the geometry, the closest point and whether the origin
    /// is inside an areal geometry (distance 0 then).
    static func closest(kind: FeatureGeometry.Kind, blob: Data, from start: Origin = .zero,
                        to origin: Coordinate) -> GeometryMath.Closest? {
        blob.withUnsafeBytes { raw -> GeometryMath.Closest? in
            var cursor = Cursor(raw, origin: start)
            guard let count = cursor.varint(), count <= UInt64(raw.count) else { return nil }
            let projection = LocalProjection(origin: origin)
            if count == 0 {
                // A point at its start (see FeatureGeometry.encoded(origin:)).
                guard kind == .point, raw.count == 1 else { return nil }
                let (x, y) = projection.project(latE7: start.lat, lonE7: start.lon)
                return GeometryMath.Closest(distance: (x * x + y * y).squareRoot(), point: projection.unproject(x, y), inside: false)
            }
            var best = Double.infinity
            var bestX = 0.0, bestY = 0.0
            var inside = false
            let areal = kind == .polygon || kind == .multiPolygon
            let pointwise = kind == .point || kind == .multiPoint
            for _ in 0..<Int(count) {
                guard let (n, _) = cursor.partHeader(), n > 0 else { return nil }
                var px = 0.0, py = 0.0
                for i in 0..<n {
                    guard let (lat, lon) = cursor.vertex() else { return nil }
                    let (x, y) = projection.project(latE7: lat, lonE7: lon)
                    if pointwise || n == 1 {
                        let d = x * x + y * y
                        if d < best { best = d; bestX = x; bestY = y }
                    } else if i > 0 {
                        let (cx, cy) = GeometryMath.closestOnSegment(px, py, x, y)
                        let d = cx * cx + cy * cy
                        if d < best { best = d; bestX = cx; bestY = cy }
                        // Even-odd crossing test of a ray from the origin towards +x.
                        if areal && ((py > 0) != (y > 0)) {
                            let xCross = px + (0 - py) * (x - px) / (y - py)
                            if xCross > 0 { inside.toggle() }
                        }
                    }
                    px = x; py = y
                }
            }
            guard best.isFinite else { return nil }
            let point = projection.unproject(bestX, bestY)
            if inside { return GeometryMath.Closest(distance: 0, point: point, inside: true) }
            return GeometryMath.Closest(distance: best.squareRoot(), point: point, inside: false)
        }
    }
}

/// Equirectangular projection about an origin, in metres. Within a few kilometres its error is far
/// below GPS noise, and it makes point-to-segment distances cheap.
struct LocalProjection {
    let lat0: Double
    let lon0: Double
    let mPerDegLat: Double
    let mPerDegLon: Double

    init(origin: Coordinate) {
        lat0 = origin.latitude
        lon0 = origin.longitude
        let r = Geo.earthRadius * Double.pi / 180
        mPerDegLat = r
        mPerDegLon = r * cos(origin.latitude * Double.pi / 180)
    }

    @inline(__always) func project(latE7: Int32, lonE7: Int32) -> (Double, Double) {
        ((Double(lonE7) * 1e-7 - lon0) * mPerDegLon, (Double(latE7) * 1e-7 - lat0) * mPerDegLat)
    }

    @inline(__always) func project(_ c: Coordinate) -> (Double, Double) {
        ((c.longitude - lon0) * mPerDegLon, (c.latitude - lat0) * mPerDegLat)
    }

    func unproject(_ x: Double, _ y: Double) -> Coordinate {
        Coordinate(latitude: lat0 + y / mPerDegLat, longitude: lon0 + x / max(mPerDegLon, 1e-9))
    }
}

public enum GeometryMath {
    public struct Closest: Sendable, Hashable {
        /// Metres; 0 when inside an area.
        public var distance: Double
        /// The nearest point of the geometry (the origin's projection onto it).
        public var point: Coordinate
        public var inside: Bool
    }

    @inline(__always) static func e7(_ degrees: Double) -> Int32 {
        Int32((degrees * 1e7).rounded())
    }

    /// Closest point to the origin on segment a–b, in projected metres.
    @inline(__always) static func closestOnSegment(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) -> (Double, Double) {
        let dx = bx - ax, dy = by - ay
        let len2 = dx * dx + dy * dy
        if len2 <= 0 { return (ax, ay) }
        var t = -(ax * dx + ay * dy) / len2
        t = min(1, max(0, t))
        return (ax + t * dx, ay + t * dy)
    }

    /// Closest point of an in-memory geometry.
    public static func closest(_ geometry: FeatureGeometry, to origin: Coordinate) -> Closest? {
        GeometryBlob.closest(kind: geometry.kind, blob: geometry.encoded(), to: origin)
    }

    /// Polyline length in metres (haversine on each segment).
    static func length(_ points: [Coordinate]) -> Double {
        guard points.count > 1 else { return 0 }
        var total = 0.0
        for i in 1..<points.count { total += points[i - 1].distance(to: points[i]) }
        return total
    }

    static func midpoint(of points: [Coordinate]) -> Coordinate {
        guard points.count > 1 else { return points.first ?? Coordinate(latitude: 0, longitude: 0) }
        return point(along: points, at: length(points) / 2)
    }

    /// The point `distance` metres along the polyline (clamped to its ends).
    static func point(along points: [Coordinate], at distance: Double) -> Coordinate {
        guard var previous = points.first else { return Coordinate(latitude: 0, longitude: 0) }
        var remaining = distance
        for next in points.dropFirst() {
            let d = previous.distance(to: next)
            if d >= remaining && d > 0 {
                let t = remaining / d
                return Coordinate(latitude: previous.latitude + (next.latitude - previous.latitude) * t,
                                  longitude: previous.longitude + (next.longitude - previous.longitude) * t)
            }
            remaining -= d
            previous = next
        }
        return previous
    }

    /// Signed planar area of a ring in square degrees (scaled in longitude by cos(lat)); only used
    /// to compare sizes and find centroids.
    static func ringArea(_ ring: [Coordinate]) -> Double {
        guard ring.count > 2 else { return 0 }
        let k = cos((ring[0].latitude) * Double.pi / 180)
        var a = 0.0
        for i in 0..<(ring.count - 1) {
            a += ring[i].longitude * k * ring[i + 1].latitude - ring[i + 1].longitude * k * ring[i].latitude
        }
        return abs(a / 2)
    }

    static func ringCentroid(_ ring: [Coordinate]) -> Coordinate {
        guard ring.count > 2 else {
            if ring.isEmpty { return Coordinate(latitude: 0, longitude: 0) }
            return Coordinate(latitude: ring.map(\.latitude).reduce(0, +) / Double(ring.count),
                              longitude: ring.map(\.longitude).reduce(0, +) / Double(ring.count))
        }
        // Work relative to the first vertex to keep the arithmetic well conditioned.
        let lat0 = ring[0].latitude, lon0 = ring[0].longitude
        var a = 0.0, cx = 0.0, cy = 0.0
        for i in 0..<(ring.count - 1) {
            let x0 = ring[i].longitude - lon0, y0 = ring[i].latitude - lat0
            let x1 = ring[i + 1].longitude - lon0, y1 = ring[i + 1].latitude - lat0
            let cross = x0 * y1 - x1 * y0
            a += cross
            cx += (x0 + x1) * cross
            cy += (y0 + y1) * cross
        }
        if abs(a) < 1e-18 {
            return Coordinate(latitude: ring.map(\.latitude).reduce(0, +) / Double(ring.count),
                              longitude: ring.map(\.longitude).reduce(0, +) / Double(ring.count))
        }
        return Coordinate(latitude: lat0 + cy / (3 * a), longitude: lon0 + cx / (3 * a))
    }
}
