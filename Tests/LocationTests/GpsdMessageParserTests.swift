import Foundation
import Geo
import Location
import Testing

@Suite struct GpsdMessageParserTests {
    func parse(_ line: String) throws -> GpsdReport? { try GpsdMessageParser.parse(Data(line.utf8)) }

    @Test func aThreeDimensionalTPVBecomesAFix() throws {
        let line = #"{"class":"TPV","device":"/dev/pts/1","mode":3,"time":"2026-11-21T12:00:02.000Z","ept":0.005,"lat":60.171,"lon":24.94205,"altHAE":33.0,"epx":3.0,"epy":4.0,"track":90.0,"speed":1.399}"#
        guard case .fix(let fix) = try parse(line) else { Issue.record("expected a fix"); return }
        #expect(fix.coordinate == Coordinate(latitude: 60.171, longitude: 24.94205))
        #expect(fix.mode == .threeD)
        #expect(fix.horizontalAccuracy == 5.0)   // sqrt(3² + 4²)
        #expect(fix.speed == 1.399 && fix.course == 90 && fix.altitude == 33)
        #expect(fix.timestamp == Date(timeIntervalSince1970: 1_795_262_402))
    }

    @Test func ehpIsPreferredOverTheXYEstimates() throws {
        let line = #"{"class":"TPV","mode":2,"lat":1,"lon":2,"eph":7.5,"epx":3,"epy":4}"#
        guard case .untimedFix(let fix) = try parse(line) else { Issue.record("expected a fix without time"); return }
        #expect(fix.horizontalAccuracy == 7.5)
        #expect(fix.speed == nil && fix.course == nil)
    }

    @Test func aTPVWithoutPositionIsNoFix() throws {
        #expect(try parse(#"{"class":"TPV","mode":1}"#) == .noFix(.noFix))
        #expect(try parse(#"{"class":"TPV","mode":3,"lat":95,"lon":0}"#) == .noFix(.threeD))
    }

    @Test func attitudeGivesAHeading() throws {
        guard case .heading(let h, _) = try parse(#"{"class":"ATT","device":"/dev/pts/1","heading":81.5}"#) else {
            Issue.record("expected a heading"); return
        }
        #expect(h == 81.5)
    }

    @Test func devicesAndVersionAreReported() throws {
        #expect(try parse(#"{"class":"DEVICES","devices":[{"path":"/dev/ttyACM0"}]}"#) == .devices(["/dev/ttyACM0"]))
        #expect(try parse(#"{"class":"DEVICES","devices":[]}"#) == .devices([]))
        #expect(try parse(#"{"class":"VERSION","release":"3.22"}"#) == .version("3.22"))
        #expect(try parse(#"{"class":"SKY","satellites":[]}"#) == nil)
    }

    @Test(arguments: ["garbage", "{", "[1,2]", #"{"no_class":1}"#, ""])
    func garbageThrows(_ line: String) {
        #expect(throws: GpsdMessageParser.NotGpsdJSON.self) { _ = try parse(line) }
    }

    @Test func endpointsParse() {
        #expect(GpsdEndpoint("127.0.0.1:2947") == GpsdEndpoint(host: "127.0.0.1", port: 2947))
        #expect(GpsdEndpoint("gps.local") == GpsdEndpoint(host: "gps.local", port: 2947))
        #expect(GpsdEndpoint("[::1]:3000") == GpsdEndpoint(host: "::1", port: 3000))
        #expect(GpsdEndpoint("host:notaport") == nil)
        #expect(GpsdEndpoint(":2947") == nil)
        #expect(GpsdEndpoint(host: "::1", port: 1).description == "[::1]:1")
    }
}
