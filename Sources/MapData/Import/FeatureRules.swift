import Foundation
import Geo

/// A feature ready to be written: the common form of imported OSM elements, synthesised features
/// and features parsed from tile-service GeoJSON.
struct PendingFeature: Sendable {
    var key: String
    var osmIDs: [Int64]
    var featureType: String
    var featureValue: String
    var name: String?
    var names: [(String, String)]
    var tags: OSMTags
    var geometry: FeatureGeometry
    var category: String?
    var superCategory: SuperCategory
    var roadClass: RoadClass
    var level: LevelClass
    var layer: Int
    var isRoundabout: Bool
    var source: Int = 0
    /// The OSM element the key names ("n123" → node 123), when the importer made the key from it: the row's
    /// stored key and ids then come from it, not from parsing the key back.
    var element: OSMElementID?

    var isAnnounceable: Bool { name != nil || category != nil }
}

/// Which OSM elements become features, and how their primary tag is chosen. Modelled on what the
/// Soundscape data service puts in its tiles (spec §6.4): places (points and areas with amenity,
/// shop, tourism, …), roads and paths (highway lines), entrances, plus transit stops.
enum FeatureRules {
    /// Primary keys in priority order: the first one present becomes feature_type.
    static let primaryKeys: [String] = [
        "entrance", "emergency", "amenity", "shop", "tourism", "leisure", "historic", "office", "craft",
        "healthcare", "highway", "railway", "public_transport", "aeroway", "barrier", "man_made",
        "building", "landuse", "natural", "indoormark",
    ]

    /// Keys that make any tagged node or area a feature, whatever the value.
    static let anyValueKeys: Set<String> = [
        "entrance", "amenity", "shop", "tourism", "leisure", "historic", "office", "craft", "healthcare",
        "building", "indoormark",
    ]

    /// Keys that make a feature only with these values.
    static let pointValues: [String: Set<String>] = [
        "highway": ["bus_stop", "crossing", "traffic_signals", "elevator", "platform", "street_lamp"],
        "railway": ["station", "halt", "tram_stop", "subway_entrance", "platform", "level_crossing", "crossing"],
        "public_transport": ["platform", "station"],
        "emergency": ["defibrillator", "fire_hydrant", "phone", "assembly_point", "fire_extinguisher",
                      "life_ring", "first_aid_kit", "ambulance_station", "emergency_ward_entrance"],
        "barrier": ["gate", "lift_gate", "bollard", "kissing_gate", "swing_gate", "turnstile",
                    "cycle_barrier", "stile", "entrance", "full-height_turnstile"],
        "man_made": ["surveillance", "flagpole", "tower", "lighthouse", "obelisk", "water_tap", "clock",
                     "bridge", "pier"],
        "aeroway": ["terminal", "gate"],
    ]

    static let areaValues: [String: Set<String>] = [
        "landuse": ["construction"],
        "railway": ["station", "platform"],
        "public_transport": ["platform", "station"],
        "man_made": ["bridge", "pier", "tower"],
        "aeroway": ["terminal"],
        "emergency": ["ambulance_station"],
    ]

    /// Highway ways that are not travelled lines.
    static let excludedHighways: Set<String> = [
        "proposed", "construction", "abandoned", "disused", "raceway", "razed", "bus_stop", "services",
        "rest_area", "emergency_bay", "no",
    ]

    /// Tag keys read after the import, besides those of the rules and word lists above: by the level and
    /// walking rules (which the tile client runs again on a tile's properties), entrances, addresses, replies
    /// and the kinds table (`Grammars/kinds.txt`, with keys a user is likely to add: cuisine, sport…).
    static let readTagKeys: Set<String> = [
        "indoormark", "qr_code:navilens", "layer", "tunnel", "location", "indoor", "level", "bridge", "junction",
        "area", "service", "foot", "access", "segregated", "sidewalk", "oneway:foot", "traffic_signals:sound",
        "crossing", "door", "ref", "addr:street", "addr:housenumber", "wikidata", "wikipedia", "station",
        "religion", "denomination", "drinking_water", "atm", "cuisine", "sport", "vending", "wheelchair",
    ]

