import Foundation
import GRDB
import ProcessTestSupport
import Testing

/// Markers and routes made by voice (typed here, through the same grammar) survive `kill -9` once their read-back is
/// printed, and a route being made but not saved leaves nothing behind.
@Suite("Markers and routes survive kill -9", .serialized)
struct MarkerKillTests {
    @Test func whatWasReadBackIsThereAfterKillNineAndAHalfMadeRouteIsNot() async throws {
        try Harness.require()
        let db = try await HelsinkiMap.shared.database()
        let dir = try Harness.temporaryDirectory("rel-kill-marker-route")
        defer { try? FileManager.default.removeItem(at: dir) }
        let userDB = dir.appendingPathComponent("user.sqlite").path
        let arguments = ["--db", db, "--at", TestPlace.at, "--heading", TestPlace.heading, "--quiet", "--no-voice", "--user-db", userDB]

        let run = try SoundscapeRun.start(arguments, in: dir)
        #expect(await run.child.waitFor("Fixed location", timeout: 30), "\(run.child.stdout)\(run.child.stderr)")
        #expect(await run.ask("save marker as home", expecting: "Marker created, home"))
        #expect(await run.ask("add a note ring the bell", expecting: "Note added to marker home: ring the bell"))
        #expect(await run.ask("new route way home", expecting: "New route way home"))
        #expect(await run.ask("add this place to the route", expecting: "added to route way home as waypoint 1"))
        #expect(await run.ask("add marker home to the route", expecting: "home added to route way home as waypoint 2"))
        #expect(await run.ask("save route", expecting: "Route way home saved with 2 waypoints"))
        #expect(await run.ask("new route half done", expecting: "New route half done"))
        #expect(await run.ask("add this place to the route", expecting: "added to route half done as waypoint 1"))
        run.child.signal(SIGKILL)
        let end = await run.child.wait(timeout: 10)
        #expect(end.signal == SIGKILL, "\(end)")

        let check = try await runToEnd(["sqlite3", userDB, "PRAGMA integrity_check;"]).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(check == "ok", "\(check)")
        let (notes, routes, waypoints) = try await DatabaseQueue(path: userDB).read { db in
            (try String.fetchAll(db, sql: "SELECT annotation FROM markers WHERE name = 'home' AND is_temp = 0"),
             try String.fetchAll(db, sql: "SELECT name FROM routes"),
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM route_waypoints") ?? 0)
        }
        #expect(notes == ["ring the bell"])
        #expect(routes == ["way home"], "only the saved route: \(routes)")
        #expect(waypoints == 2)

        // The program takes them up again, by name.
        let again = try SoundscapeRun.start(arguments, in: dir)
        #expect(await again.child.waitFor("Fixed location", timeout: 30), "\(again.child.stdout)\(again.child.stderr)")
        #expect(await again.ask("list markers", expecting: "1 marker. home"), "\(again.child.stdout)")
        #expect(await again.ask("start route half done", expecting: "No route named half done"), "\(again.child.stdout)")
        #expect(await again.ask("start route way home", expecting: " of 2"), "\(again.child.stdout)")
        await again.quitsCleanly(timeout: 30)
        #expect(!again.child.stdout.contains("Problem:"), "\(again.child.stdout)")
    }
}
