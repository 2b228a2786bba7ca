import Foundation
import Geo
import Location
import Logging
import ServiceLifecycle

/// Where positions come from when the assistant runs.
public enum LocationSource: Sendable, Equatable {
    /// A real receiver through gpsd.
    case gpsd(GpsdEndpoint)
    /// A recorded walk replayed in real time divided by `speed`.
    case replay([TrackPoint], speed: Double, name: String)
    /// One fixed position (`--at`), with an optional fixed heading.
    case fixed(Coordinate, heading: Double?)
}

/// Feeds location events into a stream for the assistant; a swift-service-lifecycle service that stops on
/// graceful shutdown. gpsd is reconnected with a growing pause (0.5 s doubling up to 2 s) when it goes away;
/// the loss is reported once and the return once.
public struct LocationFeed: Service {
    public let source: LocationSource
    private let continuation: AsyncStream<PositionEvent>.Continuation
    private let logger = Logger(label: "soundscape.location")

    public init(source: LocationSource, continuation: AsyncStream<PositionEvent>.Continuation) {
        self.source = source
        self.continuation = continuation
    }

    public func run() async throws {
        switch source {
        case .fixed(let coordinate, let heading):
            continuation.yield(.fix(LocationFix(coordinate: coordinate, timestamp: Date(), mode: .threeD, horizontalAccuracy: 5,
                                                speed: heading == nil ? nil : 1, course: heading)))
            try? await gracefulShutdown()
        case .replay(let points, let speed, _):
            let replay = TrackReplay(points: points, speed: speed, clock: ContinuousClock())
            for await fix in replay.fixes().cancelOnGracefulShutdown() {
                continuation.yield(.fix(fix))
            }
            if !Task.isCancelled && !Task.isShuttingDownGracefully { continuation.yield(.walkEnded) }
        case .gpsd(let endpoint):
            try await followGpsd(endpoint)
        }
    }

    private func followGpsd(_ endpoint: GpsdEndpoint) async throws {
        var pause = Duration.milliseconds(500)
        var lost = false
        var hadFix = false
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                for try await report in GpsdConnection.reports(from: endpoint).cancelOnGracefulShutdown() {
                    switch report {
                    case .fix(let fix):
                        if lost { continuation.yield(.restored); lost = false }
                        hadFix = true
                        pause = .milliseconds(500)
                        continuation.yield(.fix(fix))
                    case .noFix where hadFix && !lost:
                        lost = true
                        continuation.yield(.lost(reason: "the receiver has no fix"))
                    default:
                        break
                    }
                }
            } catch {
                logger.debug("gpsd: \(error)")
                if !lost {
                    lost = true
                    continuation.yield(.lost(reason: "\(error)"))
                }
            }
            if Task.isShuttingDownGracefully { break }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(2))
        }
    }
}
