import Testing
import Geo

@Suite("Tile")
struct TileTests {
    // Expected x/y: OSM wiki lon2tile/lat2tile evaluated in Python (see ReferenceValues.swift).
    @Test("Tile containing a coordinate", arguments: [
        (City.rautatientori, 16, 37_308, 18_969),
        (City.rautatientori, 0, 0, 0),
        (City.rautatientori, 1, 1, 0),
        (City.rautatientori, 2, 2, 1),
        (City.rautatientori, 3, 4, 2),
        (Coordinate(latitude: -33.8688, longitude: 151.2093), 16, 60_294, 39_327),
        (Coordinate(latitude: 40.7128, longitude: -74.0060), 16, 19_295, 24_640),
    ])
    func containing(c: Coordinate, zoom: Int, x: Int, y: Int) {
        #expect(Tile(containing: c, zoom: zoom) == Tile(x: x, y: y, zoom: zoom))
    }

    @Test func defaultZoomIsSoundscapeZoom() {
        #expect(Tile.soundscapeZoom == 16)
        #expect(Tile(containing: City.rautatientori).zoom == 16)
    }

    @Test func boundsOfRautatientoriTile() {
        // Corners from the OSM wiki inverse formula (tile2lat/tile2lon) in Python.
        let b = Tile(x: 37_308, y: 18_969, zoom: 16).bounds
        #expect(isClose(b.maxLatitude, 60.171_574_051_459_76, within: 1e-10))
        #expect(isClose(b.minLatitude, 60.168_841_613_739_75, within: 1e-10))
        #expect(b.minLongitude == 24.938_964_843_75)
        #expect(b.maxLongitude == 24.944_458_007_812_5)
        #expect(b.contains(City.rautatientori))
    }

    @Test func worldTileBounds() {
        let b = Tile(x: 0, y: 0, zoom: 0).bounds
        #expect(isClose(b.maxLatitude, 85.051_128_78, within: 1e-8))
        #expect(isClose(b.minLatitude, -85.051_128_78, within: 1e-8))
        #expect(b.minLongitude == -180 && b.maxLongitude == 180)
    }

    @Test func clampsOutOfRangeInput() {
        #expect(Tile(containing: Coordinate(latitude: 89, longitude: 0), zoom: 4).y == 0)
        #expect(Tile(containing: Coordinate(latitude: -89, longitude: 0), zoom: 4).y == 15)
        #expect(Tile(containing: Coordinate(latitude: 0, longitude: 180), zoom: 4).x == 15)
        #expect(Tile(containing: Coordinate(latitude: 0, longitude: -180), zoom: 4).x == 0)
        #expect(Tile(containing: Coordinate(latitude: 0, longitude: -180), zoom: 4).isValid)
        #expect(!Tile(x: 16, y: 0, zoom: 4).isValid)
    }

    @Test func quadKeyFromBingDocumentation() {
        // Bing Maps Tile System: tile (3, 5) at level 3 has quadkey "213".
        #expect(Tile(x: 3, y: 5, zoom: 3).quadKey == "213")
        #expect(Tile(quadKey: "213") == Tile(x: 3, y: 5, zoom: 3))
        #expect(Tile(x: 0, y: 0, zoom: 0).quadKey == "")
        #expect(Tile(x: 1, y: 0, zoom: 1).quadKey == "1")
        #expect(Tile(x: 0, y: 1, zoom: 1).quadKey == "2")
    }

    @Test func quadKeyOfRautatientoriTile() {
        // Bit interleaving of x = 37308, y = 18969 done independently in Python.
        let t = Tile(x: 37_308, y: 18_969, zoom: 16)
        #expect(t.quadKey == "1201202110133102")
        #expect(Tile(quadKey: t.quadKey) == t)
    }

    @Test func malformedQuadKeys() {
        #expect(Tile(quadKey: "2140") == nil)
        #expect(Tile(quadKey: "12a") == nil)
        #expect(Tile(quadKey: String(repeating: "1", count: 31)) == nil)
        #expect(Tile(quadKey: "") == Tile(x: 0, y: 0, zoom: 0))
    }

    // Expected blocks: brute-force overlap test in Python (see ReferenceValues.swift).
    @Test("Tiles around Rautatientori", arguments: [
        (0.0, 37_308...37_308, 18_969...18_969),
        (100.0, 37_308...37_309, 18_968...18_969),
        (300.0, 37_307...37_309, 18_968...18_970),
        (1_000.0, 37_305...37_312, 18_965...18_972),
        (2_000.0, 37_302...37_315, 18_962...18_975),
    ])
    func tilesAround(radius: Double, xs: ClosedRange<Int>, ys: ClosedRange<Int>) {
        let tiles = Tile.tiles(around: City.rautatientori, radius: radius)
        var expected: [Tile] = []
        for y in ys { for x in xs { expected.append(Tile(x: x, y: y, zoom: 16)) } }
        #expect(tiles == expected)  // same set and same y-then-x order
    }

    @Test func tilesAroundCountAndOrder() {
        let tiles = Tile.tiles(around: City.rautatientori, radius: 1_000)
        #expect(tiles.count == 64)
        #expect(tiles.first == Tile(x: 37_305, y: 18_965, zoom: 16))
        #expect(tiles.last == Tile(x: 37_312, y: 18_972, zoom: 16))
        let sortedByYThenX = tiles.sorted { ($0.y, $0.x) < ($1.y, $1.x) }
        #expect(tiles == sortedByYThenX)
        #expect(Set(tiles).count == tiles.count)
        #expect(tiles.contains(Tile(containing: City.rautatientori)))
    }

    @Test func tilesAroundInvalidCenterIsEmpty() {
        #expect(Tile.tiles(around: Coordinate(latitude: .nan, longitude: 0), radius: 100).isEmpty)
        #expect(Tile.tiles(around: City.rautatientori, radius: .infinity).isEmpty)
    }
}
