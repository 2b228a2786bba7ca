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
    /// One fixed position (`--at`), with an optional fixed heading (`--heading`).
    case fixed(Coordinate, heading: Double?)
}

/// The location stage as `soundscape run` uses it: a ``GeolocationManager`` over the chosen position source and
/// the heading sources (a head tracker over OpenTrack UDP when asked for), whose output is passed on to the
/// assistant:
///
/// * fixes (filtered: NaN, negative accuracy, impossible jumps dropped), each with the manager's motion state and
///   headings at that moment, "GPS signal lost" and its return as ``PositionEvent``s, each loss once;
/// * headings (spec §2.2: one per consumer) to `headings`, as they change;
/// * the end of a replayed walk as ``PositionEvent/walkEnded``.
///
/// A swift-service-lifecycle service: stops on graceful shutdown, and only then.
public struct LocationService: Service, CustomStringConvertible {
    public let manager: GeolocationManager<ContinuousClock>
    public let source: LocationSource
    private let continuation: AsyncStream<AssistantInput>.Continuation
    private let headings: @Sendable (HeadingUpdate) async -> Void
    private let logger: Logger

    /// - Parameters:
    ///   - headTracker: an OpenTrack receiver already bound (so that a port conflict shows before start).
    ///   - compass: a device compass (iio-sensor-proxy over D-Bus), read when it is there.
    ///   - headings: called with every change of the resolved headings.
    public init(source: LocationSource, headTracker: OpenTrackReceiver? = nil, compass: (any HeadingProvider)? = nil,
                continuation: AsyncStream<AssistantInput>.Continuation,
                headings: @escaping @Sendable (HeadingUpdate) async -> Void,
                logger: Logger = Logger(label: "soundscape.location")) {
        self.source = source
        self.continuation = continuation
        self.headings = headings
        self.logger = logger
        let provider: any LocationProvider
        switch source {
        case .gpsd(let endpoint):
            provider = GpsdLocationProvider(endpoint: endpoint)
        case .replay(let points, let speed, let name):
            provider = ReplayLocationProvider(points: points, speed: speed, clock: ContinuousClock(), name: "replay \(name)")
        case .fixed(let coordinate, _):
            provider = FixedLocationProvider(coordinate: coordinate)
        }
        let headingProviders: [any HeadingProvider] = (headTracker.map { [$0] } ?? []) + (compass.map { [$0] } ?? [])
        manager = GeolocationManager(locationProviders: [provider], headingProviders: headingProviders, logger: logger)
    }

    /// Short, for logs and the service group's errors (the default would print every point of a replayed walk).
    public var description: String {
        switch source {
        case .gpsd(let endpoint): "location from gpsd at \(endpoint)"
        case .replay(let points, let speed, let name): "location from the walk \(name) (\(points.count) points at \(speed)×)"
        case .fixed(let c, _): "location fixed at \(c.latitude),\(c.longitude)"
        }
    }

    public func run() async throws {
        if case .fixed(_, let heading?) = source { await manager.setFixedHeading(heading) }
        // Subscribe before the providers start, so that the first fix is not missed.
        let updates = await manager.updates()
        let headingUpdates = await manager.headings()
        let continuation = self.continuation
        let headings = self.headings
        let manager = self.manager
        let isReplay: Bool = if case .replay = source { true } else { false }
        let logger = self.logger
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do { try await manager.run() } catch {}
            }
            group.addTask {
                var relay = SignalRelay()
                for await event in updates {
                    for position in relay.positions(for: event) {
                        // The fix goes with how the user moves and where they face, as the location stage has them now.
                        if case .update(var update) = position {
                            update.motion = await manager.motion
                            update.headings = await manager.currentHeadings
                            continuation.yield(.location(.update(update)))
                        } else {
                            continuation.yield(.location(position))
                        }
                    }
                }
                // The manager ends when every provider has ended: with a replay, that is the end of the walk.
                if isReplay && !Task.isCancelled && !Task.isShuttingDownGracefully {
                    logger.info("location: the simulated walk ended")
                    continuation.yield(.location(.walkEnded))
                }
            }
            group.addTask {
                for await update in headingUpdates { await headings(update) }
            }
        }
        // A walk that has ended (or a receiver given up on) leaves the service waiting for its turn to stop. The
        // service group shuts services down one by one, and a service that returns while another one is being
        // stopped makes the whole group fail ("finished unexpectedly"): at the end of a replayed walk that race
        // turned a clean exit into exit status 1.
        try? await gracefulShutdown()
    }
}

/// Turns the location stage's state changes into what the assistant says: a loss of the signal once it had a
/// position (a missing fix at start-up is the greeting's business), and the return only after a loss was said.
struct SignalRelay: Sendable {
    private(set) var hadFix = false
    private(set) var lostSaid = false

    mutating func positions(for event: LocationEvent) -> [PositionEvent] {
        switch event {
        case .fix(let fix):
            hadFix = true
            if lostSaid {
                lostSaid = false
                return [.restored, .fix(fix)]
            }
            return [.fix(fix)]
        case .signalLost(let reason):
            guard !lostSaid else { return [] }
            lostSaid = true
            return [.lost(reason: reason)]
        case .noFix(let reason):
            guard hadFix, !lostSaid else { return [] }
            lostSaid = true
            return [.lost(reason: reason.description)]
        case .signalRestored, .receiverHeading:
            return []
        }
    }
}

extension GeolocationManager: HeadingControl {}
