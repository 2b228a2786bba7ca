import Foundation
import Geo

/// A recorded position of a walk, as read from a GPX or NMEA file.
public struct TrackPoint: Sendable, Equatable {
    public var coordinate: Coordinate
    public var time: Date?
    public var speed: Double?
    public var course: Double?
    public var horizontalAccuracy: Double?

    public init(coordinate: Coordinate, time: Date? = nil, speed: Double? = nil, course: Double? = nil, horizontalAccuracy: Double? = nil) {
        self.coordinate = coordinate
        self.time = time
        self.speed = speed
        self.course = course
        self.horizontalAccuracy = horizontalAccuracy
    }
}

public struct TrackFileError: Error, CustomStringConvertible, Equatable {
    public var path: String
    public var line: Int?
    public var reason: String
    public var description: String { line.map { "\(path):\($0): \(reason)" } ?? "\(path): \(reason)" }
    public init(path: String, line: Int?, reason: String) {
        self.path = path
        self.line = line
        self.reason = reason
    }
}
