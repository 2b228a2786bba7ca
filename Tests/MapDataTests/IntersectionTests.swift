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
        let stored = try Self.storedLegs(view)
        #expect(stored.count > 1_000)
        #expect(!stored.values.contains { legs in legs.contains { $0.wayID == 323451511 } && legs.contains { $0.wayID == 35435008 } })
        for i in try view.intersections(near: point, radius: 8, streetLevelOnly: false) {
            #expect(!(i.legs.contains { $0.wayID == 323451511 } && i.legs.contains { $0.wayID == 35435008 }))
        }
        // And the user standing there is on Kaisaniemenkatu, never on the tunnel.
        let here = try view.reverseGeocode(point)
        #expect(here.road?.name == "Kaisaniemenkatu", "\(here)")
    }

    /// Every intersection's legs as `intersection_legs` stores them, by intersection.
    static func storedLegs(_ view: SpatialDataView) throws -> [Int64: [FeatureWriter.PreparedLeg]] {
        try view.queue.read { db in
            var out: [Int64: [FeatureWriter.PreparedLeg]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT intersection_id, legs FROM intersection_legs") {
                out[row[0]] = try #require(IntersectionLegsBlob.decoded(row[1]), "the legs of intersection \(row[0] as Int64)")
            }
            return out
        }
    }

    @Test("every intersection has at least three legs from two or more ways, with valid bearings")
    func invariants() async throws {
        let view = try await SharedHelsinki.get().view
        let stored = try Self.storedLegs(view)
        #expect(stored.count == (try MapStore.statistics(path: view.path).intersections))
        let intersections = try await view.queue.read { db in
            try Int64.fetchSet(db, sql: "SELECT id FROM features WHERE feature_value = 'gd_intersection'")
        }
        #expect(Set(stored.keys) == intersections)
        for legs in stored.values {
            #expect(legs.count >= 3 && Set(legs.map(\.wayID)).count >= 2)
            #expect(legs.allSatisfy { (0..<36_000).contains($0.bearing) && abs($0.direction) == 1 })
        }
    }

    @Test("an intersection's legs come back from their blob as they went in; a damaged blob is refused")
    func legsRoundTrip() throws {
        let legs = [
            FeatureWriter.PreparedLeg(roadFeatureID: 12, wayID: 4_000_000_123, bearing: 0, direction: 1, isRoundabout: false, level: 0),
            FeatureWriter.PreparedLeg(roadFeatureID: nil, wayID: 4_000_000_123, bearing: 35_999, direction: -1, isRoundabout: true, level: -1),
            FeatureWriter.PreparedLeg(roadFeatureID: 3, wayID: 7, bearing: 18_000, direction: 1, isRoundabout: false, level: 2),
            FeatureWriter.PreparedLeg(roadFeatureID: 1_000_000, wayID: -5, bearing: 9_001, direction: -1, isRoundabout: true, level: 1),
        ]
        let blob = IntersectionLegsBlob.encoded(legs)
        #expect(IntersectionLegsBlob.decoded(blob) == legs)
        #expect(blob.count < 4 * 8, "\(blob.count) bytes for four legs")
        #expect(IntersectionLegsBlob.decoded(blob.dropLast()) == nil)
        #expect(IntersectionLegsBlob.decoded(blob + [0]) == nil)
        #expect(IntersectionLegsBlob.decoded(Data()) == nil)
        #expect(IntersectionLegsBlob.decoded(IntersectionLegsBlob.encoded([])) == [])
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
