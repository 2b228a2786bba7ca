import Foundation
import Geo

/// Where a feature is relative to the street surface. Reverse geocoding never says the user is "on"
/// something that is not at ground level.
public enum LevelClass: Int, Sendable, Codable, Hashable {
    /// Tunnels, negative layers, underground locations, negative floor levels.
    case underground = -1
    case ground = 0
    /// Bridges and positive layers.
    case elevated = 1
    /// Indoor corridors and rooms, or upper floors (`level` > 0).
    case indoor = 2

    public static func classify(_ tags: OSMTags) -> LevelClass {
        let layer = Int(tags["layer"]?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
        if let tunnel = tags["tunnel"], tunnel != "no", tunnel != "building_passage" { return .underground }
        if tags["location"] == "underground" || tags["location"] == "subway" { return .underground }
        if layer < 0 { return .underground }
        if tags["highway"] == "corridor" { return .indoor }
        if let indoor = tags["indoor"], indoor != "no" { return .indoor }
        if let level = tags["level"] {
            // "0", "-1", "1;2", "0.5"… the lowest number decides.
            let numbers = level.split(whereSeparator: { $0 == ";" || $0 == "," }).compactMap {
                Double($0.trimmingCharacters(in: .whitespaces))
            }
            if let lowest = numbers.min() {
                if lowest < 0 { return .underground }
                if lowest > 0 { return .indoor }
            }
        }
        if let bridge = tags["bridge"], bridge != "no" { return .elevated }
        if layer > 0 { return .elevated }
        return .ground
    }
}

/// What kind of way a feature is, for road and walking queries.
public enum RoadClass: Int, Sendable, Codable, Hashable {
    case none = 0
    /// A street that vehicles use (residential, primary, pedestrian street, service…).
    case road = 1
    /// Footway, path, cycleway, bridleway.
    case path = 2
    /// Steps, crossings, corridors, platforms: joins roads and paths.
    case connector = 3
}

/// One feature of the Soundscape tile model (spec §6.2–6.3): an OSM element (or a synthesised
/// intersection / entrance list) with its primary tag, names, tags, geometry and categories.
public struct MapFeature: Sendable, Hashable, Identifiable {
    /// Row id in the map database.
    public var id: Int64
    /// Stable key: "n123", "w456", "r789" for OSM elements, "i<node>" for intersections,
    /// "e<building>" for entrance lists.
    public var key: String
    public var osmIDs: [OSMElementID]
    public var featureType: String
    public var featureValue: String
    public var name: String?
    /// name, name:en, name:fi, name:sv… as tagged.
    public var names: [String: String]
    /// The OSM tags the map keeps: those some rule, query or reply reads (not the names, nor contact details,
    /// opening hours, surface…); a kind or reply that needs another key must add it to the importer's list.
    public var tags: [String: String]
    public var geometry: FeatureGeometry
    public var centroid: Coordinate
    public var tile: Tile
    /// Generic label ("bus_stop", "walking_path"…) when the tags are a recognised kind.
    public var category: String?
    public var superCategory: SuperCategory
    public var roadClass: RoadClass
    public var level: LevelClass
    public var layer: Int
    public var isRoundabout: Bool

    /// The name a callout uses: the localized name if tagged, else `name`, else `ref`, else the
    /// generic label, else "Location". Named features with a label that reads well after the name
    /// (bus stops, tram stops) get it appended: "Kauppatori Bus Stop".
    public func spokenName(language: String = "en") -> String {
        let label = category.map(Categorizer.displayName(forLabel:))
        if let localized = names["name:\(language)"] ?? name ?? tags["ref"] {
            if let label, let category, ["bus_stop", "tram_stop"].contains(category),
               !localized.localizedCaseInsensitiveContains(label) {
                return "\(localized) \(label)"
            }
            return localized
        }
        return label ?? "Location"
    }

    /// Whether a nameless feature of this kind is still worth announcing.
    public var isAnnounceable: Bool { name != nil || category != nil }
}

/// A feature together with where it is relative to a query point.
public struct NearbyFeature: Sendable, Hashable {
    public var feature: MapFeature
    /// Metres to the closest point of the feature's outline or line (0 when inside it).
    public var distance: Double
    /// The closest point of the feature.
    public var closestPoint: Coordinate
    /// Bearing from the query point to `closestPoint`, degrees clockwise from north.
    public var bearing: Double
    public var isInside: Bool
}
