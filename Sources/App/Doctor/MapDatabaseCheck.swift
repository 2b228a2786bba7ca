import Foundation
import MapData

/// The map database exists, opens, and has features.
public struct MapDatabaseCheck: DoctorCheck {
    public let part = "Map"
    let path: String

    public init(path: String) { self.path = path }

    public func run() async -> DoctorResult {
        do {
            let view = try SpatialDataView(path: path)
            let stats = try MapStore.statistics(path: path)
            guard stats.features > 0 else {
                return DoctorResult(part: part, status: .failed, detail: "\(path) has no map features",
                                    fix: "import the map again with soundscape import")
            }
            let region = MapPaths.regionName(view.metadata)
            return DoctorResult(part: part, status: .ok,
                                detail: "\(region): \(stats.features) features, \(stats.intersections) intersections (\(path)); \(view.metadata.attribution)")
        } catch let error as MapOpenError {
            return DoctorResult(part: part, status: .failed, detail: error.problem, fix: error.fix)
        } catch {
            return DoctorResult(part: part, status: .failed, detail: "\(path): \(error)",
                                fix: "the file is damaged or not a Soundscape map; import the map again")
        }
    }
}
