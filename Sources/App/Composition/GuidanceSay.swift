import Foundation
import Geo
import Guidance
import MapData

/// `soundscape say "take me to ⟨place⟩"`: plans the walking route and prints its announcements in the order
/// a walker hears them (the summary first, the arrival last). With --json, one JSON object a line:
/// text, kind ("summary" or "maneuver"), maneuver (its kind: depart, turn, cross…, arrive), index, phase,
/// distanceAlong, samples.
///
/// Every other guidance command goes through the assistant's pipeline like any command; this one is apart
/// because `say` answers at one place, and the plan is the answer.
enum GuidanceSay {
    struct Line: Encodable {
        var text: String
        var kind: String
        var maneuver: String?
        var index: Int?
        var phase: String?
        var distanceAlong: Double?
        var samples: [String]?
    }

    /// "turn right", "depart north", "cross".
    static func name(_ kind: ManeuverKind) -> String {
        let d = String(describing: kind)
        guard let open = d.firstIndex(of: "(") else { return d }
        let argument = d[d.index(after: open)...].dropLast().split(separator: ".").last.map(String.init) ?? ""
        return "\(d[..<open]) \(argument)"
    }

    static func takeMeTo(place: String, at here: Coordinate, heading: Double?, mapPath: String,
                         guidance: GuidanceSetup, json: Bool) async throws -> [String] {
        let map = try SpatialDataView(path: mapPath)
        var settings = await guidance.manager.settings
        settings.language = guidance.language.code
        var lines: [Line]
        do {
            let planner = try RoutePlanner.load(mapPath: mapPath)
            let plan = try GuidanceCommands.takeMeTo(placeName: place, from: here, heading: heading, map: map, planner: planner,
                                                     language: guidance.language, settings: settings,
                                                     markers: guidance.store?.markers)
            lines = [Line(text: plan.summary, kind: "summary")]
            lines += plan.announcements.map {
                Line(text: $0.rendered(settings.output), kind: "maneuver", maneuver: name(plan.maneuvers[$0.id.maneuver].kind),
                     index: $0.id.maneuver, phase: $0.id.phase.rawValue, distanceAlong: ($0.spokenAt * 10).rounded() / 10,
                     samples: settings.output == .samples ? $0.samples : nil)
            }
        } catch let error as GuidanceCommandError {
            lines = [Line(text: error.description, kind: "error")]
        }
        guard json else { return lines.map(\.text) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try lines.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
    }
}
