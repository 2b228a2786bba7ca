import Foundation
import Geo
import Logging
import ServiceLifecycle

/// All the headings of one moment, one per consumer (spec §2.2).
public struct HeadingUpdate: Sendable, Equatable {
    public var collection: ResolvedHeading?
    public var presentation: ResolvedHeading?
    public var beacon: ResolvedHeading?
    public var intersection: ResolvedHeading?

    public init(collection: ResolvedHeading? = nil, presentation: ResolvedHeading? = nil,
                beacon: ResolvedHeading? = nil, intersection: ResolvedHeading? = nil) {
        self.collection = collection
        self.presentation = presentation
        self.beacon = beacon
        self.intersection = intersection
    }

    public subscript(consumer: HeadingConsumer) -> ResolvedHeading? {
        switch consumer {
        case .collection: return collection
        case .presentation: return presentation
        case .beacon: return beacon
        case .intersection: return intersection
        }
    }
}

/// Merges location and heading providers into what the pipeline consumes.
///
/// * Location: providers are listed in priority order; a provider's fixes are used only while no provider before it
///   has delivered a fix within `failoverAfter`. Fixes pass a ``FixFilter`` (NaN, negative accuracy, repeats,
///   reordering and impossible jumps are dropped and counted) and a ``CourseEstimator`` (fills missing speed and
///   course). State changes — no fix, signal lost, signal restored — are merged over the providers and published
///   once each.
/// * Motion: a ``MotionClassifier`` fed with each accepted fix's speed.
/// * Heading: a ``HeadingResolver`` fed with course (from fixes), receiver headings (gpsd ATT), heading providers
///   (OpenTrack head tracker) and manual/fixed headings; re-resolved on every input and every `tickInterval`, so
///   that expiry shows even when nothing arrives. Results go to ``headings()`` subscribers; ``currentHeadings`` is the
///   latest, which the location service sends with each fix.
///
/// All times that decide expiry come from the injected clock (arrival time), not from the receiver's timestamps.
public actor GeolocationManager<C: Clock>: Service where C.Duration == Duration {
    public struct Configuration: Sendable {
        public var failoverAfter: Duration = .seconds(5)
        public var tickInterval: Duration = .milliseconds(200)
        public var filter = FixFilter.Configuration()
        public var motion = MotionClassifier<C.Instant>.Configuration()
        public var heading = HeadingResolver<C.Instant>.Configuration()
        public init() {}
    }

    /// Counts of what happened to fixes.
    public struct Statistics: Sendable, Equatable {
        public var accepted = 0
        public var rejected: [FixRejection: Int] = [:]
        /// Fixes of a lower-priority provider ignored because a better one is delivering.
        public var overridden = 0
        public var rejectedTotal: Int { rejected.values.reduce(0, +) }
    }

    private enum ProviderState: Equatable { case unknown, ok, noFix(NoFixReason), lost(String), finished }
    private enum Signal: Equatable { case unknown, ok, noFix, lost }

    public nonisolated let clock: C
    public let configuration: Configuration
    private let locationProviders: [any LocationProvider]
    private let headingProviders: [any HeadingProvider]
    private let logger: Logger

    private var filter: FixFilter
    private var estimator = CourseEstimator()
    private var classifier: MotionClassifier<C.Instant>
    private var resolver: HeadingResolver<C.Instant>
    private var providerStates: [ProviderState]
    private var lastAcceptedAt: [C.Instant?]
    private var published: Signal = .unknown
    private var lastHeadings = HeadingUpdate()
    public private(set) var statistics = Statistics()
    /// The last fix passed on.
    public private(set) var lastFix: LocationFix?

    private var eventSubscribers: [UUID: AsyncStream<LocationEvent>.Continuation] = [:]
    private var fixSubscribers: [UUID: AsyncStream<LocationFix>.Continuation] = [:]
    private var headingSubscribers: [UUID: AsyncStream<HeadingUpdate>.Continuation] = [:]
    private var finished = false

    public init(locationProviders: [any LocationProvider], headingProviders: [any HeadingProvider] = [],
                clock: C, configuration: Configuration = Configuration(),
                logger: Logger = Logger(label: "soundscape.location")) {
        self.locationProviders = locationProviders
        self.headingProviders = headingProviders
        self.clock = clock
        self.configuration = configuration
        self.logger = logger
        filter = FixFilter(configuration: configuration.filter)
        classifier = MotionClassifier(configuration: configuration.motion)
        resolver = HeadingResolver(configuration: configuration.heading)
        providerStates = Array(repeating: .unknown, count: max(locationProviders.count, 1))
        lastAcceptedAt = Array(repeating: nil, count: max(locationProviders.count, 1))
    }

    // MARK: - Subscriptions

    /// Location events: accepted fixes, and no-fix / signal lost / signal restored, each change once.
    public func updates() -> AsyncStream<LocationEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: LocationEvent.self, bufferingPolicy: .bufferingNewest(256))
        if finished { continuation.finish(); return stream }
        let id = UUID()
        eventSubscribers[id] = continuation
        continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        return stream
    }

    /// Accepted fixes only.
    public func fixes() -> AsyncStream<LocationFix> {
        let (stream, continuation) = AsyncStream.makeStream(of: LocationFix.self, bufferingPolicy: .bufferingNewest(256))
        if finished { continuation.finish(); return stream }
        let id = UUID()
        fixSubscribers[id] = continuation
        continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        return stream
    }

    /// Resolved headings whenever any consumer's heading changes; starts with the current state.
    public func headings() -> AsyncStream<HeadingUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: HeadingUpdate.self, bufferingPolicy: .bufferingNewest(16))
        continuation.yield(lastHeadings)
        if finished { continuation.finish(); return stream }
        let id = UUID()
        headingSubscribers[id] = continuation
        continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        return stream
    }

    private func unsubscribe(_ id: UUID) {
        eventSubscribers[id] = nil
        fixSubscribers[id] = nil
        headingSubscribers[id] = nil
    }

    // MARK: - Queries and commands

    public var motion: MotionState { classifier.state }

    /// The headings resolved last, one per consumer.
    public var currentHeadings: HeadingUpdate { lastHeadings }

    /// The heading a consumer should use now.
    public func heading(for consumer: HeadingConsumer) -> ResolvedHeading? {
        resolver.heading(for: consumer, at: clock.now)
    }

    /// "I am facing north".
    public func setManualHeading(_ degrees: Double) {
        resolver.setManual(degrees, at: clock.now)
        publishHeadings()
    }

    public func clearManualHeading() {
        resolver.clearManual()
        publishHeadings()
    }

    /// `--heading DEG` (nil removes it).
    public func setFixedHeading(_ degrees: Double?) {
        resolver.setFixed(degrees, at: clock.now)
        publishHeadings()
    }

    /// Aligns the head tracker with the body heading ("I am looking straight ahead").
    @discardableResult
    public func recenterHeadTracker() -> Bool {
        let done = resolver.recenterHeadTracker(at: clock.now)
        publishHeadings()
        return done
    }

    // MARK: - Input (run() feeds these; tests and the pipeline may call them directly)

    /// One event from location provider number `index` (its place in `locationProviders`).
    public func handle(_ event: LocationEvent, from index: Int = 0) {
        let now = clock.now
        let i = min(max(index, 0), providerStates.count - 1)
        switch event {
        case .fix(let raw):
            providerStates[i] = .ok
            let betterIsDelivering = (0..<i).contains { j in
                lastAcceptedAt[j].map { $0.duration(to: now) < configuration.failoverAfter } ?? false
            }
            if betterIsDelivering {
                statistics.overridden += 1
                return
            }
            switch filter.admit(raw, motion: classifier.state) {
            case .failure(let why):
                statistics.rejected[why, default: 0] += 1
                logger.debug("fix dropped", metadata: ["reason": "\(why)", "lat": "\(raw.coordinate.latitude)", "lon": "\(raw.coordinate.longitude)"])
            case .success(let admitted):
                let fix = estimator.complete(admitted)
                statistics.accepted += 1
                lastAcceptedAt[i] = now
                lastFix = fix
                if published == .lost || published == .noFix { broadcast(.signalRestored) }
                published = .ok
                broadcast(.fix(fix))
                for c in fixSubscribers.values { c.yield(fix) }
                if let speed = fix.speed { classifier.update(speed: speed, at: now) }
                if let course = fix.course { resolver.updateCourse(course, speed: fix.speed, motion: classifier.state, at: now) }
                publishHeadings()
            }
        case .noFix(let reason):
            providerStates[i] = .noFix(reason)
            publishSignal()
        case .signalLost(let reason):
            providerStates[i] = .lost(reason)
            publishSignal()
        case .signalRestored:
            break   // derived from the next accepted fix
        case .receiverHeading(let degrees, let at):
            resolver.update(HeadingReading(kind: .receiver, degrees: degrees, measuredAt: at), at: now)
            publishHeadings()
        }
    }

    /// One reading from a heading provider.
    public func handle(_ reading: HeadingReading) {
        resolver.update(reading, at: clock.now)
        publishHeadings()
    }

    /// Re-resolves headings so that expired sources drop out (run() calls it every `tickInterval`).
    public func tick() { publishHeadings() }

    private func providerFinished(_ index: Int) {
        providerStates[index] = .finished
    }

    private var allLocationProvidersFinished: Bool {
        locationProviders.isEmpty || providerStates.allSatisfy { $0 == .finished }
    }

    /// Publishes a merged no-fix or loss when no provider delivers any more.
    private func publishSignal() {
        if providerStates.contains(.ok) { return }
        let noFix = providerStates.lazy.compactMap { if case .noFix(let r) = $0 { return r } else { return nil } }.first
        let lost = providerStates.lazy.compactMap { if case .lost(let r) = $0 { return r } else { return nil } }.first
        if let noFix, published != .noFix && published != .lost {
            published = .noFix
            broadcast(.noFix(noFix))
        } else if noFix == nil, let lost, published != .lost {
            published = .lost
            broadcast(.signalLost(reason: lost))
        }
    }

    private func broadcast(_ event: LocationEvent) {
        for c in eventSubscribers.values { c.yield(event) }
    }

    private func publishHeadings() {
        let now = clock.now
        let update = HeadingUpdate(collection: resolver.heading(for: .collection, at: now),
                                   presentation: resolver.heading(for: .presentation, at: now),
                                   beacon: resolver.heading(for: .beacon, at: now),
                                   intersection: resolver.heading(for: .intersection, at: now))
        if update != lastHeadings {
            lastHeadings = update
            for c in headingSubscribers.values { c.yield(update) }
        }
    }

    private func finishSubscribers() {
        finished = true
        for c in eventSubscribers.values { c.finish() }
        for c in fixSubscribers.values { c.finish() }
        for c in headingSubscribers.values { c.finish() }
        eventSubscribers = [:]
        fixSubscribers = [:]
        headingSubscribers = [:]
    }

    // MARK: - Service

    private enum Part: Sendable { case provider, ticker }

    /// Runs every provider and consumes their events. Returns when all location providers have ended (a replay
    /// finished), on cancellation or on graceful shutdown; then every subscriber stream finishes.
    public func run() async throws {
        let locationProviders = self.locationProviders
        let headingProviders = self.headingProviders
        let clock = self.clock
        let interval = configuration.tickInterval
        let logger = self.logger
        await withTaskGroup(of: Part.self) { group in
            for (index, provider) in locationProviders.enumerated() {
                group.addTask {
                    do { try await provider.run() } catch { logger.error("location provider failed", metadata: ["provider": "\(provider.name)", "error": "\(error)"]) }
                    return .provider
                }
                group.addTask {
                    for await event in provider.events { await self.handle(event, from: index) }
                    await self.providerFinished(index)
                    return .provider
                }
            }
            for provider in headingProviders {
                group.addTask {
                    do { try await provider.run() } catch { logger.error("heading provider failed", metadata: ["provider": "\(provider.name)", "error": "\(error)"]) }
                    return .provider
                }
                group.addTask {
                    for await reading in provider.readings { await self.handle(reading) }
                    return .provider
                }
            }
            group.addTask {
                while !Task.isCancelled, await !self.allLocationProvidersFinished {
                    do { try await clock.sleep(for: interval) } catch { break }
                    await self.tick()
                }
                return .ticker
            }
            while let part = await group.next() {
                if part == .ticker { group.cancelAll() }
            }
        }
        finishSubscribers()
    }
}

extension GeolocationManager where C == ContinuousClock {
    public init(locationProviders: [any LocationProvider], headingProviders: [any HeadingProvider] = [],
                configuration: Configuration = Configuration(), logger: Logger = Logger(label: "soundscape.location")) {
        self.init(locationProviders: locationProviders, headingProviders: headingProviders, clock: ContinuousClock(),
                  configuration: configuration, logger: logger)
    }
}
