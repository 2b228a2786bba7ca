import Foundation
import Geo
@testable import Guidance
import MapData
import MapTestSupport
import Testing

/// The shared Helsinki import (MapTestSupport) with a view and a route planner on it, made once.
actor HelsinkiMap {
    static let shared = HelsinkiMap()

    struct Loaded: Sendable {
        var databasePath: String
        var view: SpatialDataView
        var planner: RoutePlanner
    }

    private var loaded: Loaded?

    func get() async throws -> Loaded {
        if let loaded { return loaded }
        let db = try await HelsinkiImport.get().databasePath
        let made = Loaded(databasePath: db, view: try SpatialDataView(path: db), planner: try RoutePlanner.load(mapPath: db))
        loaded = made
        return made
    }

    static func get() async throws -> Loaded { try await shared.get() }
}
