import Foundation
import Geo
import MapData

/// A place found for the walker, and where to aim for it: the nearest usable entrance when the map has the
/// building's entrances, else the place's nearest point.
public struct FoundPlace: Sendable, Hashable {
    /// The place's spoken name ("Yliopiston Apteekki").
    public var name: String
    public var featureKey: String
    /// Where the beacon and the route go.
    public var coordinate: Coordinate
    /// Metres from the user to `coordinate`.
    public var distance: Double
    /// The street of the entrance aimed at, when an entrance is used and its street is known.
    public var entranceStreet: String?
    /// True when `coordinate` is an entrance of the building.
    public var viaEntrance: Bool
    /// The outline, for places that are areas (nil when aiming at an entrance: arrival is at the door).
    public var area: [Coordinate]?

    public init(name: String, featureKey: String, coordinate: Coordinate, distance: Double, entranceStreet: String? = nil,
                viaEntrance: Bool = false, area: [Coordinate]? = nil) {
        self.name = name
        self.featureKey = featureKey
        self.coordinate = coordinate
        self.distance = distance
        self.entranceStreet = entranceStreet
        self.viaEntrance = viaEntrance
        self.area = area
    }

    /// "Stockmann, entrance on Aleksanterinkatu" when aiming at an entrance, else the name.
    public func spokenName(_ language: GuidanceLanguage) -> String {
        guard viaEntrance else { return name }
        if let entranceStreet { return language("place.entrance_on", name, entranceStreet) }
        return language("place.entrance", name)
    }
}

/// What "search …" or a kind found.
public enum PlaceSearchResult: Sendable {
    /// The nearest places of a kind, nearest first.
    case kind(PlaceKind, [FoundPlace])
    /// Places whose names match, nearest first; `total` counts them all, `places` is the first few.
    case names(query: String, total: Int, places: [FoundPlace])
    /// Nothing: the closest kinds and names, to offer instead.
    case nothing(query: String, kinds: [PlaceKind], names: [String])
}

/// Finds places by kind and by name: the seam where a free-text transcript (typed, or a second recognizer's) is
/// turned into ranked places of the map.
public enum PlaceFinder {
    /// Where to aim for a feature from `here`: its nearest usable entrance, else its nearest point.
    public static func aim(_ feature: MapFeature, from here: Coordinate, map: SpatialDataView, language: String = "en") -> FoundPlace {
        let name = feature.spokenName(language: language)
        if let entrance = (try? map.entrances(of: feature)).flatMap({ BuildingEntrance.nearestUsable($0, from: here) }) {
            let street = entrance.tags["addr:street"]
                ?? (try? map.roads(near: entrance.coordinate, radius: 40))?.first { $0.feature.roadClass == .road && $0.feature.name != nil }?.feature.name
            return FoundPlace(name: name, featureKey: feature.key, coordinate: entrance.coordinate,
                              distance: here.distance(to: entrance.coordinate), entranceStreet: street, viaEntrance: true)
        }
        let closest = GeometryMath.closest(feature.geometry, to: here)
        var area: [Coordinate]?
        switch feature.geometry {
        case .polygon(let rings): area = rings.first
        case .multiPolygon(let polys): area = polys.first?.first
        default: break
        }
        return FoundPlace(name: name, featureKey: feature.key, coordinate: closest?.point ?? feature.centroid,
                          distance: closest?.distance ?? here.distance(to: feature.centroid), area: area)
    }

    /// The nearest places of a kind, nearest first (by the distance to where they are aimed at).
    public static func nearest(_ kind: PlaceKind, from here: Coordinate, map: SpatialDataView, language: String = "en",
                               limit: Int = 5) throws -> [FoundPlace] {
        try map.nearest(kind, to: here, limit: limit).map { aim($0.feature, from: here, map: map, language: language) }
            .sorted { $0.distance < $1.distance }
    }

    /// Free text ("pharmacy", "the cathedral", "kiasma", "havis amanda") to places: a kind's nearest, or the
    /// places whose names (any name tag, fuzzily) match best, nearest first; or the closest kinds and names.
    public static func search(_ text: String, from here: Coordinate, map: SpatialDataView, kinds: KindTable,
                              language: String = "en", limit: Int = 5) throws -> PlaceSearchResult {
        let query = KindTable.stripArticle(NameNormalizer.normalize(text))
        let matches = query.isEmpty ? [] : try map.lookup(spokenName: query, near: here, limit: 40)
        let exact = matches.first.map { $0.score >= 0.97 } ?? false
        if !exact, let kind = kinds.kind(named: text) {
            return .kind(kind, try nearest(kind, from: here, map: map, language: language, limit: limit))
        }
        guard let best = matches.first?.score else {
            return .nothing(query: text, kinds: kinds.closest(to: text), names: map.namesLike(text))
        }
        // The best-scoring names (several places may share one), each place once, nearest first.
        var places: [FoundPlace] = []
        for match in matches where match.score >= best - 0.05 {
            let place = aim(match.feature, from: here, map: map, language: language)
            if places.contains(where: { NameNormalizer.normalize($0.name) == NameNormalizer.normalize(place.name)
                && $0.coordinate.distance(to: place.coordinate) < 25 }) { continue }
            places.append(place)
        }
        places.sort { $0.distance < $1.distance }
        return .names(query: text, total: places.count, places: Array(places.prefix(limit)))
    }

    /// The one place a command names ("take me to the railway station"): an exact name first, then the nearest of
    /// a kind, then the best fuzzy name (landmarks and places before streets among equals).
    public static func best(_ text: String, from here: Coordinate, map: SpatialDataView, kinds: KindTable,
                            language: String = "en") throws -> FoundPlace? {
        let query = KindTable.stripArticle(NameNormalizer.normalize(text))
        guard !query.isEmpty else { return nil }
        let match = try map.lookup(spokenName: query, near: here, limit: 1).first
        if let match, match.score >= 0.97 { return aim(match.feature, from: here, map: map, language: language) }
        if let kind = kinds.kind(named: text), let first = try nearest(kind, from: here, map: map, language: language, limit: 1).first {
            return first
        }
        return match.map { aim($0.feature, from: here, map: map, language: language) }
    }
}

extension GuidanceLanguage {
    /// "cafes, bakeries and restaurants" / "Kiasma, Kaisaniemi or Kamppi".
    public func list(_ items: [String], or: Bool = false) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " " + self(or ? "list.or" : "list.and") + " " + items.last!
    }
}
