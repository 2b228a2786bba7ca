import App
import Audio
import Foundation
import Geo
import MapData
import Testing

/// Street Preview in `run` at a fixed place with no GPS, typed and spoken.
enum PreviewOracle {
    /// The street the walker is on at the second intersection east of ``VoiceEndToEndTests/here``, worked out here
    /// from the raw walking graph: from the nearest road point, along the road towards the heading, through nodes
    /// where the road only goes on (or where the last intersection is less than 12 m back), to the second node where
    /// three or more road directions meet; the name of the way it arrives by.
    static func secondIntersectionStreet(from here: Coordinate, heading: Double) throws -> String {
        let graph = try WalkingGraph.load(from: Soundscape.helsinkiDatabase)
        let roads = graph.edges.indices.filter { RoadNetwork.isRoad(graph.edges[$0]) }
        var atNode: [Int64: [Int]] = [:]
        for i in roads { atNode[graph.edges[i].from, default: []].append(i); atNode[graph.edges[i].to, default: []].append(i) }
        // The nearest road edge, and the node ahead on it.
        let start = try #require(roads.min { a, b in
            Polyline(graph.edges[a].geometry).nearestPoint(to: here)!.distance < Polyline(graph.edges[b].geometry).nearestPoint(to: here)!.distance
        })
        let first = graph.edges[start]
        let fromBearing = graph.nodes[first.from]!.coordinate.bearing(to: graph.nodes[first.to]!.coordinate)
        var node = abs(Angle.signedDifference(fromBearing, heading)) <= 90 ? first.to : first.from
        var edge = start
        var sinceLast = Polyline(first.geometry).length
        var found = 0
        while true {
            let onward = (atNode[node] ?? []).filter { $0 != edge }
            if onward.count >= 2 && sinceLast >= 12 {
                found += 1
                if found == 2 { return graph.edges[edge].name ?? "" }
                sinceLast = 0
            }
            try #require(!onward.isEmpty, "the road ends before the second intersection")
            // Straight on: the edge whose first stretch turns least from the way in.
            let inGeometry = graph.edges[edge].to == node ? graph.edges[edge].geometry : graph.edges[edge].geometry.reversed()
            let inBearing = inGeometry[inGeometry.count - 2].bearing(to: inGeometry[inGeometry.count - 1])
            func outBearing(_ e: Int) -> Double {
                let g = graph.edges[e].from == node ? graph.edges[e].geometry : graph.edges[e].geometry.reversed()
                return g[0].bearing(to: Polyline(g).point(atDistance: 25)!)
            }
            let next = try #require(onward.min { abs(Angle.signedDifference(outBearing($0), inBearing)) < abs(Angle.signedDifference(outBearing($1), inBearing)) })
            sinceLast += graph.edges[next].length
            node = graph.edges[next].from == node ? graph.edges[next].to : graph.edges[next].from
            edge = next
        }
    }
}

extension CommandLineTests {
    @Test func typedStreetPreviewWalksTwoIntersectionsAndReturns() throws {
        let here = VoiceEndToEndTests.here
        let street = try PreviewOracle.secondIntersectionStreet(from: here, heading: 90)
        let real = try #require(try SpatialDataView(path: Soundscape.helsinkiDatabase).nearestRoad(to: here)?.road.name)
        let result = try Soundscape.runTyped(["run", "--at", "\(here.latitude),\(here.longitude)", "--heading", "90",
                                              "--db", Soundscape.helsinkiDatabase, "--quiet", "--no-voice"],
                                             lines: ["start preview", "go forward", "go forward", "where am i", "end preview", "quit"],
                                             pause: 1.5)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let started = try #require(lines.firstIndex { $0.hasPrefix("Starting Street Preview along ") }, "\(result.stdout)")
        let moves = lines.indices.filter { lines[$0].wholeMatch(of: /\d+ meters along .+ to .+/) != nil }
        #expect(moves.count == 2, "\(result.stdout)")
        let ended = try #require(lines.firstIndex(of: "Preview ended. Back at your real position:"), "\(result.stdout)")
        // Where am I at the second intersection: the street walked along, facing on; after the end, the real street.
        let answer = try #require(lines[(moves.last ?? started)..<ended].last { $0.contains(" along ") && !$0.contains(" meters along ") },
                                  "\(result.stdout)")
        #expect(answer.hasSuffix(" along \(street)"), "expected \(street): \(answer)")
        #expect(started < (moves.first ?? 0) && ended > (moves.last ?? .max))
        #expect(lines.count > ended + 1 && lines[ended + 1].hasSuffix(" along \(real)"), "\(result.stdout)")
    }
}

