import Foundation
import Geo
import Guidance
import Speech
import Testing

/// A walker's day (issue 31) through the real executable, map and user database on disk, in two sittings of
/// `soundscape run` sharing one user database. First a simulated walk: at its start "nearest pharmacy" and "take me to
/// number one", the walk to that pharmacy's door, and there "mark this place". Then a simulated walk back towards the
/// start, and "take me to ⟨the marker's name⟩" starts guidance to the marker. Typed commands, which go through the
/// grammars as spoken ones do.
@Suite("A walker's day", .serialized)
struct WalkersDayTests {
    /// On Pohjoisesplanadi by Kauppatori (where FindPlacesTests stand), facing east.
    static let start = Coordinate(latitude: FindPlacesTests.at.latitude, longitude: FindPlacesTests.at.longitude)

    @Test func toThePharmacyFoundByKindMarkItAndBackToItByTheMarkersName() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let userDB = dir.appendingPathComponent("user.sqlite").path
        // Settings and data of its own; replies printed, not spoken; typed commands only.
        let environment = ["XDG_DATA_HOME": dir.path, "XDG_CONFIG_HOME": dir.path]
        let common = ["--db", Soundscape.helsinkiDatabase, "--user-db", userDB, "--quiet", "--no-voice", "--verbose"]
        // The simulated walks: gpsd is never asked (nothing listens on port 1), and 60× real time.
        let walking = ["--gpsd", "127.0.0.1:1", "--speed", "60"]

        // The nearest pharmacy as the map file has it (osmium and spherical geometry, none of the program's code).
        let pharmacy = try #require(try FindPlacesTests.pharmacies(from: (Self.start.latitude, Self.start.longitude)).first)
        let door = Coordinate(latitude: pharmacy.target.0, longitude: pharmacy.target.1)

        // 1. At the start (standing there for 6 s of real time), the nearest pharmacy and guidance to it; the walk then
        // goes to its door. Were the answer late under load, the walk towards that pharmacy keeps it the nearest.
        let there = dir.appendingPathComponent("there.gpx")
        try SimulatedWalk.gpx(from: Self.start, to: door, hold: 360).write(to: there, atomically: true, encoding: .utf8)
        let toPharmacy = try RunningAssistant(["run", "--walk", there.path] + walking + common, environment: environment, logs: true)
        let list = toPharmacy.ask("nearest pharmacy", every: 60, timeout: 60) { $0.contains { $0.hasPrefix("1. ") } }
        let first = try #require(list.first { $0.hasPrefix("1. ") }, "no list of pharmacies: \(toPharmacy.output)")
        #expect(first.hasPrefix("1. \(pharmacy.name), "), "\(first) — the map's nearest pharmacy is \(pharmacy.name)")
        let going = toPharmacy.ask("take me to number one", every: 60, timeout: 60) { $0.contains { $0.hasPrefix("Walking route to ") } }
        #expect(going.contains { $0.hasPrefix("Walking route to \(pharmacy.name)") }, "no guidance to \(pharmacy.name): \(toPharmacy.output)")

        // 2. At the door, where guidance said so: "mark this place".
        #expect(toPharmacy.waitFor("the simulated walk ended", timeout: 60), "the walk did not end: \(toPharmacy.output)")
        #expect(toPharmacy.output.contains("You have arrived at \(pharmacy.name)"), "no arrival: \(toPharmacy.output)")
        let saved = toPharmacy.ask("mark this place", every: 60, timeout: 30) { $0.contains { $0.hasPrefix("Marker created, ") } }
        let markers = try UserStore(path: userDB).markers.all()
        let marker = try #require(markers.first, "no marker saved: \(toPharmacy.output)")
        #expect(markers.count == 1)
        #expect(marker.coordinate.distance(to: door) < 15, "the marker is not at \(pharmacy.name)'s door: \(marker.coordinate)")
        #expect(saved.contains { $0.hasPrefix("Marker created, ") && $0.contains(marker.name) }, "no read-back of \(marker.name): \(saved)")
        #expect(toPharmacy.quit() == 0)

        // 3. Back towards the start, up to 300 m; then guidance to the marker by its name.
        let away = min(300, door.distance(to: Self.start) * 0.8)
        let back = door.destination(bearing: door.bearing(to: Self.start), distance: away)
        let home = dir.appendingPathComponent("back.gpx")
        try SimulatedWalk.gpx(from: door, to: back).write(to: home, atomically: true, encoding: .utf8)
        let walkedAway = try RunningAssistant(["run", "--walk", home.path] + walking + common, environment: environment, logs: true)
        #expect(walkedAway.waitFor("the simulated walk ended", timeout: 60), "the walk did not end: \(walkedAway.output)")
        let words = SlotPhrase.spokenWords(marker.name).joined(separator: " ")
        let summary = "Walking route to \(marker.name), "
        let guided = walkedAway.ask("take me to \(words)", every: 60, timeout: 30) { $0.contains { $0.hasPrefix("Walking route to ") } }
        let line = try #require(guided.first { $0.hasPrefix(summary) }, "no guidance to \(marker.name): \(walkedAway.output)")
        // The route starts where the walk ended, `away` metres from the marker as the crow flies.
        let metres = line.dropFirst(summary.count).prefix { $0.isNumber }
        #expect(Double(metres).map { $0 >= away * 0.8 && $0 <= away * 3 + 50 } == true, "\(line): the walk ended \(Int(away)) m away")
        #expect(walkedAway.quit() == 0)
    }
}
