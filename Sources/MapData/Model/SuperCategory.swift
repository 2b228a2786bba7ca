import Foundation

/// The coarse class of a map feature, used to pick an earcon and to filter callouts
/// (spec §6.3). Raw values are what the database stores.
public enum SuperCategory: String, Sendable, Codable, CaseIterable, Hashable {
    case undefined
    case entrance
    case entrances
    case road
    case path
    case intersection
    case landmark
    case place
    case mobility
    case information
    case object
    case safety
    case beacons
    case authoredActivity
    case navilens

    /// The category's coordinate in the spatial index. The order keeps the sets that queries ask
    /// for contiguous: exploration (0–2), everything but intersections and entrance lists (0–12),
    /// places inside which a user can stand (0–9), roads and paths (11–12).
    public var indexCode: Int {
        switch self {
        case .place: return 0
        case .landmark: return 1
        case .authoredActivity: return 2
        case .mobility: return 3
        case .information: return 4
        case .object: return 5
        case .safety: return 6
        case .beacons: return 7
        case .navilens: return 8
        case .undefined: return 9
        case .entrance: return 10
        case .road: return 11
        case .path: return 12
        case .intersection: return 13
        case .entrances: return 14
        }
    }

    /// The categories "Around Me" and "Ahead of Me" announce.
    public static let exploration: Set<SuperCategory> = [.place, .landmark, .authoredActivity]
    /// Roads and paths: what the user can be "on".
    public static let ways: Set<SuperCategory> = [.road, .path]
}

/// Assigns super-categories and generic labels from OSM tags. The word lists are in
/// `CategoryTable` (CategoryTable.swift).
public enum Categorizer {
    /// Highway values that make a way a road (vehicles and pedestrians share it).
    public static let roadHighways: Set<String> = [
        "motorway", "motorway_link", "trunk", "trunk_link", "primary", "primary_link",
        "secondary", "secondary_link", "tertiary", "tertiary_link", "unclassified", "residential",
        "residential_link", "living_street", "service", "track", "pedestrian", "road", "turning_circle",
        "bus_guideway",
    ]
    /// Highway values that make a way a path (no motor traffic).
    public static let pathHighways: Set<String> = ["footway", "path", "cycleway", "bridleway"]
    /// Highway values whose ways join at intersections and feed the walking graph besides roads and
    /// paths.
    public static let connectorHighways: Set<String> = ["steps", "crossing", "corridor", "elevator", "platform"]

    /// Super-category for a feature, first matching rule wins (spec §6.3).
    public static func superCategory(featureType: String, featureValue: String, tags: OSMTags) -> SuperCategory {
        if tags["indoormark"] == "beacon" { return .beacons }
        if tags["footway"] == "crossing" || tags["crossing"] != nil || tags["highway"] == "crossing"
            || tags["railway"] == "crossing" {
            return .mobility
        }
        if tags["entrance"] != nil || featureType == "entrance" { return .entrance }
        if featureValue == "gd_intersection" { return .intersection }
        if featureType == "gd_entrance_list" { return .entrances }
        if tags["qr_code:navilens"] == "yes" { return .navilens }
        if featureValue == "bus_stop" || featureValue == "atm" { return .mobility }
        if featureValue == "bank" { return .place }
        if let highway = tags["highway"] {
            if roadHighways.contains(highway) && highway != "bus_guideway" { return .road }
            if pathHighways.contains(highway) { return .path }
        }
        // Otherwise the best match of any key or value in the word lists.
        var best: SuperCategory?
        var bestRank = Int.max
        func consider(_ category: SuperCategory?) {
            guard let category, let rank = CategoryTable.priority.firstIndex(of: category), rank < bestRank else { return }
            best = category
            bestRank = rank
        }
        for tag in tags {
            consider(CategoryTable.keyWords[tag.key])
            if CategoryTable.valueKeys.contains(tag.key) { consider(CategoryTable.byWord[tag.value]) }
        }
        return best ?? .undefined
    }

    /// Generic label of a feature (e.g. "bus_stop", "walking_path"), used when it has no name
    /// and as a suffix for named ones ("Kauppatori Bus Stop"). nil when the tags are not one of
    /// the recognised kinds.
    public static func label(tags: OSMTags) -> String? {
        if tags["footway"] == "crossing" || tags["highway"] == "crossing" { return "crossing" }
        // The first rule in order that matches: found from the element's few tags (each key's rules by
        // index), not by searching the tags for each of the rules' keys.
        var best = Int.max
        for (position, tag) in tags.pairs.enumerated() {
            guard let rules = CategoryTable.labelRulesByKey[tag.key], rules[0] < best else { continue }
            // A key given twice counts with its first value, as `tags[key]` reads it.
            guard !tags.pairs[..<position].contains(where: { $0.key == tag.key }) else { continue }
            for r in rules where r < best {
                let values = CategoryTable.labelRules[r].values
                if values.isEmpty || values.contains(tag.value) {
                    best = r
                    break
                }
            }
        }
        return best == .max ? nil : CategoryTable.labelRules[best].label
    }

    /// The English words for a label ("walking_path" → "Walking Path").
    public static func displayName(forLabel label: String) -> String {
        if let special = CategoryTable.labelDisplayNames[label] { return special }
        return label.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }
}
