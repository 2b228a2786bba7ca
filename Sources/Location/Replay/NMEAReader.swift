import Foundation
import Geo

/// Reads positions from NMEA 0183 sentences (RMC for date, time, speed and course; GGA for fixes without RMC).
/// Sentences with a bad checksum or unreadable fields are skipped and counted, as receivers do produce them.
public enum NMEAReader {
    public struct Result: Sendable {
        public var points: [TrackPoint]
        public var skippedLines: Int
    }

    public static func read(_ path: String) throws -> Result {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TrackFileError(path: path, line: nil, reason: "cannot read the file")
        }
        return parse(String(decoding: data, as: UTF8.self))
    }

    public static func parse(_ text: String) -> Result {
        var points: [TrackPoint] = []
        var skipped = 0
        var lastTime: Substring?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            guard line.hasPrefix("$") || line.hasPrefix("!") else {
                if !line.isEmpty && !line.hasPrefix("#") { skipped += 1 }
                continue
            }
            guard let fields = validFields(line) else { skipped += 1; continue }
            let kind = fields[0].suffix(3)
            switch kind {
            case "RMC":
                guard fields.count >= 10, fields[2] == "A",
                      let c = coordinate(fields[3], fields[4], fields[5], fields[6]) else { continue }
                let time = date(fields[9], fields[1])
                var point = TrackPoint(coordinate: c, time: time,
                                       speed: Double(fields[7]).map { $0 * 0.514444 },
                                       course: Double(fields[8]))
                if lastTime == fields[1], let last = points.last, last.coordinate == c {
                    point.horizontalAccuracy = last.horizontalAccuracy
                    points[points.count - 1] = point
                } else {
                    points.append(point)
                }
                lastTime = fields[1]
            case "GGA":
                guard fields.count >= 9, let quality = Int(fields[6]), quality > 0,
                      let c = coordinate(fields[2], fields[3], fields[4], fields[5]) else { continue }
                let accuracy = Double(fields[8]).map { $0 * 5 }   // HDOP × 5 m: a common rough conversion
                if lastTime == fields[1], let last = points.last, last.coordinate == c {
                    points[points.count - 1].horizontalAccuracy = accuracy
                } else {
                    points.append(TrackPoint(coordinate: c, horizontalAccuracy: accuracy))
                }
                lastTime = fields[1]
            default:
                continue
            }
        }
        return Result(points: points, skippedLines: skipped)
    }

    /// Splits a sentence into fields after checking its checksum (when it has one).
    static func validFields(_ line: String) -> [Substring]? {
        var body = Substring(line.dropFirst())
        if let star = body.lastIndex(of: "*") {
            let given = body[body.index(after: star)...]
            body = body[..<star]
            guard given.count == 2, let expected = UInt8(given, radix: 16) else { return nil }
            let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
            guard sum == expected else { return nil }
        }
        let fields = body.split(separator: ",", omittingEmptySubsequences: false)
        return fields.isEmpty ? nil : fields
    }

    static func coordinate(_ lat: Substring, _ ns: Substring, _ lon: Substring, _ ew: Substring) -> Coordinate? {
        func value(_ s: Substring, degreeDigits: Int) -> Double? {
            guard s.count > degreeDigits, let deg = Double(s.prefix(degreeDigits)), let min = Double(s.dropFirst(degreeDigits)) else { return nil }
            return deg + min / 60
        }
        guard var la = value(lat, degreeDigits: 2), var lo = value(lon, degreeDigits: 3) else { return nil }
        if ns == "S" { la = -la } else if ns != "N" { return nil }
        if ew == "W" { lo = -lo } else if ew != "E" { return nil }
        let c = Coordinate(latitude: la, longitude: lo)
        return c.isValid ? c : nil
    }

    static func date(_ ddmmyy: Substring, _ hhmmss: Substring) -> Date? {
        guard ddmmyy.count == 6, hhmmss.count >= 6,
              let d = Int(ddmmyy.prefix(2)), let m = Int(ddmmyy.dropFirst(2).prefix(2)), let y = Int(ddmmyy.suffix(2)),
              let hh = Int(hhmmss.prefix(2)), let mm = Int(hhmmss.dropFirst(2).prefix(2)), let ss = Double(hhmmss.dropFirst(4)),
              // Seconds past 60 (or not a number) would trap in Int(ss) below (found by the NMEA fuzzer, Fuzz/).
              ss >= 0, ss < 61 else { return nil }
        var components = DateComponents()
        components.year = 2000 + y; components.month = m; components.day = d
        components.hour = hh; components.minute = mm; components.second = Int(ss)
        components.timeZone = TimeZone(identifier: "UTC")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: components).map { $0.addingTimeInterval(ss - Double(Int(ss))) }
    }
}
