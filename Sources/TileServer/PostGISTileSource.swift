import Foundation
import Geo
import Logging
import MapData
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Tiles from PostgreSQL with PostGIS, loaded by osm2pgsql's classic output with all tags in an hstore column and
/// coordinates in degrees (`osm2pgsql --latlong --hstore-all --multi-geometry`). Each request is one query over the
/// point, line and polygon tables; the elements are classified by the importer's own rules, so the tile names the
/// same features as one rendered from the SQLite map of the same extract.
public final class PostGISTileSource: TileSource, Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        public var user: String
        public var password: String?
        public var database: String
        /// osm2pgsql's table prefix (its --prefix, default planet_osm).
        public var prefix: String
        /// A request that gets no answer in this time fails (PostgreSQL gone or overloaded).
        public var timeout: Duration

        public init(host: String = "127.0.0.1", port: Int = 5432, user: String = "postgres", password: String? = nil,
                    database: String, prefix: String = "planet_osm", timeout: Duration = .seconds(5)) {
            self.host = host; self.port = port; self.user = user; self.password = password
            self.database = database; self.prefix = prefix; self.timeout = timeout
        }

        /// `postgres://user[:password]@host[:port]/database` (the form libpq and osm2pgsql take).
        public init(url: String, prefix: String = "planet_osm", timeout: Duration = .seconds(5)) throws {
            guard let c = URLComponents(string: url), c.scheme == "postgres" || c.scheme == "postgresql",
                  let host = c.host, !host.isEmpty else {
                throw TileSourceError("\(url): not a postgres://user@host:port/database address")
            }
            let database = String(c.path.drop { $0 == "/" })
            guard !database.isEmpty else { throw TileSourceError("\(url): no database named after the host") }
            self.init(host: host, port: c.port ?? 5432, user: c.user ?? "postgres", password: c.password,
                      database: database, prefix: prefix, timeout: timeout)
        }
    }

    public let configuration: Configuration
    public var name: String { "PostgreSQL at \(configuration.host):\(configuration.port)/\(configuration.database)" }
    /// The connection pool; it must run (as a service next to the HTTP server) for queries to be answered.
    public let client: PostgresClient
    private let sql: String

    public init(configuration: Configuration, logger: Logger = Logger(label: "soundscape.tiles.postgis")) throws {
        guard configuration.prefix.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            throw TileSourceError("table prefix \(configuration.prefix): letters, digits and _ only")
        }
        self.configuration = configuration
        var pg = PostgresClient.Configuration(host: configuration.host, port: configuration.port,
                                              username: configuration.user, password: configuration.password,
                                              database: configuration.database, tls: .disable)
        pg.options.connectTimeout = configuration.timeout
        client = PostgresClient(configuration: pg, backgroundLogger: logger)
        let p = configuration.prefix
        func select(_ table: String, _ kind: Int) -> String {
            """
            SELECT osm_id AS id, \(kind)::int8 AS kind, hstore_to_json(tags)::text AS tags, ST_AsGeoJSON(way, 7) AS geometry
            FROM \(p)_\(table) WHERE way && ST_MakeEnvelope($1, $2, $3, $4, 4326)
            """
        }
        // The tile comes back as one row, a JSON array of [osm_id, kind, tags, geometry]: PostgresNIO 1.33 can stop
        // the process when a server closes the connection while many rows are streaming (a precondition in its row
        // state machine, met when PostgreSQL was restarted mid-query), and one row is also less work per tile.
        let union = [select("point", 0), select("line", 1), select("polygon", 2)].joined(separator: "\nUNION ALL\n")
        sql = "SELECT coalesce(json_agg(json_build_array(t.id, t.kind, t.tags, t.geometry))::text, '[]') FROM (\n\(union)\n) AS t"
    }

    public func geoJSON(for tile: Tile) async throws -> Data {
        let b = tile.bounds
        var binds = PostgresBindings()
        binds.append(b.minLongitude); binds.append(b.minLatitude); binds.append(b.maxLongitude); binds.append(b.maxLatitude)
        let query = PostgresQuery(unsafeSQL: sql, binds: binds)
        let timeout = configuration.timeout
        let text: String
        do {
            text = try await Self.within(timeout) {
                var out = "[]"
                for try await row in try await self.client.query(query).decode(String.self) { out = row }
                return out
            }
        } catch let error as TileSourceError {
            throw TileSourceError("\(name): \(error.description)")
        } catch let error as CancellationError {
            throw error
        } catch {
            throw TileSourceError("\(name): \(Self.explain(error))")
        }
        let rows = try Self.rows(fromJSON: text, source: name)
        var seen = Set<Int64>()
        var elements: [TileElement] = []
        elements.reserveCapacity(rows.count)
        for (osmID, kind, tagsJSON, geometryJSON) in rows {
            let id: OSMElementID = kind == 0 ? OSMElementID(.node, osmID)
                : osmID < 0 ? OSMElementID(.relation, -osmID) : OSMElementID(.way, osmID)
            guard seen.insert(id.encoded).inserted,
                  let geometry = TileGeoJSON.geometry(geoJSON: Data(geometryJSON.utf8)) else { continue }
            var tags: [String: String] = [:]
            if let tagsJSON, let object = try? JSONSerialization.jsonObject(with: Data(tagsJSON.utf8)) as? [String: Any] {
                for (k, v) in object { if let v = v as? String { tags[k] = v } }
            }
            elements.append(TileElement(id: id, tags: tags, geometry: geometry))
        }
        return TileGeoJSON.render(elements: elements)
    }

    /// The rows of the tile query's one JSON answer: `[[osm_id, kind, tags as JSON text or null, GeoJSON text], …]`.
    static func rows(fromJSON text: String, source: String) throws -> [(Int64, Int64, String?, String)] {
        guard let array = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any] else {
            throw TileSourceError("\(source): the tile query's answer is not a JSON array: \(text.prefix(80))")
        }
        var rows: [(Int64, Int64, String?, String)] = []
        rows.reserveCapacity(array.count)
        for item in array {
            guard let fields = item as? [Any], fields.count == 4,
                  let id = (fields[0] as? NSNumber)?.int64Value, let kind = (fields[1] as? NSNumber)?.int64Value,
                  let geometry = fields[3] as? String else {
                throw TileSourceError("\(source): a row of the tile query is not [id, kind, tags, geometry]: \(item)")
            }
            rows.append((id, kind, fields[2] as? String, geometry))
        }
        return rows
    }

    /// The work's result, or a "no answer" error after `timeout` even when the work does not stop on cancellation
    /// (a query on a connection that died mid-request), so no request waits longer than that.
    static func within<T: Sendable>(_ timeout: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let once = ResumeOnce<T>()
        return try await withCheckedThrowingContinuation { continuation in
            once.continuation.withLock { $0 = continuation }
            let task = Task {
                let result: Result<T, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                once.continuation.withLock { $0.take() }?.resume(with: result)
            }
            Task {
                try? await Task.sleep(for: timeout)
                task.cancel()
                once.continuation.withLock { $0.take() }?.resume(throwing: TileSourceError("no answer within \(timeout)"))
            }
        }
    }

    /// PostgresNIO hides a server's message from `description`; the details say what went wrong.
    static func explain(_ error: any Error) -> String {
        if let pg = error as? PSQLError {
            var parts = ["\(pg.code)"]
            if let message = pg.serverInfo?[.message] { parts.append(message) }
            if let underlying = pg.underlying { parts.append("\(underlying)") }
            return parts.joined(separator: ": ")
        }
        return "\(error)"
    }
}

/// A continuation resumed by whichever comes first.
final class ResumeOnce<T: Sendable>: Sendable {
    let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)
}
