import Foundation
import Geo
import GRDB
@testable import MapData
import MapTestSupport
import Testing

@Suite("Spatial queries")
struct QueryTests {
    /// Named POIs straight from the file (`osmium cat -f opl`): nodes and ways with a name and one
    /// of these keys, with the distance to a point measured on their own outline.
    static func osmiumNearestNamedPOI(to point: Coordinate) throws -> (id: String, name: String, distance: Double) {
        let keys = ["amenity", "shop", "tourism", "historic", "leisure", "office", "craft"]
        let elements = Osmium.parseOPL(try Osmium.run(["cat", "-t", "node", "-t", "way", "-f", "opl", try TestData.helsinki()]))
        var coords: [String: Coordinate] = [:]
        for e in elements where e.id.hasPrefix("n") {
            if let lat = e.latitude, let lon = e.longitude { coords[e.id] = Coordinate(latitude: lat, longitude: lon) }
        }
        var best: (id: String, name: String, distance: Double) = ("", "", .infinity)
        for e in elements {
            guard let name = e.tags["name"], keys.contains(where: { e.tags[$0] != nil }) else { continue }
            let distance: Double
            if e.id.hasPrefix("n") {
                guard let c = coords[e.id] else { continue }
                distance = point.haversine(to: c)
            } else {
                let ring = e.nodes.compactMap { coords[$0] }
                guard ring.count >= 2 else { continue }
                let closed = e.nodes.first == e.nodes.last
                distance = closed && RingAssembler.contains(ring, point) ? 0 : bruteDistance(.line(ring), point)
            }
            if distance < best.distance { best = (e.id, name, distance) }
        }
        return best
    }

    @Test("the nearest named place to a point on Esplanadi is the one a direct scan of the file finds",
          arguments: [
              Coordinate(latitude: 60.16770, longitude: 24.95120),   // by Havis Amanda
              Coordinate(latitude: 60.16860, longitude: 24.94470),   // Pohjoisesplanadi
              Coordinate(latitude: 60.17105, longitude: 24.94150),   // Rautatientori, west side
          ])
    func nearestNamedPOI(point: Coordinate) async throws {
        let view = try await SharedHelsinki.get().view
        let oracle = try Self.osmiumNearestNamedPOI(to: point)
        let oracleDistance = oracle.distance
        // The same definition of "named POI" on our side: the spatial search does the work.
        let keys = ["amenity", "shop", "tourism", "historic", "leisure", "office", "craft"]
        let ours = try view.features(near: point, radius: 300)
            .first { f in f.feature.name != nil && keys.contains { f.feature.tags[$0] != nil } }
        let found = try #require(ours)
        #expect(found.feature.key == oracle.id, "ours \(found.feature.key) \(found.feature.name ?? "") at \(found.distance) m; file \(oracle.id) \(oracle.name) at \(oracleDistance) m")
        #expect(abs(found.distance - oracleDistance) < 0.5)
    }

