import Foundation
import Logging
import ServiceLifecycle

/// Turns gpsd reports and connection failures into ``LocationEvent``s: each state change once, and each fix once
/// (gpsd sends its latest fix again to a new connection; that repeat is dropped). Fixes from before the last one
/// are passed on: gpsd never reorders, so they mean the receiver's clock has changed, which ``FixFilter`` judges.
/// Pure (no I/O), so the rules can be tested without a daemon.
public struct GpsdSignalTracker: Sendable {
    /// The loss reported and not yet followed by a fix.
    public private(set) var lost = false
    /// The no-fix reason reported and not yet followed by a fix.
    public private(set) var noFix: NoFixReason?
    /// Time of the last fix passed on.
    public private(set) var lastFixTime: Date?
    /// Untimed fixes in a row; after `untimedBeforeUse` of them the receiver is taken to give no time at all.
    private var untimedInARow = 0
    public let untimedBeforeUse: Int

    public init(untimedBeforeUse: Int = 3) { self.untimedBeforeUse = untimedBeforeUse }

    /// The events one report gives. `repeated` is set when a fix was dropped for repeating the last one's time.
    public mutating func handle(_ report: GpsdReport, repeated: inout Bool) -> [LocationEvent] {
        repeated = false
        switch report {
        case .untimedFix(var fix):
            // Usually gpsd's partial report before RMC: the timed one follows, so drop this one (stamping it with
            // our clock would put it out of order with the receiver's times). Only a receiver that keeps sending
            // untimed fixes gets them used, in arrival order.
            untimedInARow += 1
            guard untimedInARow >= untimedBeforeUse else { return [] }
            if let last = lastFixTime, fix.timestamp <= last { fix.timestamp = last.addingTimeInterval(0.001) }
            return deliver(fix)
        case .fix(let fix):
            untimedInARow = 0
            if fix.timestamp == lastFixTime {
                repeated = true
                return []
            }
            return deliver(fix)
        case .noFix:
            return enterNoFix(.noSatellites)
        case .devices(let devices):
            return devices.isEmpty ? enterNoFix(.noReceiver) : []
        case .heading(let degrees, let time):
            return [.receiverHeading(degrees, at: time)]
        case .version:
            return []
        }
    }

    private mutating func deliver(_ fix: LocationFix) -> [LocationEvent] {
        lastFixTime = fix.timestamp
        var out: [LocationEvent] = []
        if lost || noFix != nil { out.append(.signalRestored) }
        lost = false
        noFix = nil
        out.append(.fix(fix))
        return out
    }

    /// The events a failed or closed connection gives (the loss, once).
    public mutating func connectionFailed(_ reason: String) -> [LocationEvent] {
        guard !lost else { return [] }
        lost = true
        return [.signalLost(reason: reason)]
    }

    private mutating func enterNoFix(_ reason: NoFixReason) -> [LocationEvent] {
        // While the daemon is lost, the loss already told the user there is no position.
        guard !lost, noFix != reason else { return [] }
        noFix = reason
        return [.noFix(reason)]
    }
}

/// Positions from a gpsd daemon over its JSON protocol, reconnecting with backoff whenever gpsd goes away.
///
/// Run it as a `Service` (or call `run()` in a task). Events come out of ``events``: fixes as the receiver gives
/// them (a fix gpsd repeats after a reconnection is dropped and counted), `noFix` when the receiver loses
/// the sky or gpsd has no receiver, `signalLost` once when the daemon cannot be reached, and `signalRestored`
/// before the first fix after either. Garbage lines are skipped and counted in ``counters``.
public final class GpsdLocationProvider: LocationProvider {
    public let endpoint: GpsdEndpoint
    public let events: AsyncStream<LocationEvent>
    public let counters = GpsdCounters()
    public var name: String { "gpsd \(endpoint)" }

    private let continuation: AsyncStream<LocationEvent>.Continuation
    private let initialBackoff: Duration
    private let maximumBackoff: Duration
    private let connectTimeout: Double
    private let clock: any Clock<Duration>
    private let logger: Logger

    /// - Parameters:
    ///   - initialBackoff: wait after the first failure; doubled after each further failure…
    ///   - maximumBackoff: …up to this, which bounds how long after gpsd comes back we reconnect (plus `connectTimeout`).
    ///   - clock: the clock the waits between attempts are made on.
    public init(endpoint: GpsdEndpoint = .default, initialBackoff: Duration = .milliseconds(100),
                maximumBackoff: Duration = .seconds(1), connectTimeout: Double = 0.8,
                clock: any Clock<Duration> = ContinuousClock(),
                logger: Logger = Logger(label: "soundscape.location.gpsd")) {
        self.clock = clock
        self.endpoint = endpoint
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.connectTimeout = connectTimeout
        self.logger = logger
        (events, continuation) = AsyncStream.makeStream(of: LocationEvent.self, bufferingPolicy: .bufferingNewest(1024))
    }

    public func run() async throws {
        defer { continuation.finish() }
        await cancelWhenGracefulShutdown { await self.loop() }
    }

    private func loop() async {
        var tracker = GpsdSignalTracker()
        var backoff = initialBackoff
        while !Task.isCancelled {
            let connectionsBefore = counters.connections
            counters.countAttempt()
            do {
                for try await report in GpsdConnection.reports(from: endpoint, connectTimeout: connectTimeout, counters: counters) {
                    backoff = initialBackoff
                    var repeated = false
                    for event in tracker.handle(report, repeated: &repeated) { continuation.yield(event) }
                    if repeated {
                        counters.countRepeat()
                        logger.debug("fix dropped: gpsd repeated the last one", metadata: ["time": "\(tracker.lastFixTime.map { "\($0)" } ?? "-")"])
                    }
                }
                if Task.isCancelled { return }
                // The stream only ends without an error when it was cancelled; treat anything else as a loss.
                for event in tracker.connectionFailed("gpsd at \(endpoint) stopped sending") { continuation.yield(event) }
            } catch {
                if Task.isCancelled { return }
                let wasConnected = counters.connections > connectionsBefore
                if wasConnected { logger.warning("gpsd connection lost", metadata: ["error": "\(error)"]) }
                else { logger.debug("gpsd not reachable", metadata: ["error": "\(error)", "retry_in": "\(backoff)"]) }
                for event in tracker.connectionFailed("\(error)") { continuation.yield(event) }
            }
            do { try await clock.sleep(for: backoff) } catch { return }
            backoff = min(backoff * 2, maximumBackoff)
        }
    }
}
