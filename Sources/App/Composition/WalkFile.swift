import Foundation
import Location

/// Reads a walk from GPX or NMEA (Location's ``TrackFile``), saying how many NMEA lines were unreadable.
public enum WalkFile {
    public static func load(_ path: String) throws -> [TrackPoint] {
        let loaded = try TrackFile.load(path)
        if loaded.skippedLines > 0 { printError("\(path): \(loaded.skippedLines) unreadable lines skipped") }
        return loaded.points
    }
}
