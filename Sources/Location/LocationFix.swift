import Foundation
import Geo

/// How good a satellite fix is.
public enum FixMode: Int, Sendable, Codable, Comparable {
    case unknown = 0, noFix = 1, twoD = 2, threeD = 3
    public static func < (a: FixMode, b: FixMode) -> Bool { a.rawValue < b.rawValue }
}

/// One position report from a location provider.
public struct LocationFix: Sendable, Equatable, Codable {
    public var coordinate: Coordinate
    /// When the receiver measured it (the receiver's clock), or when it arrived if the receiver gave no time.
    public var timestamp: Date
    public var mode: FixMode
    /// Horizontal accuracy radius in metres (95 % where the source says so), when known.
    public var horizontalAccuracy: Double?
    /// Ground speed in metres per second, when known.
    public var speed: Double?
    /// Course over ground, degrees true, when known.
    public var course: Double?
    /// Height above the ellipsoid in metres, when known.
    public var altitude: Double?

    public init(coordinate: Coordinate, timestamp: Date, mode: FixMode = .threeD, horizontalAccuracy: Double? = nil,
                speed: Double? = nil, course: Double? = nil, altitude: Double? = nil) {
        self.coordinate = coordinate
        self.timestamp = timestamp
        self.mode = mode
        self.horizontalAccuracy = horizontalAccuracy
        self.speed = speed
        self.course = course
        self.altitude = altitude
    }
}
