import Foundation

/// Word lists for super-category assignment and generic labels. These lists were compiled for
/// this project from OpenStreetMap's tag vocabulary; a word may be a tag key (every `shop=*` is a
/// place) or a tag value. When several tags of one feature match, the category that comes first in
/// `priority` wins.
enum CategoryTable {
    static let priority: [SuperCategory] = [.safety, .navilens, .mobility, .landmark, .place, .object, .information]

    static let safety: [String] = [
        "construction", "road_works", "parking", "parking_entrance", "multi-storey", "cliff", "danger_area",
        "cattle_grid", "cycle_barrier", "hazard", "level_crossing", "ford", "embankment", "ditch",
        "fuel", "car_wash", "loading_dock", "motorway_junction", "speed_camera", "traffic_calming",
        "bump", "hump", "chicane", "height_restrictor", "jersey_barrier", "barrier_board", "gas_station",
        "trench", "excavation", "quarry", "dam", "weir", "driveway", "sinkhole",
    ]
    static let navilens: [String] = ["navilens"]
    static let mobility: [String] = [
        "bus_stop", "crossing", "traffic_signals", "steps", "elevator", "escalator", "toilets", "atm",
        "taxi", "platform", "stop_position", "subway_entrance", "tram_stop", "halt", "gate",
        "kissing_gate", "turnstile", "stile", "swing_gate", "lift_gate", "bicycle_parking",
        "bicycle_rental", "car_sharing", "car_rental", "ferry_terminal", "pharmacy", "charging_station",
        "shelter", "motorcycle_parking", "boat_rental", "ticket_validator",
        "stop_area", "light_rail", "monorail", "bus_bay", "taxi_rank", "mobility_scooter", "baby_hatch", "changing_table", "footbridge",
    ]
    static let landmark: [String] = [
        "museum", "park", "place_of_worship", "church", "cathedral", "chapel", "mosque", "synagogue",
        "temple", "shrine", "train_station", "station", "bus_station", "hospital", "school", "university",
        "college", "kindergarten", "library", "townhall", "courthouse", "police", "fire_station", "embassy",
        "supermarket", "department_store", "mall", "monument", "memorial", "statue", "artwork", "fountain",
        "bridge", "stadium", "theatre", "cinema", "arts_centre", "concert_hall", "castle", "attraction",
        "viewpoint", "zoo", "aquarium", "gallery", "marketplace", "square", "post_office", "government",
        "community_centre", "sports_centre", "swimming_pool", "garden", "nature_reserve", "tower",
        "lighthouse", "historic", "archaeological_site", "ruins", "palace", "fort", "city_gate",
        "planetarium", "theme_park", "conference_centre", "exhibition_centre", "public_building",
        "public", "civic", "prison", "cemetery", "grave_yard", "harbour", "marina", "pier", "beach",
        "pitch", "track", "golf_course", "ice_rink", "water_park", "events_venue", "music_venue",
        "parliament", "ministry", "diplomatic", "cultural_centre", "opera", "ship", "wayside_cross",
        "boundary_stone", "citywalls", "obelisk", "clock_tower", "observatory", "dog_park", "common",
        "recreation_ground", "village_green", "allotments", "playground",
    ]
    static let place: [String] = [
        "shop", "office", "craft", "healthcare", "restaurant", "cafe", "fast_food", "bar", "pub",
        "biergarten", "food_court", "ice_cream", "nightclub", "stripclub", "casino", "bakery", "butcher",
        "books", "clothes", "shoes", "convenience", "kiosk", "florist", "hairdresser", "beauty",
        "optician", "jewelry", "gift", "electronics", "mobile_phone", "computer", "furniture",
        "hardware", "doityourself", "sports", "outdoor", "toys", "pet", "alcohol", "wine", "beverages",
        "chemist", "cosmetics", "perfumery", "tobacco", "newsagent", "stationery", "art", "music",
        "photo", "travel_agency", "laundry", "dry_cleaning", "tailor", "variety_store", "second_hand",
        "charity", "bag", "boutique", "fashion", "watches", "interior_decoration", "deli", "confectionery",
        "chocolate", "seafood", "greengrocer", "tea", "coffee", "hotel", "hostel", "guest_house",
        "motel", "apartment", "bank", "bureau_de_change", "money_transfer", "dentist", "doctors",
        "clinic", "veterinary", "fitness_centre", "gym", "company", "coworking", "spa", "massage",
        "tattoo", "car_repair", "bicycle", "ticket", "lottery", "pawnbroker", "copyshop", "dance",
        "studio", "retail", "commercial", "social_facility", "childcare", "language_school",
        "music_school", "driving_school", "internet_cafe", "sauna", "public_bath", "bowling_alley",
        "escape_game", "amusement_arcade", "hackerspace", "events", "nursing_home", "pastry",
        "cheese", "frozen_food", "health_food", "organic", "herbalist", "hearing_aids", "medical_supply",
        "antiques", "frame", "games", "video_games", "model", "musical_instrument", "camera",
        "hifi", "radiotechnics", "appliance", "kitchen", "bed", "carpet", "curtain", "fabric",
        "sewing", "houseware", "lighting", "paint", "trade", "erotic", "weapons", "fishing", "hunting",
        "swimming", "scuba_diving", "golf", "ski", "car", "car_parts", "motorcycle", "tyres",
        "estate_agent", "insurance", "lawyer", "accountant", "employment_agency", "it",
        "telecommunication", "newspaper", "association", "ngo", "religion", "educational_institution",
        "research", "consulting", "architect", "financial", "tax_advisor", "notary", "travel_agent",
        "cannabis", "e-cigarette", "funeral_directors", "locksmith", "shoe_repair", "storage_rental",
        "printer_ink", "party", "pottery", "baby_goods", "hairdresser_supply", "nutrition_supplements",
        "psychic", "tanning", "nails", "piercing", "community_centre_room", "youth_centre",
    ]
    static let object: [String] = [
        "bench", "waste_basket", "waste_disposal", "recycling", "post_box", "street_lamp", "bollard",
        "fire_hydrant", "vending_machine", "telephone", "drinking_water", "clock", "picnic_table",
        "letter_box", "flagpole", "surveillance", "advertising", "poster_box", "column", "planter",
        "table", "water_point", "parcel_locker", "grit_bin", "bicycle_repair_station", "compressed_air",
        "bbq", "hunting_stand", "lamp", "sculpture", "bust", "stone", "tree", "block", "post",
        "traffic_mirror", "manhole", "street_cabinet", "mast", "antenna", "fence", "wall",
        "log", "boulder", "dog_toilet", "smoking_area", "ashtray", "watering_place", "hitching_post",
        "give_box", "public_bookcase", "photo_booth", "sanitary_dump_station", "waste_transfer_station",
        "water_tap", "shower", "lounger",
    ]
    static let information: [String] = [
        "information", "guide", "board", "map", "defibrillator", "assembly_point", "fire_extinguisher",
        "life_ring", "emergency_phone", "phone", "visitor_centre", "noticeboard", "first_aid_kit",
        "tactile_model", "terminal", "office_information", "route_marker", "guidepost",
    ]

