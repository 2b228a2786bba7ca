import Geo
import MapData

/// The audio beacon as the Guidance stage knows it (its state lives there; the beacon generator only reads).
public struct BeaconState: Sendable, Equatable {
    public var id: String
    public var name: String
    public var coordinate: Coordinate
    /// The map feature the beacon is on, if any (its callouts are not repeated by automatic place callouts).
    public var featureKey: String?
    public var superCategory: SuperCategory
    /// Whether the beacon's sound plays.
    public var isAudioEnabled: Bool
    /// The arrival distance ("mute the beacon within 15 m").
    public var arrivalDistance: Double

    public init(id: String, name: String, coordinate: Coordinate, featureKey: String? = nil,
                superCategory: SuperCategory = .undefined, isAudioEnabled: Bool = true, arrivalDistance: Double = 15) {
        self.id = id
        self.name = name
        self.coordinate = coordinate
        self.featureKey = featureKey
        self.superCategory = superCategory
        self.isAudioEnabled = isAudioEnabled
        self.arrivalDistance = arrivalDistance
    }
}

/// Reads the current beacon. The Guidance stage implements it; it is asked at every event.
public protocol BeaconStateReader: Sendable {
    func currentBeacon() -> BeaconState?
}

/// A saved place (Soundscape's marker).
public struct MarkerInfo: Sendable, Equatable {
    public var id: String
    public var name: String
    public var coordinate: Coordinate
    /// The user's note, spoken after the name.
    public var annotation: String?

    public init(id: String, name: String, coordinate: Coordinate, annotation: String? = nil) {
        self.id = id
        self.name = name
        self.coordinate = coordinate
        self.annotation = annotation
    }
}

/// Reads saved markers near a point. The Guidance stage implements it.
public protocol MarkerReader: Sendable {
    /// Markers within `radius` metres of `coordinate`.
    func markers(near coordinate: Coordinate, radius: Double) -> [MarkerInfo]
}
