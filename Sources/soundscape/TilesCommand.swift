import App
import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import TileServer

struct TilesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiles",
        abstract: "Serve map tiles to other Soundscape users.",
        subcommands: [TilesServeCommand.self])
}

struct TilesServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Answer GET /16/x/y.json with z16 tiles in the Soundscape GeoJSON format.",
        discussion: """
            From the imported SQLite map (a small self-hosted area; the default), or with --postgres from PostgreSQL \
            with PostGIS loaded by osm2pgsql (a country or the planet):
              osm2pgsql --create --latlong --hstore-all --multi-geometry -d osm region.osm.pbf
              soundscape tiles serve --port 8080 --postgres postgres://osm@127.0.0.1/osm
            The server keeps no state: run as many as needed behind an HTTP cache, all on one database. \
            Point a client at it with `soundscape config set tile_service http://HOST:PORT`. \
            Map data © OpenStreetMap contributors.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: "TCP port to listen on (0: any free port, printed at start).")
    var port: Int

    @Option(help: "Address to listen on (0.0.0.0 for every interface).")
    var host = "127.0.0.1"

    @Option(help: "Map database (default: the imported map).")
    var db: String?

    @Option(help: "PostgreSQL with PostGIS loaded by osm2pgsql, as postgres://user[:password]@host[:port]/database.")
    var postgres: String?

    @Option(help: "With --postgres: osm2pgsql's table prefix.")
    var prefix = "planet_osm"

    func run() async throws {
        global.bootstrapLogging()
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port): 0…65535") }
        let source: any TileSource
        do {
            if let postgres {
                source = try PostGISTileSource(configuration: .init(url: postgres, prefix: prefix))
            } else {
                source = try SQLiteTileSource(path: db ?? AppEnvironment.read().mapDatabase)
            }
        } catch {
            throw ValidationError("\(error)")
        }
        let server = TileServer(source: source, host: host, port: port)
        let name = source.name
        let host = self.host
        try await server.run(signals: [.sigterm, .sigint]) { bound in
            FileHandle.standardOutput.write(Data("Serving tiles from \(name) at http://\(host):\(bound)/16/x/y.json\n".utf8))
        }
    }
}
