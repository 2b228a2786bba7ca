import Foundation
import Geo
import GRDB

/// Map tiles from a Soundscape tile service while the user is outside the imported area. The tiles go into the same
/// map database the assistant reads (tagged as tile data, kept with their ETag for seven days), so every question
/// is answered the same way inside and outside the offline map. Without a configured service nothing is fetched.
public actor OutsideMapTiles {
    public let client: TileServiceClient
    /// The imported area (min lat, min lon, max lat, max lon); nil when the database holds no import.
    public let coverage: BoundingBox?
    /// Tiles are loaded again once the user is this far from where they were last loaded.
    let reloadDistance: Double
    let radius: Double
    private var lastLoad: Coordinate?
    private var announced = false
    private var failureSaid = false

    /// What a position change brought: the notice to say once, a failure to report once, and the load itself.
    public struct Update: Sendable {
        public var notice: String?
        public var problem: String?
        public var report: TileLoadReport?
    }

    /// A follower for `service` (a base URL such as http://tiles.example.org), storing into the map database at
    /// `databasePath`, which is created when it does not exist yet. Nil when `service` is empty (offline only).
    public init?(service: String, databasePath: String, radius: Double = 500, reloadDistance: Double = 200) throws {
        let trimmed = service.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        guard let url = URL(string: trimmed), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw TileServiceError("tile service \(trimmed): not an http(s) address")
        }
        client = try TileServiceClient(baseURL: url, databasePath: databasePath)
        let values = try client.queue.read { db in
            try Dictionary(Row.fetchAll(db, sql: "SELECT key, value FROM metadata").map { ($0[0] as String, $0[1] as String) },
                           uniquingKeysWith: { a, _ in a })
        }
        let metadata = MapMetadata(values: values)
        if metadata.sourceFile != nil, let b = metadata.bbox, b.count == 4 {
            coverage = BoundingBox(minLatitude: b[0], minLongitude: b[1], maxLatitude: b[2], maxLongitude: b[3])
        } else {
            coverage = nil
        }
        self.radius = radius
        self.reloadDistance = reloadDistance
    }

    /// The host named to the user.
    public nonisolated var host: String {
        let url = client.baseURL
        return url.port.map { "\(url.host ?? url.absoluteString):\($0)" } ?? (url.host ?? url.absoluteString)
    }

    public nonisolated var notice: String { "Outside the offline map; using map tiles from \(host)" }

    public nonisolated func covers(_ c: Coordinate) -> Bool {
        guard let b = coverage else { return false }
        return c.latitude >= b.minLatitude && c.latitude <= b.maxLatitude
            && c.longitude >= b.minLongitude && c.longitude <= b.maxLongitude
    }

    /// The notice, the first time it is asked for (to be said before the first load).
    public func takeNotice() -> String? {
        guard !announced else { return nil }
        announced = true
        return notice
    }

    /// Loads the tiles around `c` when it lies outside the imported area and the user has moved far enough since
    /// the last load; nothing happens inside the imported area.
    public func update(_ c: Coordinate, now: Date = Date()) async -> Update {
        guard !covers(c) else { return Update() }
        if let lastLoad, lastLoad.distance(to: c) < reloadDistance { return Update() }
        var update = Update()
        update.notice = takeNotice()
        lastLoad = c
        do {
            let report = try await client.loadTiles(around: c, radius: radius, now: now)
            update.report = report
            if let problem = (report.failed + report.invalid).first, report.fetched.isEmpty && report.fresh.isEmpty
                && report.notModified.isEmpty {
                lastLoad = nil   // try again with the next position
                if !failureSaid {
                    failureSaid = true
                    update.problem = "map tiles from \(host) could not be loaded (\(problem))"
                }
            }
        } catch {
            lastLoad = nil
            if !failureSaid {
                failureSaid = true
                update.problem = "map tiles from \(host) could not be loaded (\(error))"
            }
        }
        return update
    }
}

/// A tile service setting that cannot be used.
public struct TileServiceError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
