import Foundation
import Geo
import GRDB
import MapData
import Synchronization

/// Where a tile server takes its tiles from. A source holds no state a request could change, so any number of
/// servers can share one database.
public protocol TileSource: Sendable {
    /// Says which database answers, for logs and error messages ("SQLite map /path", "PostgreSQL at host:port/db").
    var name: String { get }
    /// The z16 tile in the Soundscape GeoJSON format.
    func geoJSON(for tile: Tile) async throws -> Data
}

/// A tile source that could not answer: says which server or file, and why.
public struct TileSourceError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Tiles rendered from an imported SQLite map (a self-hosted small area). A few read-only connections, opened once,
/// answer requests side by side.
public final class SQLiteTileSource: TileSource {
    public let path: String
    public var name: String { "SQLite map \(path)" }
    private let queues: [DatabaseQueue]
    private let next = Atomic<Int>(0)

    public init(path: String, connections: Int = 4) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw TileSourceError("no map database at \(path) (import one with `soundscape import`)")
        }
        self.path = path
        do {
            queues = try (0..<max(1, connections)).map { _ in try MapStore.openReadOnly(path: path) }
            _ = try queues[0].read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM feature_index") }
        } catch {
            throw TileSourceError("\(path) is not a readable map database: \(error)")
        }
    }

    public func geoJSON(for tile: Tile) async throws -> Data {
        let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
        do {
            return try await TileGeoJSON.render(tile: tile, queue: queues[abs(i % queues.count)])
        } catch let error as CancellationError {
            throw error
        } catch {
            throw TileSourceError("\(name): \(error)")
        }
    }
}
