import Foundation
import Geo

public enum TurnSide: String, Sendable, Hashable, Codable {
    case left, right
}

/// What the walker does at a point of the route.
public enum ManeuverKind: Sendable, Hashable {
    /// Setting off, in a compass direction.
    case depart(CompassDirection)
    /// Going straight on where the street name changes.
    case `continue`
    /// 20–45°.
    case slight(TurnSide)
    /// 45–135°.
    case turn(TurnSide)
    /// 135–170°.
    case sharp(TurnSide)
    /// More than 170°.
    case uTurn
    /// Taking the left or right branch of a fork.
    case keep(TurnSide)
    /// Crossing a street (a crossing way).
    case cross
    case steps
    /// Entering a roundabout and leaving at exit `exit` (1-based).
    case roundabout(exit: Int)
    case arrive

    /// The phrase-table key of the maneuver.
    public var phraseKey: String {
        switch self {
        case .depart: "maneuver.depart"
        case .continue: "maneuver.continue"
        case .slight(let s): "maneuver.slight_\(s.rawValue)"
        case .turn(let s): "maneuver.turn_\(s.rawValue)"
        case .sharp(let s): "maneuver.sharp_\(s.rawValue)"
        case .uTurn: "maneuver.uturn"
        case .keep(let s): "maneuver.keep_\(s.rawValue)"
        case .cross: "maneuver.cross"
        case .steps: "maneuver.steps"
        case .roundabout: "maneuver.roundabout"
        case .arrive: "maneuver.arrive"
        }
    }

    /// Classifies a signed turn angle (degrees, positive = right): continue < 20°, slight 20–45°,
    /// turn 45–135°, sharp 135–170°, U-turn beyond.
    public static func classify(angle: Double) -> ManeuverKind {
        let a = abs(angle)
        let side: TurnSide = angle >= 0 ? .right : .left
        switch a {
        case ..<20: return .continue
        case ..<45: return .slight(side)
        case ..<135: return .turn(side)
        case ..<170: return .sharp(side)
        default: return .uTurn
        }
    }
}

/// Traffic signals at a crossing.
public enum CrossingSignals: String, Sendable, Hashable, Codable {
    case none
    case trafficSignals
    /// Accessible signals with sound.
    case soundSignals
}

/// One maneuver of a planned route.
public struct Maneuver: Sendable, Hashable {
    public var kind: ManeuverKind
    public var coordinate: Coordinate
    /// Metres from the start of the route.
    public var distanceAlong: Double
    /// The street taken (only when it is a different street from the one being left).
    public var streetName: String?
    /// The street crossed, for `.cross`.
    public var crossedStreet: String?
    public var signals: CrossingSignals
    /// The destination's name, for `.arrive`.
    public var destinationName: String?
    /// Signed turn angle, degrees, positive = right.
    public var angle: Double

    public init(kind: ManeuverKind, coordinate: Coordinate, distanceAlong: Double, streetName: String? = nil,
                crossedStreet: String? = nil, signals: CrossingSignals = .none, destinationName: String? = nil, angle: Double = 0) {
        self.kind = kind
        self.coordinate = coordinate
        self.distanceAlong = distanceAlong
        self.streetName = streetName
        self.crossedStreet = crossedStreet
        self.signals = signals
        self.destinationName = destinationName
        self.angle = angle
    }
}
