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
}
