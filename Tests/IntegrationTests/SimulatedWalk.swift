import Foundation
import Geo

/// GPX files for `soundscape run --walk`: a walker standing, then walking a straight line at 1.4 m/s.
enum SimulatedWalk {
    /// Standing at `from` for `hold` seconds (a point every 10 s), walking at 1.4 m/s straight to `to` (a point every
    /// 5 s), then standing there for 20 s.
    static func gpx(from: Coordinate, to: Coordinate, hold: Double = 0) -> String {
        let t0 = Date(timeIntervalSince1970: 1_780_000_000)
        let formatter = ISO8601DateFormatter()
        let distance = from.distance(to: to), bearing = from.bearing(to: to)
        var points: [(Coordinate, Double)] = stride(from: 0.0, through: hold, by: 10).map { (from, $0) }
        let steps = max(1, Int((distance / 1.4 / 5).rounded()))
        for i in 1...steps { points.append((from.destination(bearing: bearing, distance: distance * Double(i) / Double(steps)), hold + 5 * Double(i))) }
        let arrived = hold + 5 * Double(steps)
        for k in 1...4 { points.append((to, arrived + 5 * Double(k))) }
        let rows = points.map { c, t in
            String(format: "<trkpt lat=\"%.7f\" lon=\"%.7f\"><time>%@</time></trkpt>", c.latitude, c.longitude,
                   formatter.string(from: t0.addingTimeInterval(t)))
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="soundscape tests" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            \(rows.joined(separator: "\n"))
            </trkseg></trk></gpx>
            """
    }
}
