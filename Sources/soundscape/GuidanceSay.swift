import App
import Foundation
import Geo
import Guidance
import MapData

/// `soundscape say` for the guidance commands: "take me to ⟨place⟩" prints the planned route's
/// announcements in the order a walker hears them; "set beacon on ⟨place⟩" sets the beacon (in the user
/// database) and speaks its distance and direction. Returns nil when the command is not one of these, so
/// that SayCommand can fall through to the assistant.
enum GuidanceSay {
    struct Reply: Encodable {
        var command: String
        var intent: String
        var language: String
        var summary: String?
        var lines: [Line]
        struct Line: Encodable {
            var maneuver: Int?
            var phase: String?
            var text: String
            var samples: [String]?
            var distanceAlong: Double?
        }
    }

    static let takeMeTo = ["take me to ", "navigate to ", "guide me to ", "route to "]
    static let setBeacon = ["set beacon on ", "set a beacon on ", "set the beacon on ", "beacon on "]

    /// The place named after one of `prefixes`, if the command starts with one.
    static func place(in command: String, after prefixes: [String]) -> String? {
        let c = command.trimmingCharacters(in: .whitespacesAndNewlines)
        for p in prefixes where c.lowercased().hasPrefix(p) {
            let rest = String(c.dropFirst(p.count)).trimmingCharacters(in: .whitespaces)
            return rest.isEmpty ? nil : rest
        }
        return nil
    }

    /// Handles a guidance command. `userDatabase` nil = the default user database.
    static func handle(command: String, at here: Coordinate, heading: Double?, mapPath: String, language code: String,
                       json: Bool, userDatabase: String? = nil, samples: Bool = false) async throws -> String? {
        let tmp = place(in: command, after: takeMeTo)
        let beaconPlace = tmp == nil ? place(in: command, after: setBeacon) : nil
        guard tmp != nil || beaconPlace != nil else { return nil }
        let language = try GuidanceLanguage(code)
        let map = try SpatialDataView(path: mapPath)
        let store = try? UserStore(path: userDatabase ?? UserStore.defaultDatabasePath())
        var settings = SettingsStore(path: SettingsStore.defaultPath()).load().settings.guidance
        settings.language = language.code
        if samples { settings.output = .samples }
        var reply = Reply(command: command, intent: tmp != nil ? "take_me_to" : "set_beacon", language: language.code, lines: [])
        do {
            if let placeName = tmp {
                let planner = try RoutePlanner.load(mapPath: mapPath)
                let plan = try GuidanceCommands.takeMeTo(placeName: placeName, from: here, heading: heading, map: map, planner: planner,
                                                         language: language, settings: settings, markers: store?.markers)
                reply.summary = plan.summary
                reply.lines = plan.announcements.map {
                    .init(maneuver: $0.id.maneuver, phase: $0.id.phase.rawValue, text: $0.rendered(settings.output),
                          samples: $0.samples, distanceAlong: ($0.spokenAt * 10).rounded() / 10)
                }
            } else if let placeName = beaconPlace {
                let manager = DestinationManager(settings: settings, language: language, store: store)
                let (_, callout) = try await GuidanceCommands.setBeacon(placeName: placeName, from: here, heading: heading, map: map,
                                                                        language: language, settings: settings,
                                                                        markers: store?.markers, manager: manager)
                reply.lines = [.init(text: callout.text)]
            }
        } catch let error as GuidanceCommandError {
            reply.lines = [.init(text: error.description)]
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            return String(decoding: try encoder.encode(reply), as: UTF8.self)
        }
        return ([reply.summary].compactMap { $0 } + reply.lines.map(\.text)).joined(separator: "\n")
    }
}
