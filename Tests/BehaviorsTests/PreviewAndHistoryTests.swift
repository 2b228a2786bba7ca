@testable import Behaviors
import Callouts
import CalloutsTestSupport
import Foundation
import Geo
import Location
import MapData
import Testing

/// Street Preview in the pipeline, "what's ahead" along a road, and walking back through the callout history.
@Suite("Street Preview, the road ahead and the history", .serialized)
struct PreviewAndHistoryTests {
    /// On Aleksanterinkatu, facing east.
    static let start = Coordinate(latitude: 60.16864, longitude: 24.94345)

    static func startPreview(_ p: Pipeline, map: SpatialDataView, near: Coordinate = start, heading: Double = 90,
                             maxDistance: Double = 500) async throws {
        let walker = try #require(StreetPreviewWalker(network: try map.roadNetwork(), near: near, heading: heading, maxDistance: maxDistance))
        let behavior = PreviewBehavior(walker: walker)
        let position = behavior.startingPosition(now: Pipeline.start)
        await p.processor.activateCustom(behavior, at: position)
        await p.processor.settle()
    }

    @Test func previewMovesTheUserAndTheWalksCalloutsComeFromThePipeline() async throws {
        let map = try await Helsinki.map()
        let p = Pipeline(map: map)
        try await Self.startPreview(p, map: map)
        #expect(p.texts.first == "Starting Street Preview along Aleksanterinkatu, heading east. Say go forward, turn left, turn right, go back or end preview",
                "\(p.texts)")
        #expect(await p.processor.behaviorNames.first == PreviewBehavior.behaviorName)

        // The clock does not move: a walk's 5 s between updates would keep the second intersection silent.
        var walker = try #require(StreetPreviewWalker(network: try map.roadNetwork(), near: Self.start, heading: 90))
        for _ in 0..<2 {
            let before = p.player.items.count
            await p.send(PreviewCommandEvent(.forward))
            guard case .moved(let stretch) = walker.forward() else { Issue.record("the test's walker did not move"); return }
            let said = p.texts(after: before)
            let node = try #require(map.roadNetwork().graph.nodes[stretch.endNode]).coordinate
            let moved = try #require(said.first?.wholeMatch(of: /\d+ meters along Aleksanterinkatu to the intersection with (.+)/), "\(said)")
            #expect(!String(moved.1).contains("Aleksanterinkatu"))
            // An intersection callout names roads of this intersection, none farther on.
            if let approaching = said.firstIndex(of: "Approaching intersection") {
                let here = Set(try map.roadNetwork().legs(at: stretch.endNode).map(\.name))
                for line in said[(approaching + 1)...] {
                    guard let road = line.wholeMatch(of: /(.+), (goes left|continues ahead|goes right)/)?.1 else { break }
                    #expect(here.contains(String(road)), "\(road) is not at this intersection: \(said)")
                }
            }
            let user = await p.processor.currentUser
            #expect(try #require(user.location).distance(to: try #require(map.roadNetwork().graph.nodes[stretch.endNode]).coordinate) < 0.5)
            #expect(abs(Angle.signedDifference(try #require(user.headings.collection), stretch.arrivalBearing)) < 1)
        }
        let before = p.player.items.count
        await p.send(ExplorationEvent(.locate))
        #expect(p.texts(after: before) == ["Heading east along Aleksanterinkatu"])

        // Turning right faces the crossing street; the listener turns with it.
        let turned = p.player.items.count
        await p.send(PreviewCommandEvent(.turnRight))
        let turn = try #require(p.texts(after: turned).first)
        #expect(turn.hasPrefix("Now facing ") && turn.hasSuffix(", heading south"), "\(turn)")
        #expect(abs(Angle.signedDifference(try #require(await p.processor.currentUser.headings.collection), 180)) < 30)

