import Clocks
import ClockTestSupport
import Foundation
import Geo
import Location
import Testing

@Suite struct TrackFileTests {
    static var fixtures: URL { URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures") }

    @Test func readsTheNMEAFixtureWalk() throws {
        let result = try NMEAReader.read(Self.fixtures.appendingPathComponent("rautatientori-walk.nmea").path)
        // 40 seconds, one RMC + GGA pair each: merged into one point per second.
        #expect(result.points.count == 40)
        #expect(result.skippedLines == 0)
        let first = try #require(result.points.first), last = try #require(result.points.last)
        #expect(abs(first.coordinate.latitude - 60.171) < 1e-6)
        #expect(abs(first.coordinate.longitude - 24.942) < 1e-6)
        // 39 s at 1.4 m/s eastwards.
        #expect(abs(first.coordinate.distance(to: last.coordinate) - 39 * 1.4) < 0.5)
        #expect(abs((first.speed ?? 0) - 1.4) < 0.01)
        #expect(first.course == 90)
        #expect(first.horizontalAccuracy == 4.5)
        #expect(first.time == ISO8601DateFormatter().date(from: "2026-11-21T12:00:00Z"))
    }

    @Test func badChecksumsAndGarbageAreSkippedAndCounted() {
        let text = """
            $GPRMC,120000.00,A,6010.2600,N,02456.5200,E,2.72,90.0,211126,,,A*55
            $GPRMC,120001.00,A,6010.2600,N,02456.5215,E,2.72,90.0,211126,,,A*00
            this is not nmea
            $GPGGA,120002.00,6010.2600,N,02456.5230,E,0,00,,,M,,M,,*70
            """
        let result = NMEAReader.parse(text)
        #expect(result.points.count == 1)       // the bad checksum and the no-fix GGA give nothing
        #expect(result.skippedLines == 2)       // bad checksum + garbage line
    }

    @Test func gpxTrackPointsWithTimes() throws {
        let gpx = """
            <?xml version="1.0"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
              <trk><trkseg>
                <trkpt lat="60.1699" lon="24.9384"><time>2026-11-21T10:00:00Z</time></trkpt>
                <trkpt lat="60.1700" lon="24.9390"><time>2026-11-21T10:00:05.5Z</time></trkpt>
              </trkseg></trk>
            </gpx>
            """
        let points = try GPXReader.parse(Data(gpx.utf8))
        #expect(points.count == 2)
        #expect(points[1].coordinate == Coordinate(latitude: 60.17, longitude: 24.939))
        #expect(points[1].time!.timeIntervalSince(points[0].time!) == 5.5)
    }

    @Test func aBrokenGPXNamesFileAndLine() {
        let gpx = "<gpx>\n<trk><trkseg>\n<trkpt lat=\"abc\" lon=\"1\"/>\n</trkseg></trk></gpx>"
        do {
            _ = try GPXReader.parse(Data(gpx.utf8), path: "walk.gpx")
            Issue.record("a non-numeric latitude must be an error")
        } catch let error as TrackFileError {
            #expect(error.path == "walk.gpx")
            #expect(error.line == 3)
            #expect(error.description.hasPrefix("walk.gpx:3:"))
        } catch { Issue.record("unexpected \(error)") }
        #expect(throws: TrackFileError.self) { _ = try GPXReader.parse(Data("<gpx><trk>".utf8)) }
        #expect(throws: TrackFileError.self) { _ = try GPXReader.parse(Data("<kml></kml>".utf8)) }
    }

    @Test func replayDerivesSpeedAndCourseAndScalesTime() {
        let a = Coordinate(latitude: 60.17, longitude: 24.94)
        let b = a.destination(bearing: 45, distance: 10)
        let t0 = Date(timeIntervalSince1970: 0)
        let replay = TrackReplay(points: [TrackPoint(coordinate: a, time: t0), TrackPoint(coordinate: b, time: t0.addingTimeInterval(8))],
                                 speed: 4, clock: ContinuousClock())
        let plan = replay.schedule(startingAt: t0)
        #expect(plan.count == 2)
        #expect(plan[1].delay == .seconds(2))
        #expect(abs(plan[1].fix.speed! - 1.25) < 0.01)
        #expect(abs(plan[1].fix.course! - 45) < 0.1)
        #expect(plan[1].fix.timestamp == t0.addingTimeInterval(8))
    }

    @Test(.timeLimit(.minutes(1)))
    func replayedFixesComeDueOnTheInjectedClockAtTheReplaySpeed() async throws {
        let a = Coordinate(latitude: 60.17, longitude: 24.94)
        let t0 = Date(timeIntervalSince1970: 0)
        let points = [0.0, 8, 12].map { TrackPoint(coordinate: a.destination(bearing: 0, distance: $0), time: t0.addingTimeInterval($0)) }
        let clock = TestClock()
        var fixes = TrackReplay(points: points, speed: 4, clock: clock).fixes().makeAsyncIterator()
        let first = try #require(await fixes.next())      // the first point at once
        await clock.waitUntilSomethingSleeps()
        await clock.advance(by: .milliseconds(1999))
        #expect(await clock.hasSleepers)                   // 8 s of the walk at 4× is 2 s of the clock: still waiting
        await clock.advance(by: .milliseconds(1))
        let second = try #require(await fixes.next())
        await clock.waitUntilSomethingSleeps()
        await clock.advance(by: .seconds(1))               // 4 s more of the walk
        let third = try #require(await fixes.next())
        #expect(await fixes.next() == nil)
        #expect([first, second, third].map { $0.timestamp.timeIntervalSince(first.timestamp) } == [0, 8, 12])
    }
}
