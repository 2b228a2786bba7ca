import Foundation
import Geo
import ServiceLifecycle

/// Reads a recorded walk, choosing GPX or NMEA by the file's content.
public enum TrackFile {
    public struct Loaded: Sendable {
        public var points: [TrackPoint]
        /// NMEA lines that were garbage or had a bad checksum (always 0 for GPX).
        public var skippedLines: Int
    }

    /// Throws a ``TrackFileError`` naming the file (and the line, for broken GPX).
    public static func load(_ path: String) throws -> Loaded {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TrackFileError(path: path, line: nil, reason: "cannot read the file")
        }
        let head = String(decoding: data.prefix(512), as: UTF8.self)
        if head.contains("<gpx") || head.contains("<?xml") {
            return Loaded(points: try GPXReader.parse(data, path: path), skippedLines: 0)
        }
        let result = NMEAReader.parse(String(decoding: data, as: UTF8.self))
        if result.points.isEmpty {
            throw TrackFileError(path: path, line: nil,
                                 reason: result.skippedLines > 0 ? "neither GPX nor NMEA (\(result.skippedLines) unreadable lines)"
                                                                 : "no positions in the file")
        }
        return Loaded(points: result.points, skippedLines: result.skippedLines)
    }
}

/// Replays a GPX or NMEA walk as a location provider (`soundscape simulate walk.gpx --speed 4`).
/// Fixes are stamped with the time of the replay (start + recorded elapsed time), so filters see a live walk.
public final class ReplayLocationProvider<C: Clock>: LocationProvider where C.Duration == Duration {
    public let replay: TrackReplay<C>
    public let name: String
    public let events: AsyncStream<LocationEvent>
    private let continuation: AsyncStream<LocationEvent>.Continuation
    private let loop: Bool

    public init(points: [TrackPoint], speed: Double = 1, clock: C, loop: Bool = false, name: String = "replay") {
        replay = TrackReplay(points: points, speed: speed, clock: clock)
        self.name = name
        self.loop = loop
        (events, continuation) = AsyncStream.makeStream(of: LocationEvent.self, bufferingPolicy: .bufferingNewest(1024))
    }

    public convenience init(file path: String, speed: Double = 1, clock: C, loop: Bool = false) throws {
        let loaded = try TrackFile.load(path)
        self.init(points: loaded.points, speed: speed, clock: clock, loop: loop, name: "replay \(path)")
    }

    /// Yields every fix at its time and returns when the walk ends (never, with `loop`), on cancellation or shutdown.
    public func run() async throws {
        defer { continuation.finish() }
        await cancelWhenGracefulShutdown {
            for await fix in self.replay.fixes(loop: self.loop) { self.continuation.yield(.fix(fix)) }
        }
    }
}

extension ReplayLocationProvider where C == ContinuousClock {
    public convenience init(file path: String, speed: Double = 1, loop: Bool = false) throws {
        try self.init(file: path, speed: speed, clock: ContinuousClock(), loop: loop)
    }
}