extension VoiceEndToEndTests {
    @Test func spokenStreetPreviewWalksTwoIntersectionsAndReturns() async throws {
        try TestServices.require()
        let street = try PreviewOracle.secondIntersectionStreet(from: Self.here, heading: 90)
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let assistant = try await RunningAssistant.listening(dir: dir, settle: .milliseconds(500))
        defer { assistant.stop() }
        let microphone = try RunningAssistant.microphone()
        /// Says `text` with push-to-talk held over it (and a short lead-in), and waits until it was heard or refused;
        /// a refused one is said again once, as a user would.
        func say(_ text: String) async throws {
            let utterance = try assistant.speech(text)
            let leadIn = [Float](repeating: 0, count: utterance.sampleRate * 3 / 10)
            for _ in 0..<2 {
                let before = assistant.output.components(separatedBy: "voice: ").count
                try ControlSocket.send("press", to: assistant.socket)
                // The write returns once the sound server has nearly all of it; the drain, once it has been played.
                try microphone.write(leadIn + utterance.samples)
                try microphone.drain()
                try await Task.sleep(for: .milliseconds(400))
                try ControlSocket.send("release", to: assistant.socket)
                var outcome = ""
                for _ in 0..<80 {
                    let entries = assistant.output.components(separatedBy: "voice: ").dropFirst(before)
                    if let done = entries.first(where: { $0.hasPrefix("heard") || $0.hasPrefix("not understood") }) { outcome = done; break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                try await Task.sleep(for: .seconds(1))   // the answer is printed
                if outcome.hasPrefix("heard") { return }
            }
        }
        for command in ["start preview", "go forward", "go forward", "where am i", "end preview"] { try await say(command) }
        let output = assistant.output
        for command in ["start preview", "go forward", "where am i", "end preview"] {
            #expect(output.contains("voice: heard \"\(command)\""), "\(command) was not heard: \(output)")
        }
        let lines = output.split(separator: "\n").map(String.init)
        let heard = try #require(lines.lastIndex { $0.contains("voice: heard \"where am i\"") }, "\(output)")
        let answer = try #require(lines[heard...].first { $0.hasSuffix(" along \(street)") || $0.hasPrefix("Heading ") || $0.hasPrefix("Facing ") },
                                  "\(output)")
        #expect(answer.hasSuffix(" along \(street)"), "expected \(street): \(answer)")
        #expect(output.contains("Preview ended. Back at your real position:"), "\(output)")
    }
}

extension DemoTests {
    /// The bundled script's Street Preview part: started on Keskuskatu, two moves and a turn, "where am I" answered
    /// for the walker, then back at the real position.
    @Test func theDemoPreviewsTheWayAheadAndComesBack() throws {
        let result = try Soundscape.run(["demo", "--no-play", "--json", "--from", "1:10", "--until", "1:48",
                                         "--output", Self.scratch("preview.wav"), "--db", Soundscape.helsinkiDatabase])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let entries = try Self.entries(result.stdout)
        let intents = entries.filter { $0.kind == "command" }.compactMap(\.intent)
        #expect(intents.first == "start_preview" && intents.last == "end_preview", "\(intents)")
        #expect(intents.filter { $0 == "preview_forward" }.count == 2, "\(intents)")
        let replies = entries.filter { $0.kind == "reply" }.compactMap(\.text)
        let started = try #require(replies.firstIndex { $0.hasPrefix("Starting Street Preview along ") }, "\(replies)")
        let ended = try #require(replies.firstIndex(of: "Preview ended. Back at your real position:"), "\(replies)")
        #expect(replies[started..<ended].filter { $0.contains(" meters along ") }.count == 2, "\(replies)")
        // Where am I for the walker (after a left turn, on another street) and then for the real walker.
        let previewed = try #require(replies[started..<ended].last { $0.hasPrefix("Heading ") }, "\(replies)")
        let real = try #require(replies[ended...].first { $0.hasPrefix("Heading ") || $0.hasPrefix("Facing ") }, "\(replies)")
        #expect(previewed != real, "\(previewed) / \(real)")
        #expect(real.hasSuffix("along Keskuskatu"), "\(real)")
    }
}