    @Test("features within a radius are exactly those a full scan finds")
    func withinRadiusMatchesFullScan() async throws {
        let view = try await SharedHelsinki.get().view
        for p in [Coordinate(latitude: 60.1690, longitude: 24.9420), Coordinate(latitude: 60.1745, longitude: 24.9480)] {
            let radius = 50.0
            let ours = try view.features(near: p, radius: radius)
            #expect(ours.map(\.distance) == ours.map(\.distance).sorted())
            #expect(ours.allSatisfy { $0.distance <= radius })
            // Full scan without the R-tree.
            let all = try view.queue.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT id, geometry_kind, geometry, lat, lon FROM features
                    WHERE super_category NOT IN ('intersection', 'entrances') AND (name IS NOT NULL OR category IS NOT NULL)
                    """)
            }
            var expected = Set<Int64>()
            for row in all {
                let g = try #require(FeatureGeometry(kind: FeatureGeometry.Kind(rawValue: row[1])!, encoded: row[2],
                                                         origin: GeometryBlob.Origin(stored: row[3], row[4])))
                // Oracle distance: densify each segment and take the nearest sample (independent of
                // the projection code under test; 0 inside polygons).
                if Self.bruteDistance(g, p) <= radius - 0.5 { expected.insert(row[0]) }
            }
            let got = Set(ours.map(\.feature.id))
            #expect(expected.isSubset(of: got), "missing \(expected.subtracting(got))")
            #expect(got.count - expected.count < 5) // only features within half a metre of the edge may differ
            #expect(ours.count > 10)
        }
    }

    static func bruteDistance(_ g: FeatureGeometry, _ p: Coordinate) -> Double {
        var lines: [[Coordinate]] = []
        switch g {
        case .point(let c): return p.haversine(to: c)
        case .multiPoint(let cs): return cs.map { p.haversine(to: $0) }.min() ?? .infinity
        case .line(let cs): lines = [cs]
        case .polygon(let rings):
            if RingAssembler.contains(rings[0], p) && !rings.dropFirst().contains(where: { RingAssembler.contains($0, p) }) { return 0 }
            lines = rings
        case .multiPolygon(let polys):
            for poly in polys where RingAssembler.contains(poly[0], p) && !poly.dropFirst().contains(where: { RingAssembler.contains($0, p) }) {
                return 0
            }
            lines = polys.flatMap { $0 }
        }
        var best = Double.infinity
        for line in lines {
            for (a, b) in zip(line, line.dropFirst()) {
                let steps = max(1, Int(a.haversine(to: b) / 0.25))
                for i in 0...steps {
                    let t = Double(i) / Double(steps)
                    let q = Coordinate(latitude: a.latitude + (b.latitude - a.latitude) * t, longitude: a.longitude + (b.longitude - a.longitude) * t)
                    best = min(best, p.haversine(to: q))
                }
            }
        }
        return best
    }

    @Test("nearest road and its distance")
    func nearestRoad() async throws {
        let view = try await SharedHelsinki.get().view
        // On the middle of Keskuskatu's only segment.
        let keskuskatu = try #require(try view.feature(key: "w15466245"))
        let middle = keskuskatu.centroid
        let road = try #require(try view.nearestRoad(to: middle))
        #expect(road.road.key == "w15466245")
        #expect(road.distance < 0.1)
        // 8 m east of it: Keskuskatu is 8 m away (a sidewalk may be nearer).
        let p = Coordinate(latitude: middle.latitude, longitude: middle.longitude + 8 / (111_195 * cos(middle.latitude * .pi / 180)))
        let nearest = try #require(try view.nearestRoad(to: p))
        let keskus = try #require(try view.roads(near: p, radius: 30).first { $0.feature.key == "w15466245" })
        #expect(abs(keskus.distance - 8) < 1.0)
        #expect(nearest.distance <= keskus.distance)
        #expect(abs(keskus.bearing - 270) < 10, "Keskuskatu runs north-south, so it lies due west")
        // Far outside the extract there is nothing within 200 m.
        #expect(try view.nearestRoad(to: Coordinate(latitude: 60.20, longitude: 24.90), maxDistance: 200) == nil)
    }

    @Test("footways on another level are never reported as the street the user is on")
    func levelFiltering() async throws {
        let view = try await SharedHelsinki.get().view
        // Kompassitaso: the underground concourse (tunnel=yes, layer=-2) below the Kaivokatu crossing.
        let concourse = try #require(try view.feature(key: "w18379563"))
        #expect(concourse.level == .underground)
        let onTop = concourse.centroid
        // With every level allowed, the concourse is right here...
        let anyLevel = try #require(try view.nearestRoad(to: onTop, levels: .any))
        #expect(anyLevel.road.level != .ground)
        #expect(anyLevel.distance < 1)
        // ...but the street-level answer and reverse geocoding skip it.
        let street = try #require(try view.nearestRoad(to: onTop))
        #expect(street.road.level == .ground)
        #expect(street.road.key != concourse.key)
        let here = try view.reverseGeocode(onTop)
        let road = try #require(here.road, "\(here)")
        #expect(road.level == .ground)
        #expect(road.name != "Kompassitaso")
        // Every tunnel or indoor way that is within 20 m of a sample of points is excluded.
        for dLat in stride(from: -0.0004, through: 0.0004, by: 0.0002) {
            let p = Coordinate(latitude: onTop.latitude + dLat, longitude: onTop.longitude)
            if let r = try view.reverseGeocode(p).road { #expect(r.level == .ground) }
        }
    }

    @Test("reverse geocoding: at, on, near")
    func reverseGeocode() async throws {
        let view = try await SharedHelsinki.get().view
        let stockmann = try #require(try view.feature(key: "w122595241"))
        let inside = try view.reverseGeocode(stockmann.centroid)
        guard case .at(let poi) = inside else { Issue.record("expected 'at', got \(inside)"); return }
        #expect(poi.feature.name == "Stockmann")
        #expect(inside.description == "At Stockmann")

        let kaivokatu = Coordinate(latitude: 60.170456, longitude: 24.944020)
        let on = try view.reverseGeocode(kaivokatu)
        #expect(on.description == "On Kaivokatu")

        // North-east of the extract nothing is within 20 m.
        let water = Coordinate(latitude: 60.1800, longitude: 24.9600)
        let near = try view.reverseGeocode(water)
        guard case .near(let road, _) = near else { Issue.record("expected 'near', got \(near)"); return }
        #expect(road != nil)
        #expect(near.description.hasPrefix("Near "))
    }

    @Test("nearest per quadrant: one feature per 90° sector, each the nearest in it")
    func quadrants() async throws {
        let view = try await SharedHelsinki.get().view
        let p = Coordinate(latitude: 60.1690, longitude: 24.9440)
        for heading in [0.0, 37.0, 200.0] {
            let result = try view.nearestPerQuadrant(around: p, heading: heading, radius: 200)
            #expect(result.count == 4)
            let all = try view.features(near: p, radius: 200, categories: SuperCategory.exploration).filter { !$0.isInside }
            for q in result {
                let sector = all.filter { abs(Angle.signedDifference($0.bearing, q.centerBearing)) < 45 }
                let nearest = try #require(q.nearest)
                #expect(abs(Angle.signedDifference(nearest.bearing, q.centerBearing)) <= 45)
                #expect(abs(nearest.distance - (sector.first?.distance ?? -1)) < 0.01)
                #expect(SuperCategory.exploration.contains(nearest.feature.superCategory))
            }
        }
    }

    @Test("features ahead: within ±45° of the heading, nearest first, at most five")
    func sector() async throws {
        let view = try await SharedHelsinki.get().view
        let p = Coordinate(latitude: 60.1690, longitude: 24.9440)
        let ahead = try view.features(inSectorAround: p, heading: 90, halfAngle: 45, radius: 200)
        #expect(!ahead.isEmpty && ahead.count <= 5)
        #expect(ahead.map(\.distance) == ahead.map(\.distance).sorted())
        for f in ahead { #expect(abs(Angle.signedDifference(f.bearing, 90)) <= 45) }
    }

    @Test("spoken names resolve with case, diacritics, spacing and typos",
          arguments: [
              ("Kauppatori", "r2919185"), ("kauppatori", "r2919185"), ("KAUPPA TORI", "r2919185"),
              ("Market Square", "r2919185"),
              ("Stockmann", "w122595241"), ("stokmann", "w122595241"), ("Stöckmann", "w122595241"),
              ("Havis Amanda", "n1376320186"), ("havis amánda", "n1376320186"), ("Havis", "n1376320186"),
              ("Havis Amandа", "n1376320186"), // the last letter is Cyrillic а
              ("Ateneum", "w8033120"),
          ])
    func lookup(spoken: String, key: String) async throws {
        let view = try await SharedHelsinki.get().view
        let matches = try view.lookup(spokenName: spoken, near: Coordinate(latitude: 60.1699, longitude: 24.9441))
        let first = try #require(matches.first, "no match for \(spoken)")
        #expect(first.feature.key == key, "\(spoken) → \(matches.map { "\($0.feature.key) \($0.matchedName) \($0.score)" })")
        #expect(first.distance != nil)
    }

    @Test("nonsense does not match")
    func lookupMiss() async throws {
        let view = try await SharedHelsinki.get().view
        #expect(try view.lookup(spokenName: "Zyxwvut Qqq").isEmpty)
        #expect(try view.lookup(spokenName: "   ").isEmpty)
    }
}