    /// The keys a map stores: every key some rule, query or reply reads. The rest (addresses' city and postcode,
    /// contact details, opening hours, surface, parking lanes…) were two thirds of the tags' bytes and no reader's.
    /// Names are not among them: they are stored once, in the names column.
    static let storedTagKeys: Set<String> = {
        var keys = readTagKeys.union(primaryKeys).union(anyValueKeys)
        keys.formUnion(CategoryTable.valueKeys)
        keys.formUnion(CategoryTable.keyWords.keys)
        keys.formUnion(CategoryTable.labelRules.map(\.key))
        return keys
    }()

    /// Whether a key is one some rule of the import reads: a stored key, a name, `footway` (crossings) or a
    /// relation's `type`. The importer drops every other tag as it decodes a block (it decides once for each
    /// string of the block's table), so that the rules search and copy only the tags they may use.
    static func isReadKey(_ key: String) -> Bool {
        storedTagKeys.contains(key) || isNameKey(key) || key == "footway" || key == "type"
    }

    static func isNameKey(_ key: String) -> Bool {
        key == "name" || key.hasPrefix("name:") || key == "alt_name" || key == "official_name"
            || key == "short_name" || key == "loc_name"
    }

    /// The tags a map keeps of an element (see ``storedTagKeys``), in file order.
    static func storedTags(_ tags: OSMTags) -> OSMTags {
        OSMTags(tags.pairs.filter { storedTagKeys.contains($0.key) })
    }

    /// Each primary key's place in ``primaryKeys``.
    private static let primaryRank: [String: Int] = Dictionary(uniqueKeysWithValues: primaryKeys.enumerated().map { ($1, $0) })

    /// The tag of the highest-priority primary key whose value `accepts` takes ("no" never), the key's first
    /// value counting: found from the element's few tags, not by searching them for each primary key.
    private static func primary(_ tags: OSMTags, accepts: (String, String) -> Bool) -> (String, String)? {
        var best = Int.max
        var found: (String, String)?
        for (position, tag) in tags.pairs.enumerated() {
            guard let rank = primaryRank[tag.key], rank < best,
                  !tags.pairs[..<position].contains(where: { $0.key == tag.key }),
                  tag.value != "no", accepts(tag.key, tag.value) else { continue }
            best = rank
            found = (tag.key, tag.value)
        }
        return found
    }

    /// The element's primary (key, value) if it becomes a point feature.
    static func pointPrimary(_ tags: OSMTags) -> (String, String)? {
        primary(tags) { key, value in anyValueKeys.contains(key) || pointValues[key]?.contains(value) == true }
    }

    /// The primary tag of an area (closed way or multipolygon), if it becomes one.
    static func areaPrimary(_ tags: OSMTags) -> (String, String)? {
        primary(tags) { key, value in
            (anyValueKeys.contains(key) && key != "entrance") || areaValues[key]?.contains(value) == true
        }
    }

    /// The highway value of a way that is a road, path or connector.
    static func travelHighway(_ tags: OSMTags) -> String? {
        guard let highway = tags["highway"], !excludedHighways.contains(highway) else { return nil }
        if Categorizer.roadHighways.contains(highway) || Categorizer.pathHighways.contains(highway)
            || Categorizer.connectorHighways.contains(highway) {
            return highway
        }
        return nil
    }

    static func roadClass(highway: String?) -> RoadClass {
        guard let highway else { return .none }
        if Categorizer.roadHighways.contains(highway) { return .road }
        if Categorizer.pathHighways.contains(highway) { return .path }
        if Categorizer.connectorHighways.contains(highway) { return .connector }
        return .none
    }

    static func nameTags(_ tags: OSMTags) -> [(String, String)] {
        tags.pairs.filter { isNameKey($0.key) }.map { ($0.key, $0.value) }
    }

