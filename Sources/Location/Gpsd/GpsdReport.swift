import Foundation
import Geo

/// What gpsd tells its clients, reduced to what this program uses.
public enum GpsdReport: Sendable, Equatable {
    /// A position (TPV with mode ≥ 2, finite latitude and longitude, and the receiver's time).
    case fix(LocationFix)
    /// A position without the receiver's time, stamped with the arrival time. gpsd sends one when a cycle starts
    /// with GGA before RMC; the complete report follows. Receivers that never send a date only give these.
    case untimedFix(LocationFix)
    /// A TPV without a usable position: the receiver is there but sees too few satellites.
    case noFix(FixMode)
    /// A heading from the receiver itself (ATT, from NMEA HDT or a dual-antenna receiver), degrees true.
    case heading(Double, Date)
    /// The devices gpsd has open (DEVICES); empty means no receiver is attached.
    case devices([String])
    /// Server greeting (VERSION) with gpsd's release.
    case version(String)
}

/// Turns one line of gpsd's JSON protocol into a report. Pure; lines it does not use give nil,
/// lines that are not JSON objects throw.
public enum GpsdMessageParser {
    public struct NotGpsdJSON: Error, CustomStringConvertible {
        public var line: String
        public var description: String { "not a gpsd JSON object: \(line.prefix(80))" }
    }

    private struct Message: Decodable {
        var `class`: String
        var mode: Int?
        var time: String?
        var lat: Double?
        var lon: Double?
        var altHAE: Double?
        var alt: Double?
        var eph: Double?
        var epx: Double?
        var epy: Double?
        var speed: Double?
        var track: Double?
        var heading: Double?
        var release: String?
        var devices: [Device]?
        struct Device: Decodable { var path: String? }
    }

    public static func parse(_ line: Data, receivedAt now: Date = Date()) throws -> GpsdReport? {
        let message: Message
        do { message = try JSONDecoder().decode(Message.self, from: line) } catch {
            throw NotGpsdJSON(line: String(decoding: line, as: UTF8.self))
        }
        switch message.class {
        case "VERSION":
            return .version(message.release ?? "unknown")
        case "DEVICES":
            return .devices((message.devices ?? []).compactMap(\.path))
        case "ATT":
            guard let h = message.heading, h.isFinite else { return nil }
            return .heading(h, message.time.flatMap(parseTime) ?? now)
        case "TPV":
            let mode = FixMode(rawValue: message.mode ?? 0) ?? .unknown
            guard mode >= .twoD, let lat = message.lat, let lon = message.lon else { return .noFix(mode) }
            let coordinate = Coordinate(latitude: lat, longitude: lon)
            guard coordinate.isValid else { return .noFix(mode) }
            // gpsd gives eph (95 % horizontal) on newer releases; otherwise combine the x/y error estimates.
            let accuracy = message.eph ?? zip2(message.epx, message.epy).map { ($0 * $0 + $1 * $1).squareRoot() }
            let time = message.time.flatMap(parseTime)
            let fix = LocationFix(coordinate: coordinate,
                                    timestamp: time ?? now,
                                    mode: mode,
                                    horizontalAccuracy: accuracy.flatMap(finite),
                                    speed: message.speed.flatMap(finite),
                                    course: message.track.flatMap(finite),
                                    altitude: (message.altHAE ?? message.alt).flatMap(finite))
            return time == nil ? .untimedFix(fix) : .fix(fix)
        default:
            return nil
        }
    }

    private static func finite(_ v: Double) -> Double? { v.isFinite ? v : nil }
    private static func zip2(_ a: Double?, _ b: Double?) -> (Double, Double)? {
        guard let a, let b else { return nil }
        return (a, b)
    }

    static func parseTime(_ s: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: s) { return d }
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: s)
    }
}
