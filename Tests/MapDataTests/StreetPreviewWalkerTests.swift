import Foundation
import Geo
@testable import MapData
import Testing

/// Street Preview's walker and the road network on the real Helsinki graph.
@Suite("Street Preview walker")
struct StreetPreviewWalkerTests {
    /// On Aleksanterinkatu, facing east.
    static let start = Coordinate(latitude: 60.16864, longitude: 24.94345)

    static func network() async throws -> RoadNetwork { try await SharedHelsinki.get().view.roadNetwork() }

    @Test("starts on the nearest road facing along it, and goes forward from intersection to intersection")
    func forwardToIntersections() async throws {
        let network = try await Self.network()
        var walker = try #require(StreetPreviewWalker(network: network, near: Self.start, heading: 90))
        #expect(walker.position.road == "Aleksanterinkatu")
        #expect(walker.position.coordinate.haversine(to: Self.start) < 20)
        #expect(abs(Angle.signedDifference(walker.position.heading, 90)) < 45)

        var arrivals: [Int64] = []
        for _ in 0..<2 {
            guard case .moved(let stretch) = walker.forward() else { Issue.record("did not move"); return }
            #expect(stretch.end == .intersection)
            #expect(stretch.length >= RoadNetwork.shortestStretch)
            // It stands on the node it reached, where three or more road directions meet, facing the way it walked.
            let node = try #require(walker.position.node)
            #expect(node == stretch.endNode)
            #expect(network.legs(at: node).count >= 3)
            #expect(walker.position.coordinate.haversine(to: try #require(network.graph.nodes[node]).coordinate) < 0.01)
            // The path is continuous and ends at the node.
            for (a, b) in zip(stretch.path, stretch.path.dropFirst()) { #expect(a.haversine(to: b) < 200) }
            #expect(try #require(stretch.path.last).haversine(to: walker.position.coordinate) < 0.01)
            arrivals.append(node)
        }
        #expect(arrivals[0] != arrivals[1])
        // "what's ahead" from the start sees the first of them.
        let ahead = try #require(network.ahead(of: Self.start, heading: 90))
        #expect(ahead.endNode == arrivals[0])

        // Back to the first intersection, then to the start; no further.
        let firstBack = walker.back()
        #expect(firstBack && walker.position.node == arrivals[0])
        let secondBack = walker.back()
        #expect(secondBack && walker.position.node == nil && walker.position.road == "Aleksanterinkatu")
        let thirdBack = walker.back()
        #expect(!thirdBack)
    }

    @Test("turning faces the next road clockwise or anticlockwise and says which; forward then follows it")
    func turning() async throws {
        let network = try await Self.network()
        var walker = try #require(StreetPreviewWalker(network: network, near: Self.start, heading: 90))
        _ = walker.forward()
        _ = walker.forward()
        let arrivalHeading = walker.position.heading
        let turnRight = walker.turn(.right)
        let right = try #require(turnRight)
        let turnedRight = Angle.relative(bearing: right.bearing, heading: arrivalHeading)
        #expect(turnedRight > 45 && turnedRight < 135, "a right turn at a crossing is a quarter turn: \(turnedRight)")
        #expect(right.name != "Aleksanterinkatu")
        #expect(walker.position.heading == right.bearing && walker.position.road == right.name)
        // Two lefts from there: back through ahead to the road on the other side.
        let turnBack = walker.turn(.left)
        let ahead = try #require(turnBack)
        #expect(abs(Angle.signedDifference(ahead.bearing, arrivalHeading)) < 30)
        let turnLeft = walker.turn(.left)
        let left = try #require(turnLeft)
        #expect(Angle.relative(bearing: left.bearing, heading: arrivalHeading) > 225)
        guard case .moved(let stretch) = walker.forward() else { Issue.record("did not move along \(left.name)"); return }
        #expect(stretch.name == left.name)
        #expect(abs(Angle.signedDifference(try #require(Polyline(stretch.path).bearing(atDistance: 0, lookAhead: 10)), left.bearing)) < 30)
    }

    @Test("the road is followed through its bends, and the bend is found where the road turns")
    func bends() async throws {
        let network = try await Self.network()
        let graph = network.graph
        // A node where only one road goes on, turning sharply there, with 30 m of road on either side (not a ring).
        // The walk starts on the first edge 20 m from the bend, facing it.
        var found: (node: Int64, stretch: RoadNetwork.Stretch)?
        for node in graph.nodes.keys.sorted() where network.degree(of: node) == 2 {
            let legs = network.legs(at: node)
            guard legs.count == 2, legs[0].edgeIndex != legs[1].edgeIndex, legs.allSatisfy({ $0.towards != node }),
                  legs.allSatisfy({ graph.edges[$0.edgeIndex].length > 30 }) else { continue }
            let turn = 180 - abs(Angle.signedDifference(legs[0].bearing, legs[1].bearing))
            guard turn >= 70 else { continue }
            let edge = graph.edges[legs[0].edgeIndex]
            let towardsTo = edge.to == node
            let stretch = network.follow(edge: legs[0].edgeIndex, distanceAlong: towardsTo ? edge.length - 20 : 20, forward: towardsTo)
            if stretch.end != .loop { found = (node, stretch); break }
        }
        let (node, stretch) = try #require(found, "no sharp bend in the Helsinki roads")
        let bendPoint = try #require(graph.nodes[node]).coordinate
        #expect(stretch.path.contains { $0.haversine(to: bendPoint) < 0.01 }, "the walk stopped at the bend")
        #expect(stretch.endNode != node)
        #expect(stretch.length > 40)
        let bend = try #require(RoadNetwork.firstBend(on: stretch))
        #expect(abs(bend.distance - 20) < 8, "bend found at \(bend.distance) m, the road turns at 20 m")
        #expect(bend.coordinate.haversine(to: bendPoint) < 10)
    }

    @Test("at a dead end the walk stops, nothing goes ahead, and turning around leads back")
    func deadEnd() async throws {
        let network = try await Self.network()
        let graph = network.graph
        let end = try #require(graph.nodes.keys.sorted().first { node in
            network.degree(of: node) == 1 && network.legs(at: node).first.map { graph.edges[$0.edgeIndex].length > 30 } == true
        }, "no dead-end road in Helsinki")
        let leg = try #require(network.legs(at: end).first)
        // Start 15 m from the dead end facing it.
        let edge = graph.edges[leg.edgeIndex]
        let towardsEnd = edge.to == end
        let point = try #require(Polyline(edge.geometry).point(atDistance: towardsEnd ? edge.length - 15 : 15))
        let facing = Angle.normalized(leg.bearing + 180)
        var walker = try #require(StreetPreviewWalker(network: network, near: point, heading: facing, maxDistance: 1))
        guard case .moved(let stretch) = walker.forward() else { Issue.record("did not move"); return }
        #expect(stretch.end == .deadEnd)
        #expect(walker.position.node == end)
        let stuck = walker.forward()
        #expect(stuck == .noRoadAhead)
        #expect(walker.legs.count == 1)
        let turnAround = walker.turn(.around)
        let back = try #require(turnAround)
        #expect(back.edgeIndex == leg.edgeIndex)
        guard case .moved = walker.forward() else { Issue.record("could not walk back from the dead end"); return }
        #expect(walker.position.node != end)
    }

    @Test("at a corner, where am I names the road the walker faces along")
    func cornerRoad() async throws {
        let view = try await SharedHelsinki.get().view
        var walker = try #require(StreetPreviewWalker(network: try view.roadNetwork(), near: Self.start, heading: 90))
        _ = walker.forward()
        _ = walker.forward()
        let along = try view.reverseGeocode(walker.position.coordinate, heading: walker.position.heading)
        #expect(along.road?.name == "Aleksanterinkatu")
        let turnRight = walker.turn(.right)
        let crossing = try #require(turnRight)
        let turned = try view.reverseGeocode(walker.position.coordinate, heading: walker.position.heading)
        #expect(turned.road?.name == crossing.name)
    }
}
