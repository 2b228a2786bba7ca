import Foundation
import MapData
import Speech

extension KindTable {
    /// The kinds' spoken names as phrases of the grammar's `$kinds` rule (`singularOnly`: of `$kinds_singular`, which
    /// `<place>` uses: half the words in the six copies of it the decoder searches); the slot gets the kind's first name.
    public func phrases(singularOnly: Bool = false) -> [SlotPhrase] {
        kinds.flatMap { kind in
            (singularOnly ? kind.singularNames : kind.names).map { SlotPhrase(words: SlotPhrase.spokenWords($0), value: kind.name) }
        }
    }
}

/// English names of places anywhere in the map, for the grammar's `$landmarks` rule ("take me to the market square",
/// "the cathedral" when far away): the most prominent first, at most `limit`, each at most six words; a leading "the"
/// is left to the grammar.
public struct LandmarkNames: SlotSource {
    public let source = "landmarks"
    public let map: SpatialDataView
    public let limit: Int

    public init(map: SpatialDataView, limit: Int = 60) {
        self.map = map
        self.limit = limit
    }

    public func revision() async -> Int { 0 }
    public func phrases() async -> [SlotPhrase] { (try? Self.phrases(map: map, limit: limit)) ?? [] }

    public static func phrases(map: SpatialDataView, limit: Int = 60) throws -> [SlotPhrase] {
        var seen = Set<[String]>()
        let named = try map.localizedNames(language: "en", limit: 5000)
            .filter { $0.feature.roadClass == .none }
            .sorted { NearbyPlaceNames.prominence($0.feature) > NearbyPlaceNames.prominence($1.feature) }
        var out: [SlotPhrase] = []
        for (name, _) in named {
            var words = SlotPhrase.spokenWords(name)
            if words.first == "the" { words.removeFirst() }
            guard !words.isEmpty, words.count <= 6, seen.insert(words).inserted else { continue }
            out.append(SlotPhrase(words: words, value: name))
            if out.count >= limit { break }
        }
        return out
    }
}
