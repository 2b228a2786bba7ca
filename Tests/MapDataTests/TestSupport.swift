import Foundation
import Geo
@testable import MapData
import MapTestSupport
import Testing

/// The shared Helsinki import (MapTestSupport) with a view on it.
enum SharedHelsinki {
    struct Imported: Sendable {
        var databasePath: String
        var summary: MapImportSummary
        var view: SpatialDataView
    }

    static func get() async throws -> Imported {
        let imported = try await HelsinkiImport.get()
        return Imported(databasePath: imported.databasePath, summary: imported.summary,
                        view: try SpatialDataView(path: imported.databasePath))
    }
}

extension Coordinate {
    /// Haversine distance written out here so that the oracle does not share code with MapData.
    func haversine(to other: Coordinate) -> Double {
        let r = 6_371_008.8
        let φ1 = latitude * .pi / 180, φ2 = other.latitude * .pi / 180
        let dφ = φ2 - φ1, dλ = (other.longitude - longitude) * .pi / 180
        let a = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * r * asin(min(1, a.squareRoot()))
    }
}
