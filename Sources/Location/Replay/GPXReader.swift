import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Geo

/// Reads the track points (`trkpt`), or failing those the route points (`rtept`), of a GPX 1.0/1.1 file.
public enum GPXReader {
    public static func read(_ path: String) throws -> [TrackPoint] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TrackFileError(path: path, line: nil, reason: "cannot read the file")
        }
        return try parse(data, path: path)
    }

    public static func parse(_ data: Data, path: String = "<memory>") throws -> [TrackPoint] {
        let delegate = Delegate(path: path)
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        if !parser.parse() {
            if let error = delegate.error { throw error }
            let reason = parser.parserError.map { "not well-formed XML (\($0.localizedDescription))" } ?? "not well-formed XML"
            throw TrackFileError(path: path, line: parser.lineNumber, reason: reason)
        }
        if let error = delegate.error { throw error }
        if let open = delegate.openElements.last {
            throw TrackFileError(path: path, line: parser.lineNumber, reason: "the file ends inside <\(open)> (truncated?)")
        }
        guard delegate.sawGPX else { throw TrackFileError(path: path, line: nil, reason: "not a GPX file (no <gpx> element)") }
        return delegate.track.isEmpty ? delegate.route : delegate.track
    }

    private final class Delegate: NSObject, XMLParserDelegate {
        let path: String
        var track: [TrackPoint] = []
        var route: [TrackPoint] = []
        var current: TrackPoint?
        var currentIsRoute = false
        var text = ""
        var sawGPX = false
        var openElements: [String] = []
        var error: TrackFileError?
        let iso: ISO8601DateFormatter = {
            let f = ISO8601DateFormatter()
            f.formatOptions = [.withInternetDateTime]
            return f
        }()
        let isoFraction: ISO8601DateFormatter = {
            let f = ISO8601DateFormatter()
            f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return f
        }()

        init(path: String) { self.path = path }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            text = ""
            let local = name.split(separator: ":").last.map(String.init) ?? name
            openElements.append(local)
            if local == "gpx" { sawGPX = true }
            guard local == "trkpt" || local == "rtept" else { return }
            guard let lat = attributes["lat"].flatMap(Double.init), let lon = attributes["lon"].flatMap(Double.init) else {
                fail(parser, "a <\(local)> without a numeric lat and lon")
                return
            }
            let c = Coordinate(latitude: lat, longitude: lon)
            guard c.isValid else { fail(parser, "coordinate \(lat), \(lon) is out of range"); return }
            current = TrackPoint(coordinate: c)
            currentIsRoute = local == "rtept"
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            let local = name.split(separator: ":").last.map(String.init) ?? name
            if !openElements.isEmpty { openElements.removeLast() }
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch local {
            case "time" where current != nil:
                // GPX says UTC; some writers (GPX 1.0 era) leave the zone out, which means UTC too.
                let zoned = value.hasSuffix("Z") || value.range(of: #"[+-]\d\d:?\d\d$"#, options: .regularExpression) != nil ? value : value + "Z"
                guard let date = isoFraction.date(from: zoned) ?? iso.date(from: zoned) else {
                    fail(parser, "time \"\(value)\" is not an ISO 8601 date")
                    return
                }
                current?.time = date
            case "speed" where current != nil: current?.speed = Double(value)
            case "course" where current != nil: current?.course = Double(value)
            case "hdop" where current != nil: current?.horizontalAccuracy = Double(value).map { $0 * 5 }
            case "trkpt", "rtept":
                if let p = current { if currentIsRoute { route.append(p) } else { track.append(p) } }
                current = nil
            default: break
            }
            text = ""
        }

        private func fail(_ parser: XMLParser, _ reason: String) {
            error = TrackFileError(path: path, line: parser.lineNumber, reason: reason)
            parser.abortParsing()
        }
    }
}