    /// Builds the feature for an element, or nil when the element is not one Soundscape uses.
    /// `isArea` says whether the geometry is closed (polygon or multipolygon). The key and ids are made only
    /// for an element that becomes a feature (most tagged nodes do not).
    static func makeFeature(key: @autoclosure () -> String, osmIDs: @autoclosure () -> [Int64], tags rawTags: OSMTags,
                            geometry: FeatureGeometry,
                            forcedType: (String, String)? = nil, element: OSMElementID? = nil) -> PendingFeature? {
        // The primary tag is found among the raw tags: its keys are all stored keys, so it is the one the
        // stored tags give, and the elements that make no feature (half of the tagged ones) cost no copy.
        let primary: (String, String)
        var roadHighway: String?
        switch geometry {
        case .point, .multiPoint:
            guard let p = forcedType ?? pointPrimary(rawTags) else { return nil }
            primary = p
        case .line:
            if let highway = travelHighway(rawTags) {
                roadHighway = highway
                primary = forcedType ?? ("highway", highway)
            } else if let p = forcedType ?? lineOnlyPrimary(rawTags) {
                primary = p
            } else {
                return nil
            }
        case .polygon, .multiPolygon:
            if let highway = travelHighway(rawTags) {
                roadHighway = highway
                primary = forcedType ?? ("highway", highway)
            } else if let p = forcedType ?? areaPrimary(rawTags) {
                primary = p
            } else {
                return nil
            }
        }
        // Everything below reads only stored keys, so a tile's properties (stored tags and names) classify alike.
        let tags = storedTags(rawTags)
        let names = nameTags(rawTags)
        // `name` is the name on the ground; an English name stands in when that is missing.
        let name = rawTags["name"] ?? rawTags["name:en"]
        let superCategory = Categorizer.superCategory(featureType: primary.0, featureValue: primary.1, tags: tags)
        let junction = tags["junction"]
        return PendingFeature(
            key: key(), osmIDs: osmIDs(), featureType: primary.0, featureValue: primary.1,
            name: name, names: names, tags: tags, geometry: geometry,
            category: Categorizer.label(tags: tags), superCategory: superCategory,
            roadClass: roadClass(highway: roadHighway), level: LevelClass.classify(tags),
            layer: Int(tags["layer"]?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0,
            isRoundabout: junction == "roundabout" || junction == "circular", element: element)
    }

    /// Open ways that are features although they are not highways: platforms, piers, bridges.
    static func lineOnlyPrimary(_ tags: OSMTags) -> (String, String)? {
        if let v = tags["railway"], v == "platform" { return ("railway", v) }
        if let v = tags["public_transport"], v == "platform" { return ("public_transport", v) }
        if let v = tags["man_made"], v == "pier" || v == "bridge" { return ("man_made", v) }
        if let v = tags["leisure"], v == "track" { return ("leisure", v) }
        if let v = tags["tourism"], v == "attraction" { return ("tourism", v) }
        return nil
    }

    /// Whether a travel way belongs to the walking graph.
    static func isWalkable(_ tags: OSMTags, highway: String) -> Bool {
        if ["motorway", "motorway_link", "bus_guideway", "elevator"].contains(highway) { return false }
        let foot = tags["foot"]
        if foot == "no" || foot == "use_sidepath" { return false }
        if let access = tags["access"], ["no", "private"].contains(access),
           !["yes", "designated", "permissive"].contains(foot ?? "") {
            return false
        }
        if highway == "cycleway" && foot == nil && tags["segregated"] == nil && tags["sidewalk"] == nil {
            // Cycleways are walkable unless signed otherwise (most of Europe allows it).
            return true
        }
        return true
    }

    /// Whether a travel way's vertices can be intersections (area outlines and parking aisles are not).
    static func joinsIntersections(_ tags: OSMTags, highway: String) -> Bool {
        if tags["area"] == "yes" { return false }
        if tags["service"] == "parking_aisle" { return false }
        if highway == "elevator" || highway == "platform" { return false }
        return true
    }
}
