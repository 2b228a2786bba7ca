import Foundation

/// Why a location source has no position to give.
public enum NoFixReason: Sendable, Equatable, CustomStringConvertible {
    /// The receiver is attached and talking but sees too few satellites (gpsd TPV mode 0 or 1).
    case noSatellites
    /// gpsd runs but has no receiver attached.
    case noReceiver

    public var description: String {
        switch self {
        case .noSatellites: return "the receiver sees too few satellites"
        case .noReceiver: return "no GPS receiver is attached to gpsd"
        }
    }
}

/// What a location provider reports. Providers report state *changes* (`noFix`, `signalLost`, `signalRestored`)
/// once each, not on every message, so that a consumer can speak them as they come.
public enum LocationEvent: Sendable, Equatable {
    /// A position.
    case fix(LocationFix)
    /// The source is there but has no position.
    case noFix(NoFixReason)
    /// The source went away (gpsd stopped, connection refused). Reported once until it comes back.
    case signalLost(reason: String)
    /// Positions flow again after `signalLost` or `noFix`; sent just before the first new fix.
    case signalRestored
    /// A heading measured by the receiver itself (gpsd ATT from NMEA HDT or a dual-antenna receiver), degrees true.
    case receiverHeading(Double, at: Date)
}
