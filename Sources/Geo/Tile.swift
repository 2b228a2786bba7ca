import Foundation

/// A Web-Mercator ("slippy map") tile, x growing east and y growing south from the
/// north-west corner, as in the OSM wiki "Slippy map tilenames" scheme.
public struct Tile: Sendable, Hashable, Codable {
    public var x: Int
    public var y: Int
    public var zoom: Int

    /// The zoom level Soundscape fetches map data at.
    public static let soundscapeZoom = 16
    /// Web Mercator stops at ±85.0511287798°, where the map becomes square.
    public static let maxLatitude = 85.051_128_779_806_59
    /// Highest zoom these integer formulas support.
    public static let maxZoom = 30

    public init(x: Int, y: Int, zoom: Int) {
        self.x = x
        self.y = y
        self.zoom = zoom
    }

    /// The tile that contains `coordinate` at `zoom` (0...30). Latitudes beyond the
    /// Mercator limit are clamped to the top/bottom row; longitude 180 falls in the last column.
    public init(containing coordinate: Coordinate, zoom: Int = Tile.soundscapeZoom) {
        precondition((0...Tile.maxZoom).contains(zoom), "Tile zoom must be in 0...\(Tile.maxZoom)")
        let n = Double(1 << zoom)
        let lat = min(max(coordinate.latitude, -Tile.maxLatitude), Tile.maxLatitude)
        let fx = (coordinate.longitude + 180) / 360 * n
        let fy = (1 - asinh(tan(radians(lat))) / .pi) / 2 * n
        let last = (1 << zoom) - 1
        self.init(x: Self.clampedIndex(fx, last), y: Self.clampedIndex(fy, last), zoom: zoom)
    }

    /// Number of tiles along one side at this zoom (2^zoom).
    public var tilesPerSide: Int { 1 << zoom }

    /// True when zoom is in 0...30 and x, y are in 0..<2^zoom.
    public var isValid: Bool {
        (0...Tile.maxZoom).contains(zoom) && (0..<tilesPerSide).contains(x) && (0..<tilesPerSide).contains(y)
    }

    /// The tile's extent in degrees (north edge from `y`, south edge from `y + 1`).
    public var bounds: BoundingBox {
        let n = Double(tilesPerSide)
        func longitude(_ x: Int) -> Double { Double(x) / n * 360 - 180 }
        func latitude(_ y: Int) -> Double { degrees(atan(sinh(.pi * (1 - 2 * Double(y) / n)))) }
        return BoundingBox(minLatitude: latitude(y + 1), minLongitude: longitude(x),
                           maxLatitude: latitude(y), maxLongitude: longitude(x + 1))
    }

    /// Bing Maps quadkey: one base-4 digit per level, most significant first
    /// (digit = x bit + 2 × y bit). Empty at zoom 0.
    public var quadKey: String {
        var key = ""
        key.reserveCapacity(max(zoom, 0))
        for level in stride(from: zoom, to: 0, by: -1) {
            let mask = 1 << (level - 1)
            var digit = 0
            if x & mask != 0 { digit += 1 }
            if y & mask != 0 { digit += 2 }
            key.append(Character(String(digit)))
        }
        return key
    }

    /// Parses a Bing quadkey (digits 0–3, at most 30 of them); nil if malformed.
    public init?(quadKey: String) {
        guard quadKey.count <= Tile.maxZoom else { return nil }
        var x = 0, y = 0
        for ch in quadKey {
            guard let digit = ch.wholeNumberValue, (0...3).contains(digit), ch.isASCII else { return nil }
            x = x << 1 | (digit & 1)
            y = y << 1 | (digit >> 1)
        }
        self.init(x: x, y: y, zoom: quadKey.count)
    }

    /// Every tile at `zoom` that intersects `BoundingBox(center:radius:)`, sorted by y then x.
    /// A tile that only touches the box along an edge may be included.
    /// Returns an empty array for an invalid `center` or a non-finite `radius`.
    public static func tiles(around center: Coordinate, radius: Double, zoom: Int = Tile.soundscapeZoom) -> [Tile] {
        guard center.isValid, radius.isFinite else { return [] }
        let box = BoundingBox(center: center, radius: radius)
        let northWest = Tile(containing: Coordinate(latitude: box.maxLatitude, longitude: box.minLongitude), zoom: zoom)
        let southEast = Tile(containing: Coordinate(latitude: box.minLatitude, longitude: box.maxLongitude), zoom: zoom)
        var result: [Tile] = []
        result.reserveCapacity((southEast.y - northWest.y + 1) * (southEast.x - northWest.x + 1))
        for y in northWest.y...southEast.y {
            for x in northWest.x...southEast.x {
                result.append(Tile(x: x, y: y, zoom: zoom))
            }
        }
        return result
    }

    private static func clampedIndex(_ value: Double, _ last: Int) -> Int {
        guard value.isFinite else { return 0 }
        return Int(min(max(value.rounded(.down), 0), Double(last)))
    }
}
