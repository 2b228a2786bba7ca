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
                                    fix: MapOpenError(path: path, reason: "no map features").fix)
            }
            let region = MapPaths.regionName(view.metadata)
            return DoctorResult(part: part, status: .ok,
                                detail: "\(region): \(stats.features) features, \(stats.intersections) intersections (\(path)); \(view.metadata.attribution)")
        } catch {
            // Opening names the file and the way out; a failure after it (the statistics) gets the same words.
            let problem = error as? MapOpenError ?? MapOpenError(path: path, reason: "\(error)")
            return DoctorResult(part: part, status: .failed, detail: problem.problem, fix: problem.fix)
        }
    }
}
