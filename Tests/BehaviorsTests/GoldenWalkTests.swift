import Behaviors
import Callouts
import Foundation
import Geo
import Location
import MapData
import MapTestSupport
import Testing

/// Walks on the real Helsinki map, replayed through the whole pipeline in simulated time; what is said (time,
/// words, where it is heard from) is compared with a golden transcript checked by hand against the map
/// (Tests/Fixtures/golden/README.md says how each was checked).
///
/// Run with UPDATE_GOLDEN=1 to rewrite the transcripts after a deliberate change — then check them again.
@Suite(.serialized) struct GoldenWalkTests {
    static let walks = ["rautatientori", "pohjoisesplanadi", "aleksanterinkatu", "mikonkatu", "unioninkatu"]

    /// "mm:ss  kind  text  [soundType bearing° compass distance m]", one line per utterance with words.
    static func transcript(of walk: String) async throws -> String {
        let map = try await Helsinki.map()
        let points = try GPXReader.read(TestData.golden.appendingPathComponent("\(walk).gpx").path)
        let fixes = TrackReplay(points: points, clock: ContinuousClock()).schedule(startingAt: Pipeline.start).map(\.fix)
        let pipeline = Pipeline(map: map)
        for fix in fixes { await pipeline.move(to: fix) }
        let compass = Phrasing(table: try StringTable(language: "en"))
        return pipeline.player.items.filter { !$0.text.isEmpty }.map { item in
            let seconds = Int(item.time.timeIntervalSince(Pipeline.start).rounded(.down))
            let time = String(format: "%02d:%02d", seconds / 60, seconds % 60)
            var place = item.utterance.placement.name
            if let bearing = item.bearing {
                place += " \(Int(bearing.rounded()) % 360)° \(compass.compass(bearing: bearing))"
            }
            if let distance = item.distance { place += " \(Int(distance.rounded())) m" }
            return "\(time)  \(item.kind.rawValue)  \(item.text)  [\(place)]"
        }.joined(separator: "\n") + "\n"
    }

    @Test(arguments: walks)
    func walkMatchesItsGoldenTranscript(_ walk: String) async throws {
        let actual = try await Self.transcript(of: walk)
        let file = TestData.golden.appendingPathComponent("\(walk).transcript")
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            try actual.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        if actual != expected {
            let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
            let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let firstDifference = (0..<min(a.count, e.count)).first { a[$0] != e[$0] } ?? min(a.count, e.count)
            Issue.record("""
                \(walk): transcript differs from \(file.lastPathComponent) at line \(firstDifference + 1)
                expected: \(firstDifference < e.count ? String(e[firstDifference]) : "<end>")
                actual:   \(firstDifference < a.count ? String(a[firstDifference]) : "<end>")
                """)
        }
    }

    @Test func replayingAWalkTwiceSaysTheSameThings() async throws {
        let first = try await Self.transcript(of: "mikonkatu")
        let second = try await Self.transcript(of: "mikonkatu")
        #expect(first == second)
        #expect(!first.isEmpty)
    }
}
