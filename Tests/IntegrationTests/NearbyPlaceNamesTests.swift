import App
import Foundation
import Geo
import MapData
import Speech
import Testing

/// The place names spliced into the grammar: in a city centre the nearest names are all shops, so the landmarks a
/// walker steers by must be there too.
@Suite("Place names the recognizer knows")
struct NearbyPlaceNamesTests {
    @Test func onAleksanterinkatuTheLandmarksWithinAKilometreAreKnownBesideTheNearestShops() throws {
        let map = try SpatialDataView(path: Soundscape.helsinkiDatabase)
        let here = Coordinate(latitude: 60.16887, longitude: 24.94400)
        let phrases = try NearbyPlaceNames.phrases(map: map, near: here)
        let names = Set(phrases.map(\.value))
        #expect(phrases.count <= 150)
        for landmark in ["Kauppatori", "Kiasma", "Havis Amanda", "Ateneum", "Stockmann"] {
            #expect(names.contains(landmark), "\(landmark) is not among \(names.sorted())")
        }
        // The nearest names are still there (the shop on the corner).
        let nearest = try map.features(near: here, radius: 60).compactMap(\.feature.name).first
        #expect(nearest.map(names.contains) == true, "\(nearest ?? "-")")
    }

    /// The issue's own examples, spoken by espeak-ng and decoded by `listen` with the real map's names spliced in,
    /// on Aleksanterinkatu: Stockmann is next door, the market square half a kilometre away.
    @Test(arguments: [("set beacon on Stockmann", "set_beacon", "Stockmann"), ("take me to Kauppatori", "take_me_to", "Kauppatori"),
                      ("set beacon on Kauppatori", "set_beacon", "Kauppatori")])
    func aPlaceNameSpokenIsUnderstood(_ phrase: String, _ intent: String, _ place: String) throws {
        try TestServices.require()
        let wav = FileManager.default.temporaryDirectory.appendingPathComponent("place-\(getpid())-\(intent).wav").path
        defer { try? FileManager.default.removeItem(atPath: wav) }
        let espeak = Process()
        espeak.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        espeak.arguments = ["espeak-ng", "-w", wav, phrase]
        try espeak.run()
        espeak.waitUntilExit()
        let result = try Soundscape.run(["listen", "--file", wav, "--at", "60.16887,24.94400", "--db", Soundscape.helsinkiDatabase, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        #expect(object["intent"] as? String == intent, "\(result.stdout)")
        #expect((object["slots"] as? [String: String])?["place"] == place, "\(result.stdout)")
    }
}
