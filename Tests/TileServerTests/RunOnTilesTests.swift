import Foundation
import Geo
import MapData
import MapTestSupport
import ProcessTestSupport
import Testing
import TileServer

/// `soundscape run` with no offline map at all and a tile service configured: it says once that it uses the
/// service's tiles, fetches them, and answers "where am i" with the street the offline map would name.
@Suite("Run on tiles alone")
struct RunOnTilesTests {
    @Test("run with an absent offline map walks on tiles alone and answers 'where am i' with the right street")
    func runOnTiles() async throws {
        let helsinki = try await HelsinkiImport.get()
        // The oracle: the street the imported map names at this place (the run below never sees that database).
        let here = Coordinate(latitude: 60.170430, longitude: 24.942656)
        let offline = try SpatialDataView(path: helsinki.databasePath)
        let expected = try #require(try offline.nearestRoad(to: here)?.road.name)
        let dir = try TestData.temporaryDirectory("run-on-tiles")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try SQLiteTileSource(path: helsinki.databasePath)
        try await withTileServer(source) { base in
            let config = dir.appendingPathComponent("config.toml")
            try "tile_service = \"\(base.absoluteString)\"\n".write(to: config, atomically: true, encoding: .utf8)
            let map = dir.appendingPathComponent("absent/map.sqlite").path
            let runtime = dir.appendingPathComponent("runtime")
            try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
            chmod(runtime.path, 0o700)
            let child = try ChildProcess([Harness.soundscape, "run", "--db", map, "--config", config.path,
                                          "--at", "\(here.latitude),\(here.longitude)", "--quiet", "--no-voice", "--no-compass"],
                                         environment: ["SOUNDSCAPE_USER_DB": dir.appendingPathComponent("user.sqlite").path,
                                                       "XDG_RUNTIME_DIR": runtime.path])
            defer { child.signal(SIGKILL) }
            let notice = "Outside the offline map; using map tiles from 127.0.0.1:\(base.port!)"
            let noticed = await child.waitFor(notice, timeout: 60)
            #expect(noticed, "stdout: \(child.stdout.suffix(2000)) stderr: \(child.stderr.suffix(2000))")
            // Typed until the answer names the street (the first fix waits for its tiles; a command may come first).
            var answered = false
            for _ in 0..<20 where !answered {
                let before = child.stdout.count
                child.type("where am i")
                answered = await child.waitForOutput(timeout: 3) { String($0.dropFirst(before)).contains(expected) }
            }
            #expect(answered, "no answer naming \(expected); stdout: \(child.stdout.suffix(2000)) stderr: \(child.stderr.suffix(2000))")
            #expect(child.stdout.components(separatedBy: "Outside the offline map").count == 2, "the notice is said once")
            // The tiles are in the map database the run created, tagged as tile data.
            let stats = try MapStore.statistics(path: map)
            #expect(stats.cachedTiles > 0 && stats.features > 100)
        }
    }
}
