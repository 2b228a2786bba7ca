import Foundation
import Geo
import Location
import Testing

@Suite struct TrackFileRealDataTests {
    @Test(arguments: ["tracklib/sep/raw/MC_polar.gpx", "gpxpy/cerknicko-jezero.gpx", "gpxpy/korita-zbevnica.gpx",
                      "gpxpy/track-with-empty-segment.gpx", "gpxpy/route.gpx"])
    func realFilesLoad(_ file: String) throws {
        let loaded = try TrackFile.load(try GPSData.path(file))
        #expect(!loaded.points.isEmpty)
        #expect(loaded.points.allSatisfy { $0.coordinate.isValid })
    }

    @Test func aByteOrderMarkAndAWaypointOnlyFileAreNotErrors() throws {
        // unicode_with_bom.gpx starts with a UTF-8 BOM and holds one waypoint, no track or route.
        #expect(try TrackFile.load(try GPSData.path("gpxpy/unicode_with_bom.gpx")).points.isEmpty)
    }

    @Test func timesWithoutAZoneAreUTC() throws {
        let points = try TrackFile.load(try GPSData.path("gpxpy/gpx1.0_with_all_fields.gpx")).points
        let time = try #require(points.compactMap(\.time).first)
        #expect(time == ISO8601DateFormatter().date(from: "2013-01-01T12:00:04Z"))
    }

    @Test func aTruncatedRealGPXNamesFileAndLine() throws {
        // MC_polar.gpx cut in the middle of a point, written one point per line so that the line is telling.
        let text = try String(contentsOfFile: GPSData.path("tracklib/sep/raw/MC_polar.gpx"), encoding: .utf8)
            .replacingOccurrences(of: "<trkpt", with: "\n<trkpt")
        let cut = text.prefix(text.count / 2)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("truncated-\(UUID().uuidString).gpx").path
        try String(cut).write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lines = cut.split(separator: "\n", omittingEmptySubsequences: false).count
        do {
            _ = try TrackFile.load(path)
            Issue.record("a truncated GPX must not load")
        } catch let error as TrackFileError {
            #expect(error.path == path)
            let line = try #require(error.line)
            #expect(abs(line - lines) <= 1, "reported line \(line), the file has \(lines)")
            #expect(error.description.hasPrefix("\(path):\(line):"))
        }
    }

    @Test func garbageNMEALinesAreCounted() throws {
        let fixture = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/rautatientori-walk.nmea")
        var text = try String(contentsOf: fixture, encoding: .utf8)
        text = text.replacingOccurrences(of: "$GPRMC,120010", with: "garbage\n$GPRMC,120010")
        text += "$GPRMC,999999,A,XXXX*00\n\u{1}\u{2}binary\n"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("walk-\(UUID().uuidString).nmea").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let loaded = try TrackFile.load(path)
        #expect(loaded.points.count == 40)
        #expect(loaded.skippedLines == 3)
    }

    @Test func neitherGPXNorNMEAIsAnError() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("junk-\(UUID().uuidString).txt").path
        try "just some words\nand more\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: TrackFileError.self) { _ = try TrackFile.load(path) }
    }

    @Test func aLoopingReplayKeepsTimeMovingForward() async throws {
        let points = try Array(GPSData.walk("tracklib/sep/raw/MC_polar.gpx").prefix(5))
        let replay = TrackReplay(points: points, speed: 1000, clock: ContinuousClock())
        var times: [Date] = []
        for await fix in replay.fixes(loop: true) {
            times.append(fix.timestamp)
            if times.count == 12 { break }
        }
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
    }
}

@Suite struct CompassProbeTests {
    @Test func answersAreInterpreted() {
        #expect(CompassProbe.interpret(status: 0, stdout: "(<true>,)\n", stderr: "") == .present)
        #expect(CompassProbe.interpret(status: 0, stdout: "(<false>,)\n", stderr: "") != .present)
        let noService = CompassProbe.interpret(status: 1, stdout: "", stderr: "Error: GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown: The name net.hadess.SensorProxy was not provided by any .service files")
        #expect(noService == .notPresent(reason: "iio-sensor-proxy is not running (it is the service that offers compasses)"))
        let noBus = CompassProbe.interpret(status: 1, stdout: "", stderr: "Error connecting: Could not connect: No such file or directory")
        #expect(noBus == .notPresent(reason: "there is no D-Bus system bus to ask"))
    }

    @Test func detectionSaysPlainlyWhatItFound() {
        let result = CompassProbe.detect()
        // This machine (a container) has no compass; whatever the reason, it must be said.
        if case .notPresent(let reason) = result { #expect(!reason.isEmpty) }
        #expect(!result.description.isEmpty)
    }
}
