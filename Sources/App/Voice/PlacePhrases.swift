import Foundation
import MapData
import Speech

extension KindTable {
    /// The kinds' spoken names as phrases of the grammar's `$kinds` rule (`singularOnly`: each kind's first name, for
    /// `$kinds_singular`, which `<place>` uses: fewer words in the six copies of it the decoder searches); the slot gets
    /// the kind's first name.
    public func phrases(singularOnly: Bool = false) -> [SlotPhrase] {
        kinds.flatMap { kind in
            (singularOnly ? [kind.name] : kind.names).map { SlotPhrase(words: SlotPhrase.spokenWords($0), value: kind.name) }
        }
    }
}

/// Names of the map's places that have an English name (landmarks, mostly), wherever they are, for the grammar's
/// `$landmarks` rule ("take me to the market square", "take me to kauppatori" from far away): the English name and the
/// name on the ground, the most prominent places first, at most `limit` phrases of at most six words; a leading "the"
/// is left to the grammar.
public struct LandmarkNames: SlotSource {
    public let source = "landmarks"
    public let map: SpatialDataView
    public let limit: Int

    public init(map: SpatialDataView, limit: Int = 40) {
        self.map = map
        self.limit = limit
    }

    public func revision() async -> Int { 0 }
    public func phrases() async -> [SlotPhrase] { (try? Self.phrases(map: map, limit: limit)) ?? [] }

    public static func phrases(map: SpatialDataView, limit: Int = 40) throws -> [SlotPhrase] {
        var seen = Set<[String]>()
        let named = try map.localizedNames(language: "en", limit: 5000)
            // Streets are named by the names nearby; a square drawn as a pedestrian street is a landmark.
            .filter { $0.feature.roadClass == .none || NearbyPlaceNames.prominence($0.feature) > 0 }
            .sorted { NearbyPlaceNames.prominence($0.feature) > NearbyPlaceNames.prominence($1.feature) }
        var out: [SlotPhrase] = []
        // The English name and the name on the ground ("Market Square", "Kauppatori").
        for (english, feature) in named {
            for name in [english, feature.name].compactMap({ $0 }) {
                var words = SlotPhrase.spokenWords(name)
                if words.first == "the" { words.removeFirst() }
                guard !words.isEmpty, words.count <= 6, seen.insert(words).inserted else { continue }
                out.append(SlotPhrase(words: words, value: name))
                if out.count >= limit { return out }
            }
        }
        return out
    }
}