    /// Tag keys whose mere presence is a category word (any `shop=*` is a place).
    static let keyWords: [String: SuperCategory] = [
        "shop": .place, "office": .place, "craft": .place, "healthcare": .place,
        "historic": .landmark, "construction": .safety,
    ]

    /// Keys whose values are looked up in the word lists. Other keys (access, surface, phone,
    /// wheelchair, …) carry values that would be misread as categories.
    static let valueKeys: Set<String> = [
        "amenity", "shop", "tourism", "leisure", "historic", "office", "craft", "healthcare", "emergency",
        "highway", "railway", "public_transport", "barrier", "man_made", "building", "landuse", "natural",
        "aeroway", "information", "vending", "parking", "crossing", "bridge", "waterway", "sport",
        "place", "traffic_calming", "hazard", "military", "entrance", "indoor", "footway", "club",
    ]

    static let byWord: [String: SuperCategory] = {
        var table: [String: SuperCategory] = [:]
        // Lower priority first so that a word listed twice keeps its higher-priority category.
        let lists: [(SuperCategory, [String])] = [
            (.information, information), (.object, object), (.place, place), (.landmark, landmark),
            (.mobility, mobility), (.navilens, navilens), (.safety, safety),
        ]
        for (category, words) in lists {
            for word in words { table[word] = category }
        }
        return table
    }()

    struct LabelRule: Sendable {
        var key: String
        var values: Set<String>
        var label: String
    }

    /// The indices of `labelRules` for each key, in ascending order.
    static let labelRulesByKey: [String: [Int]] = {
        var table: [String: [Int]] = [:]
        for (i, rule) in labelRules.enumerated() { table[rule.key, default: []].append(i) }
        return table
    }()

