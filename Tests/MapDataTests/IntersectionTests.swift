import Foundation
import Geo
import GRDB
@testable import MapData
import MapTestSupport
import Testing

@Suite("Intersections")
struct IntersectionTests {
    /// Ways of the extract as osmium prints them (`osmium cat -t way -f opl`).
    static func osmiumWays() throws -> [Osmium.OPLElement] {
        Osmium.parseOPL(try Osmium.run(["cat", "-t", "way", "-f", "opl", try TestData.helsinki()]))
    }

    static func osmiumNodes(_ ids: [String]) throws -> [String: Coordinate] {
        let elements = Osmium.parseOPL(try Osmium.run(["getid", try TestData.helsinki()] + ids + ["-f", "opl"]))
        var out: [String: Coordinate] = [:]
        for e in elements {
            if let lat = e.latitude, let lon = e.longitude { out[e.id] = Coordinate(latitude: lat, longitude: lon) }
        }
        return out
    }

    static func bearing(_ a: Coordinate, _ b: Coordinate) -> Double {
        let φ1 = a.latitude * .pi / 180, φ2 = b.latitude * .pi / 180
        let dλ = (b.longitude - a.longitude) * .pi / 180
        let θ = atan2(sin(dλ) * cos(φ2), cos(φ1) * sin(φ2) - sin(φ1) * cos(φ2) * cos(dλ))
        return (θ * 180 / .pi + 360).truncatingRemainder(dividingBy: 360)
    }

    @Test("Kaivokatu × Keskuskatu × Rautatientori has exactly the roads osmium finds at node 25413717")
    func rautatientori() async throws {
        let view = try await SharedHelsinki.get().view
        let node = "n25413717"
        // Independent oracle: every highway way whose node list contains the node.
        let ways = try Self.osmiumWays().filter { $0.tags["highway"] != nil && $0.nodes.contains(node) }
        #expect(Set(ways.compactMap { $0.tags["name"] }) == ["Kaivokatu", "Keskuskatu", "Rautatientori"])
        var expectedLegs: [(way: String, neighbour: String)] = []
        for way in ways {
            for (i, n) in way.nodes.enumerated() where n == node {
                if i > 0 { expectedLegs.append((way.id, way.nodes[i - 1])) }
                if i < way.nodes.count - 1 { expectedLegs.append((way.id, way.nodes[i + 1])) }
            }
        }
        #expect(expectedLegs.count == 4)
        let coords = try Self.osmiumNodes([node] + expectedLegs.map(\.neighbour))
        let centre = try #require(coords[node])

        // Our view: the nearest intersection to a point 2 m north-west of the node.
        let probe = Coordinate(latitude: centre.latitude + 0.000013, longitude: centre.longitude - 0.000013)
        let intersection = try #require(try view.nearestIntersection(to: probe))
        #expect(intersection.nodeID == 25413717)
        #expect(intersection.coordinate.haversine(to: centre) < 0.05)
        #expect(abs(intersection.distance - probe.haversine(to: centre)) < 0.5)
        #expect(Set(intersection.legs.map { "w\($0.wayID)" }) == Set(ways.map(\.id)))
        #expect(Set(intersection.roadNames) == ["Kaivokatu", "Keskuskatu", "Rautatientori"])
        #expect(intersection.legs.count == expectedLegs.count)
        #expect(!intersection.isRoundabout)
        // Each leg points the way its road leaves (first step towards the neighbouring node; these
        // roads are straight for 25 m, so the two agree within a few degrees).
        for expected in expectedLegs {
            let firstStep = Self.bearing(centre, try #require(coords[expected.neighbour]))
            let matching = intersection.legs.filter { "w\($0.wayID)" == expected.way }
            #expect(matching.contains { abs(Angle.signedDifference($0.bearing, firstStep)) < 10 },
                    "\(expected.way): legs \(matching.map(\.bearing)) vs first step \(firstStep)")
        }
        let keskuskatu = try #require(intersection.legs.first { $0.name == "Keskuskatu" })
        #expect(CompassDirection(bearing: keskuskatu.bearing) == .south)
        // The feature row follows the tile format: highway/gd_intersection, osm_ids = the roads.
        let feature = try #require(try view.feature(key: "i25413717"))
        #expect(feature.featureType == "highway" && feature.featureValue == "gd_intersection")
        #expect(Set(feature.osmIDs.map(\.description)) == Set(ways.map(\.id)))
    }

