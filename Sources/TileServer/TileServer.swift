import Foundation
import Geo
import Hummingbird
import Logging
import MapData
import NIOCore
import PostgresNIO
import ServiceLifecycle
import UnixSignals

/// `soundscape tiles serve`: answers `GET /16/x/y.json` with the tile in the Soundscape GeoJSON format, from one
/// `TileSource`. It keeps nothing between requests but its database connections, so any number of servers behind
/// an HTTP cache can share one database; an ETag (a hash of the body) and Cache-Control let that cache revalidate.
/// A bad request or a failing database answers that request with an error naming the tile and the server; the
/// server goes on serving.
public struct TileServer: Sendable {
    public let source: any TileSource
    public let host: String
    public let port: Int
    /// How long clients and caches may keep a tile (Cache-Control max-age).
    public let maxAge: Int
    let logger: Logger

    public init(source: any TileSource, host: String = "127.0.0.1", port: Int, maxAge: Int = 86_400,
                logger: Logger = Logger(label: "soundscape.tiles.server")) {
        self.source = source
        self.host = host
        self.port = port
        self.maxAge = maxAge
        self.logger = logger
    }

    /// Serves until the task is cancelled or one of `signals` arrives; `onListening` gets the bound port (useful
    /// with port 0).
    public func run(signals: [UnixSignal] = [], onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let router = Router()
        let source = self.source
        let maxAge = self.maxAge
        let logger = self.logger
        router.get("16/:x/:y") { request, context -> Response in
            let x = context.parameters.get("x") ?? ""
            let y = context.parameters.get("y") ?? ""
            return await Self.answer(x: x, y: y, ifNoneMatch: request.headers[.ifNoneMatch], source: source,
                                     maxAge: maxAge, logger: logger)
        }
        let app = Application(router: router,
                              configuration: .init(address: .hostname(host, port: port), serverName: "soundscape-tiles"),
                              onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
                              logger: logger)
        var services: [any Service] = [app]
        if let postgis = source as? PostGISTileSource { services.insert(postgis.client, at: 0) }
        let group = ServiceGroup(configuration: .init(services: services.map { .init(service: $0) },
                                                      gracefulShutdownSignals: signals, logger: logger))
        try await group.run()
    }

    /// The answer to one request, whatever the source does.
    static func answer(x: String, y: String, ifNoneMatch: String?, source: any TileSource, maxAge: Int,
                       logger: Logger) async -> Response {
        let shown = "tile 16/\(x)/\(y)"
        guard y.hasSuffix(".json") else {
            return text(.notFound, "\(shown): tiles are named 16/x/y.json")
        }
        let yNumber = String(y.dropLast(5))
        guard let xi = Int(x), let yi = Int(yNumber) else {
            return text(.badRequest, "\(shown): x and y must be whole numbers")
        }
        let tile = Tile(x: xi, y: yi, zoom: Tile.soundscapeZoom)
        guard tile.isValid else {
            return text(.badRequest, "tile 16/\(xi)/\(yi): x and y must be in 0…\(tile.tilesPerSide - 1) at zoom 16")
        }
        let body: Data
        do {
            body = try await source.geoJSON(for: tile)
        } catch is CancellationError {
            // The server is stopping (or the client went away): not the map's fault, so not logged as an error.
            logger.debug("tile 16/\(xi)/\(yi): cancelled")
            return text(.serviceUnavailable, "tile 16/\(xi)/\(yi): the server is stopping")
        } catch {
            logger.error("tile 16/\(xi)/\(yi): \(error)")
            return text(.serviceUnavailable, "tile 16/\(xi)/\(yi): \(error)")
        }
        let etag = "\"\(String(fnv1a(body), radix: 16))\""
        var headers: HTTPFields = [.eTag: etag, .cacheControl: "public, max-age=\(maxAge)"]
        if let ifNoneMatch, ifNoneMatch.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
    }

    /// FNV-1a, 64 bits: a cheap, stable hash for the ETag (not a security measure).
    static func fnv1a(_ data: Data) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
