import Callouts
import Foundation
import Geo

/// Something said twice over: as text for the speech synthesiser and as the names of recorded samples
/// (numbers are samples named by their digits; street and place names have no sample and are left out).
public struct Rendered: Sendable, Hashable, Codable {
    public var text: String
    public var samples: [String]

    public init(text: String, samples: [String]) {
        self.text = text
        self.samples = samples
    }

    /// A name with no recording.
    public static func name(_ text: String) -> Rendered { Rendered(text: text, samples: []) }
}

/// Fills `%1$@`, `%2$@`… in a template.
func fillSlots(_ template: String, _ arguments: [String]) -> String {
    var out = ""
    var i = template.startIndex
    while i < template.endIndex {
        let ch = template[i]
        if ch == "%" {
            var j = template.index(after: i)
            var digits = ""
            while j < template.endIndex, template[j].isNumber { digits.append(template[j]); j = template.index(after: j) }
            if !digits.isEmpty, j < template.endIndex, template[j] == "$" {
                let k = template.index(after: j)
                if k < template.endIndex, template[k] == "@", let n = Int(digits), n >= 1 {
                    out += n - 1 < arguments.count ? arguments[n - 1] : ""
                    i = template.index(after: k)
                    continue
                }
            }
        }
        out.append(ch)
        i = template.index(after: i)
    }
    return out
}

enum GuidanceResources {
    static func url(_ name: String) -> URL? {
        Bundle.module.url(forResource: name, withExtension: "json")
    }

    static var languages: [String] {
        let folder = Bundle.module.resourceURL ?? Bundle.module.bundleURL
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasPrefix("maneuvers-") && $0.hasSuffix(".json") }
            .map { String($0.dropFirst("maneuvers-".count).dropLast(5)) }.sorted()
    }
}

/// The phrases of guidance speech in one language: beacon, marker and route sentences
/// (`guidance-<lang>.json`, a Callouts string table) and the maneuver grammar with its phrases
/// (`maneuvers-<lang>.json`).
public struct GuidanceLanguage: Sendable {
    public let code: String
    /// Sentences with positional slots, as Callouts' `StringTable`.
    public let table: StringTable
    public let maneuvers: ManeuverPhrases
    /// How distances are spoken (the user's units setting).
    public var units: UnitSystem = .metric

    public struct MissingLanguage: Error, CustomStringConvertible {
        public var language: String
        public var description: String {
            "no guidance phrases for language \"\(language)\" (have: \(GuidanceLanguage.available.joined(separator: ", ")))"
        }
    }

    public static var available: [String] { GuidanceResources.languages }

    public init(_ code: String, units: UnitSystem) throws {
        try self.init(code)
        self.units = units
    }

    public init(_ code: String) throws {
        let base = code.split(separator: "-").first.map(String.init)?.lowercased() ?? code
        guard let tableURL = GuidanceResources.url("guidance-\(base)"),
              let maneuverURL = GuidanceResources.url("maneuvers-\(base)") else { throw MissingLanguage(language: code) }
        struct File: Decodable { var language: String; var strings: [String: String] }
        let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: tableURL))
        self.code = base
        self.table = StringTable(language: file.language, strings: file.strings)
        self.maneuvers = try ManeuverPhrases(data: Data(contentsOf: maneuverURL))
    }

    public func callAsFunction(_ key: String, _ arguments: String...) -> String { table.format(key, arguments) }

    public func distance(_ meters: Double, units: UnitSystem? = nil) -> String {
        DistanceFormatter(units: units ?? self.units, table: table).string(meters: meters)
    }

    /// "to the right" / "to the north-east": relative to `heading` when known, else a compass point.
    public func direction(from origin: Coordinate, to target: Coordinate, heading: Double?) -> String {
        let bearing = origin.bearing(to: target)
        if let heading, heading.isFinite {
            return table("direction.\(RelativeDirection(bearing: bearing, heading: heading).rawValue)")
        }
        return table("compass.\(CompassDirection(bearing: bearing).rawValue)")
    }
}
