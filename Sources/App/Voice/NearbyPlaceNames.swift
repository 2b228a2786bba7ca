import Foundation
import Geo
import MapData
import Speech
import Synchronization

/// Names of places near the user, for the `$places` slot of the grammar ("set beacon on Stockmann").
/// The position is updated as the user moves; the names are looked up again after 100 m. The nearest
/// 120 names within 1 km are used: in central Helsinki 300 names cost 3 points of accuracy (bench) and
/// slowed decoding by half.
public final class NearbyPlaceNames: SlotSource {
    public let source = "places"
    public let map: SpatialDataView
    public let radius: Double
    public let limit: Int
    private let state = Mutex<(position: Coordinate?, lookedUpAt: Coordinate?, revision: Int)>((nil, nil, 0))

    public init(map: SpatialDataView, radius: Double = 1000, limit: Int = 120) {
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

    /// Distinct names within `radius`, nearest first.
    public static func phrases(map: SpatialDataView, near here: Coordinate, radius: Double = 1000, limit: Int = 120) throws -> [SlotPhrase] {
        var seen = Set<[String]>()
        var out: [SlotPhrase] = []
        for nearby in try map.features(near: here, radius: radius) {
            guard let name = nearby.feature.name?.trimmingCharacters(in: .whitespaces), !name.isEmpty else { continue }
            let phrase = SlotPhrase(name: name)
            guard !phrase.words.isEmpty, phrase.words.count <= 6, seen.insert(phrase.words).inserted else { continue }
            out.append(phrase)
            if out.count >= limit { break }
        }
        return out
    }
}
