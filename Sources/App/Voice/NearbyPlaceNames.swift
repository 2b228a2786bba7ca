import Foundation
import Geo
import MapData
import Speech
import Synchronization

/// Names of places near the user, for the `$places` slot of the grammar ("set beacon on Stockmann").
/// The position is updated as the user moves; the names are looked up again after 100 m. At most 150 names
/// within 1 km are used — the landmarks, then tram and bus stops, then the nearest: in central Helsinki 300 names
/// cost 3 points of accuracy (bench) and slowed decoding by half.
public final class NearbyPlaceNames: SlotSource {
    public let source = "places"
    public let map: SpatialDataView
    public let radius: Double
    public let limit: Int
    private let state = Mutex<(position: Coordinate?, lookedUpAt: Coordinate?, revision: Int)>((nil, nil, 0))

    public init(map: SpatialDataView, radius: Double = 1000, limit: Int = 150) {
        self.map = map
        self.radius = radius
        self.limit = limit
    }

    /// Tells where the user is now.
    public func move(to position: Coordinate) {
        state.withLock { s in
            s.position = position
            if let last = s.lookedUpAt, last.distance(to: position) < 100 { return }
            s.lookedUpAt = position
            s.revision += 1
        }
    }

    public func revision() async -> Int { state.withLock { $0.revision } }

    public func phrases() async -> [SlotPhrase] {
        guard let here = state.withLock({ $0.lookedUpAt }) else { return [] }
        return (try? Self.phrases(map: map, near: here, radius: radius, limit: limit)) ?? []
    }

    /// Distinct names within `radius`: landmarks first (up to `landmarks`, the most prominent for their distance),
    /// then stops of trams and buses (up to `stops`, nearest first; they are named after the place they serve), then
    /// the nearest of the rest. In a city centre the nearest 120 names are all shops within 300 m, so a landmark the
    /// user walks towards ("set beacon on Kiasma", "take me to Kauppatori") would otherwise never be understood.
    public static func phrases(map: SpatialDataView, near here: Coordinate, radius: Double = 1000, limit: Int = 150,
                               landmarks: Int = 80, stops: Int = 15) throws -> [SlotPhrase] {
        var seen = Set<[String]>()
        var candidates: [(phrase: SlotPhrase, score: Double)] = []
        var stopPhrases: [SlotPhrase] = [], rest: [SlotPhrase] = []
        for nearby in try map.features(near: here, radius: radius) {
            guard let name = nearby.feature.name?.trimmingCharacters(in: .whitespaces), !name.isEmpty else { continue }
            let phrase = SlotPhrase(name: name)
            guard !phrase.words.isEmpty, phrase.words.count <= 6, !seen.contains(phrase.words) else { continue }
            let weight = prominence(nearby.feature)
            if weight > 0 {
                candidates.append((phrase, max(nearby.distance, 20) / weight))
            } else if isStop(nearby.feature) {
                guard stopPhrases.count < stops else { continue }
                stopPhrases.append(phrase)
            } else {
                guard rest.count < limit else { continue }
                rest.append(phrase)
            }
            seen.insert(phrase.words)
        }
        let chosen = candidates.sorted { $0.score < $1.score }.prefix(landmarks).map(\.phrase)
        return Array((chosen + stopPhrases + rest).prefix(limit))
    }

    /// How much a place is something people steer by (0: not a landmark). An encyclopedia entry (OSM `wikidata` /
    /// `wikipedia`) counts most on a landmark, a square or a sight (an office with one counts little); then being a
    /// square, station, museum, church or sight; then being an area (a square or park drawn as a polygon rather than
    /// an alley; a landmark building rather than a statue). A landmark twice as prominent is taken from twice as far.
    static func prominence(_ feature: MapFeature) -> Double {
        let sight = feature.tags["tourism"] != nil || feature.tags["historic"] != nil || feature.tags["place"] == "square"
        var weight = 0.0
        if feature.tags["wikidata"] != nil || feature.tags["wikipedia"] != nil {
            weight += feature.superCategory == .landmark || sight ? 2 : 0.5
        }
        if sight || ["train_station", "place_of_worship", "museum"].contains(feature.category ?? "") { weight += 1 }
        let isArea = feature.geometry.kind == .polygon || feature.geometry.kind == .multiPolygon
        if ["park", "pedestrian_street"].contains(feature.category ?? "") && isArea { weight += 2 } else if weight > 0 && isArea { weight += 1 }
        return weight
    }

    static func isStop(_ feature: MapFeature) -> Bool {
        ["tram_stop", "bus_stop", "ferry_terminal"].contains(feature.category ?? "")
    }
}