    /// Generic labels, checked in order; an empty value set matches any value of the key.
    static let labelRules: [LabelRule] = [
        LabelRule(key: "entrance", values: ["main"], label: "main_entrance"),
        LabelRule(key: "entrance", values: [], label: "building_entrance"),
        LabelRule(key: "highway", values: ["bus_stop"], label: "bus_stop"),
        LabelRule(key: "railway", values: ["tram_stop"], label: "tram_stop"),
        LabelRule(key: "railway", values: ["subway_entrance"], label: "subway_entrance"),
        LabelRule(key: "railway", values: ["station", "halt"], label: "train_station"),
        LabelRule(key: "railway", values: ["platform"], label: "platform"),
        LabelRule(key: "railway", values: ["level_crossing", "crossing"], label: "railway_crossing"),
        LabelRule(key: "public_transport", values: ["platform"], label: "platform"),
        LabelRule(key: "public_transport", values: ["station"], label: "station"),
        LabelRule(key: "highway", values: ["traffic_signals"], label: "traffic_signals"),
        LabelRule(key: "highway", values: ["elevator"], label: "elevator"),
        LabelRule(key: "highway", values: ["steps"], label: "steps"),
        LabelRule(key: "highway", values: ["footway", "path", "bridleway", "corridor"], label: "walking_path"),
        LabelRule(key: "highway", values: ["cycleway"], label: "bicycle_path"),
        LabelRule(key: "highway", values: ["pedestrian"], label: "pedestrian_street"),
        LabelRule(key: "highway", values: ["residential", "residential_link", "living_street"], label: "residential_street"),
        LabelRule(key: "highway", values: ["service"], label: "service_road"),
        LabelRule(key: "highway", values: ["motorway", "motorway_link"], label: "highway"),
        LabelRule(key: "highway", values: ["primary", "primary_link", "secondary", "secondary_link", "tertiary",
                                           "tertiary_link", "trunk", "trunk_link", "unclassified", "road",
                                           "track"], label: "road"),
        LabelRule(key: "highway", values: ["platform"], label: "platform"),
        LabelRule(key: "amenity", values: ["toilets"], label: "restroom"),
        LabelRule(key: "amenity", values: ["bench"], label: "bench"),
        LabelRule(key: "leisure", values: ["picnic_table"], label: "picnic_table"),
        LabelRule(key: "amenity", values: ["waste_basket"], label: "waste_basket"),
        LabelRule(key: "amenity", values: ["recycling"], label: "recycling"),
        LabelRule(key: "amenity", values: ["post_box"], label: "post_box"),
        LabelRule(key: "amenity", values: ["atm"], label: "atm"),
        LabelRule(key: "amenity", values: ["bank"], label: "bank"),
        LabelRule(key: "amenity", values: ["parking"], label: "parking"),
        LabelRule(key: "amenity", values: ["parking_entrance"], label: "parking_entrance"),
        LabelRule(key: "amenity", values: ["bicycle_parking"], label: "bicycle_parking"),
        LabelRule(key: "amenity", values: ["bicycle_rental"], label: "bicycle_rental"),
        LabelRule(key: "amenity", values: ["drinking_water"], label: "drinking_water"),
        LabelRule(key: "amenity", values: ["telephone"], label: "telephone"),
        LabelRule(key: "amenity", values: ["taxi"], label: "taxi"),
        LabelRule(key: "amenity", values: ["shelter"], label: "shelter"),
        LabelRule(key: "amenity", values: ["fountain"], label: "fountain"),
        LabelRule(key: "amenity", values: ["vending_machine"], label: "vending_machine"),
        LabelRule(key: "amenity", values: ["charging_station"], label: "charging_station"),
        LabelRule(key: "amenity", values: ["clock"], label: "clock"),
        LabelRule(key: "amenity", values: ["pharmacy"], label: "pharmacy"),
        LabelRule(key: "amenity", values: ["place_of_worship"], label: "place_of_worship"),
        LabelRule(key: "emergency", values: ["defibrillator"], label: "defibrillator"),
        LabelRule(key: "emergency", values: ["fire_hydrant"], label: "fire_hydrant"),
        LabelRule(key: "emergency", values: ["phone"], label: "emergency_phone"),
        LabelRule(key: "tourism", values: ["information"], label: "information"),
        LabelRule(key: "leisure", values: ["park"], label: "park"),
        LabelRule(key: "leisure", values: ["playground"], label: "playground"),
        LabelRule(key: "leisure", values: ["garden"], label: "garden"),
        LabelRule(key: "barrier", values: ["gate", "swing_gate", "kissing_gate"], label: "gate"),
        LabelRule(key: "barrier", values: ["lift_gate"], label: "lift_gate"),
        LabelRule(key: "barrier", values: ["bollard"], label: "bollard"),
        LabelRule(key: "barrier", values: ["turnstile"], label: "turnstile"),
        LabelRule(key: "barrier", values: ["cycle_barrier"], label: "cycle_barrier"),
        LabelRule(key: "landuse", values: ["construction"], label: "construction"),
        LabelRule(key: "highway", values: ["construction"], label: "construction"),
    ]

    static let labelDisplayNames: [String: String] = [
        "atm": "ATM",
        "restroom": "Restroom",
        "crossing": "Crosswalk",
        "traffic_signals": "Traffic Lights",
        "waste_basket": "Waste Basket",
        "post_box": "Mailbox",
        "drinking_water": "Drinking Water",
        "bicycle_rental": "Bike Rental",
        "taxi": "Taxi Stand",
        "building_entrance": "Building Entrance",
        "main_entrance": "Main Entrance",
        "highway": "Highway",
        "emergency_phone": "Emergency Phone",
        "railway_crossing": "Railway Crossing",
    ]
}