        let back = p.player.items.count
        await p.send(PreviewCommandEvent(.back))
        #expect(p.texts(after: back).first?.hasPrefix("Back at the previous intersection, facing Aleksanterinkatu") == true, "\(p.texts(after: back))")
    }

    @Test func arrivingAtAnIntersectionGivesTheWalksIntersectionCallout() async throws {
        let map = try await Helsinki.map()
        let network = try map.roadNetwork()
        // A named road of one edge, 60 m or more, ending where the map has an intersection of two or more names.
        var found: (edge: WalkingGraph.Edge, record: Intersection)?
        for edge in network.graph.edges where edge.name != nil && edge.length >= 60 && RoadNetwork.isRoad(edge)
            && network.legs(at: edge.to).count >= 3 {
            let node = try #require(network.graph.nodes[edge.to]).coordinate
            if let record = try map.intersections(near: node, radius: 1).first(where: IntersectionGenerator.isMain),
               network.roadNames(at: edge.to, besides: [edge.name!]).count >= 1 {
                found = (edge, record)
                break
            }
        }
        let (edge, record) = try #require(found)
        let name = try #require(edge.name)
        let line = Polyline(edge.geometry)
        let start = try #require(line.point(atDistance: edge.length / 2))
        let facing = try #require(line.bearing(atDistance: edge.length / 2, lookAhead: 5))
        let p = Pipeline(map: map)
        try await Self.startPreview(p, map: map, near: start, heading: facing, maxDistance: 1)
        let before = p.player.items.count
        await p.send(PreviewCommandEvent(.forward))
        let said = p.texts(after: before)
        #expect(said.first?.wholeMatch(of: /\d+ meters along (.+) to the intersection with .+/)?.1 == Substring(name), "\(said)")
        #expect(said.dropFirst().first == "Approaching intersection", "at \(record.displayName): \(said)")
        let asked = p.player.items.count
        await p.send(ExplorationEvent(.locate))
        let arrival = try #require(await p.processor.currentUser.headings.collection)
        let phrasing = Phrasing(table: try StringTable(language: "en"))
        #expect(p.texts(after: asked) == [phrasing.heading(arrival, kind: .walking, along: name)])
    }

    @Test func atTheEndOfARoadThePreviewSaysSo() async throws {
        let map = try await Helsinki.map()
        let network = try map.roadNetwork()
        let end = try #require(network.graph.nodes.keys.sorted().first { node in
            network.degree(of: node) == 1 && network.legs(at: node).first.map { network.graph.edges[$0.edgeIndex].length > 40 } == true
        })
        let leg = try #require(network.legs(at: end).first)
        let edge = network.graph.edges[leg.edgeIndex]
        let point = try #require(Polyline(edge.geometry).point(atDistance: edge.to == end ? edge.length - 30 : 30))
        let p = Pipeline(map: map)
        try await Self.startPreview(p, map: map, near: point, heading: Angle.normalized(leg.bearing + 180), maxDistance: 1)
        let before = p.player.items.count
        await p.send(PreviewCommandEvent(.forward))
        #expect(p.texts(after: before).first?.wholeMatch(of: /\d+ meters along .+\. The road ends here/) != nil, "\(p.texts(after: before))")
        let stuck = p.player.items.count
        await p.send(PreviewCommandEvent(.forward))
        #expect(p.texts(after: stuck) == ["The road ends here. Say turn around or go back"])
    }

    @Test func whatsAheadOnARoadSaysTheNextIntersectionBeforeThePlaces() async throws {
        let map = try await Helsinki.map()
        let p = Pipeline(map: map)
        await p.processor.setAutomaticCallouts(false)
        await p.move(to: Pipeline.fix(Self.start, course: 90))
        await p.send(ExplorationEvent(.aheadOfMe))
        let first = try #require(p.texts.first)
        let match = try #require(first.wholeMatch(of: /Intersection with (.+) in (\d+) meters/), "\(p.texts)")
        let name = String(match.1), said = try #require(Double(match.2))
        // Checked against the raw walking graph: a node about that far ahead, within 30° of the heading, where a way
        // of that name meets Aleksanterinkatu.
        let graph = try map.roadNetwork().graph
        let nodes = graph.edges.filter { $0.name == name }.flatMap { [$0.from, $0.to] }
        let meets = Set(graph.edges.filter { $0.name == "Aleksanterinkatu" }.flatMap { [$0.from, $0.to] }).intersection(nodes)
        let there = meets.compactMap { graph.nodes[$0]?.coordinate }.filter { c in
            abs(Angle.signedDifference(Self.start.bearing(to: c), 90)) < 30 && abs(Self.start.distance(to: c) - said) <= 10
        }
        #expect(!there.isEmpty, "no node where \(name) meets Aleksanterinkatu about \(said) m ahead")
        #expect(p.texts.count > 1, "no places after the intersection: \(p.texts)")
    }

    @Test func historyRepeatsWalksBackAndLists() async throws {
        let map = try await Helsinki.map()
        let p = Pipeline(map: map)
        await p.processor.setAutomaticCallouts(false)
        await p.move(to: Pipeline.fix(Self.start, course: 90))
        await p.send(ExplorationEvent(.aheadOfMe))
        let history = await p.processor.coordinator.history
        #expect(history.callouts.count >= 4)
        func spoken(after count: Int) -> [String] { p.texts(after: count) }

        var before = p.player.items.count
        await p.send(RepeatCalloutEvent())
        let newest = try #require(spoken(after: before).first)
        before = p.player.items.count
        await p.send(RepeatCalloutEvent(earlier: true))
        let second = try #require(spoken(after: before).first)
        before = p.player.items.count
        await p.send(RepeatCalloutEvent(earlier: true))
        let third = try #require(spoken(after: before).first)
        #expect(Set([newest, second, third]).count == 3, "\(newest) / \(second) / \(third)")
        // Each is the history entry one further back, said as a repeat from here.
        for (n, text) in [newest, second, third].enumerated() {
            let expected = history.back(n)!.render(CalloutContext(location: Self.start, heading: 90, accuracy: 5, isRepeat: true,
                                                                  phrasing: Phrasing(table: try StringTable(language: "en")), now: Pipeline.start))
            #expect(expected.first?.text == text, "entry \(n): \(text)")
        }
        // "repeat" starts again from the newest.
        before = p.player.items.count
        await p.send(RepeatCalloutEvent())
        #expect(spoken(after: before).first == newest)

        // The last five, newest first; the history is not changed by the repeats.
        before = p.player.items.count
        await p.send(ListCalloutHistoryEvent(count: 5))
        let listed = spoken(after: before)
        #expect(listed.count == min(5, history.callouts.count))
        #expect(Array(listed.prefix(3)) == [newest, second, third])
        #expect(await p.processor.coordinator.history.callouts.map(\.id) == history.callouts.map(\.id))

        // Past the oldest: said so.
        for _ in 0..<history.callouts.count { await p.send(RepeatCalloutEvent(earlier: true)) }
        #expect(p.texts.last == "There is nothing before that. I keep the last \(history.callouts.count) callouts")
    }
}