    @Test("a tunnel crossing a street without a shared node is not an intersection")
    func tunnelCrossingIsNotAnIntersection() async throws {
        let view = try await SharedHelsinki.get().view
        let ways = try Self.osmiumWays()
        let tunnel = try #require(ways.first { $0.id == "w323451511" })   // Opintoputki, tunnel=yes layer=-2
        let street = try #require(ways.first { $0.id == "w35435008" })   // Kaisaniemenkatu
        #expect(tunnel.tags["tunnel"] == "yes")
        #expect(Set(tunnel.nodes).isDisjoint(with: street.nodes), "the ways share no node")
        // They do cross on the map: find the crossing point from osmium's coordinates.
        let coords = try Self.osmiumNodes(Array(Set(tunnel.nodes + street.nodes)))
        func segments(_ w: Osmium.OPLElement) -> [(Coordinate, Coordinate)] {
            let pts = w.nodes.compactMap { coords[$0] }
            return zip(pts, pts.dropFirst()).map { ($0, $1) }
        }
        var crossing: Coordinate?
        for (a, b) in segments(tunnel) {
            for (c, d) in segments(street) {
                let r = (b.longitude - a.longitude, b.latitude - a.latitude), s = (d.longitude - c.longitude, d.latitude - c.latitude)
                let denominator = r.0 * s.1 - r.1 * s.0
                guard denominator != 0 else { continue }
                let t = ((c.longitude - a.longitude) * s.1 - (c.latitude - a.latitude) * s.0) / denominator
                let u = ((c.longitude - a.longitude) * r.1 - (c.latitude - a.latitude) * r.0) / denominator
                if (0...1).contains(t) && (0...1).contains(u) {
                    crossing = Coordinate(latitude: a.latitude + t * r.1, longitude: a.longitude + t * r.0)
                }
            }
        }
        let point = try #require(crossing, "the tunnel passes under the street")
        // No intersection joins the two ways, anywhere.
        let joined = try await view.queue.read { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM intersection_legs a JOIN intersection_legs b ON a.intersection_id = b.intersection_id
                WHERE a.way_id = 323451511 AND b.way_id = 35435008
                """) ?? -1
        }
        #expect(joined == 0)
        for i in try view.intersections(near: point, radius: 8, streetLevelOnly: false) {
            #expect(!(i.legs.contains { $0.wayID == 323451511 } && i.legs.contains { $0.wayID == 35435008 }))
        }
        // And the user standing there is on Kaisaniemenkatu, never on the tunnel.
        let here = try view.reverseGeocode(point)
        #expect(here.road?.name == "Kaisaniemenkatu", "\(here)")
    }

    @Test("every intersection has at least three legs from two or more ways, with valid bearings")
    func invariants() async throws {
        let view = try await SharedHelsinki.get().view
        let rows = try view.queue.read { db in
            try Row.fetchAll(db, sql: """
                SELECT intersection_id, COUNT(*), COUNT(DISTINCT way_id), MIN(bearing) / 100.0, MAX(bearing) / 100.0
                FROM intersection_legs GROUP BY intersection_id
                """)
        }
        #expect(rows.count == (try MapStore.statistics(path: view.path).intersections))
        for row in rows {
            let legs: Int = row[1], ways: Int = row[2], minBearing: Double = row[3], maxBearing: Double = row[4]
            #expect(legs >= 3 && ways >= 2)
            #expect(minBearing >= 0 && maxBearing < 360)
        }
    }

    @Test("intersections near a point are within the radius, nearest first")
    func nearQuery() async throws {
        let view = try await SharedHelsinki.get().view
        let p = Coordinate(latitude: 60.1700, longitude: 24.9440)
        let found = try view.intersections(near: p, radius: 120)
        #expect(found.count >= 3)
        #expect(found.map(\.distance) == found.map(\.distance).sorted())
        for i in found {
            #expect(i.distance <= 120)
            #expect(abs(p.haversine(to: i.coordinate) - i.distance) < 0.5)
        }
    }
}
