import Foundation
import Geo
import ServiceLifecycle

/// A place given on the command line (`--at LAT,LON`): one fix as soon as it runs, then nothing until shutdown.
public final class FixedLocationProvider: LocationProvider {
    public let coordinate: Coordinate
    public let events: AsyncStream<LocationEvent>
    public var name: String { "fixed \(coordinate.latitude),\(coordinate.longitude)" }
    private let continuation: AsyncStream<LocationEvent>.Continuation

    public init(coordinate: Coordinate) {
        self.coordinate = coordinate
        (events, continuation) = AsyncStream.makeStream(of: LocationEvent.self)
    }

    /// Parses "LAT,LON" (decimal degrees, spaces allowed), as `--at` takes it.
    public static func parse(_ text: String) -> Coordinate? {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]) else { return nil }
        let c = Coordinate(latitude: lat, longitude: lon)
        return c.isValid ? c : nil
    }

    public func run() async throws {
        defer { continuation.finish() }
        continuation.yield(.fix(LocationFix(coordinate: coordinate, timestamp: Date(), mode: .threeD,
                                            horizontalAccuracy: 0, speed: 0)))
        // Stay "up" (a fixed place never loses its signal) until cancelled or shut down.
        try? await gracefulShutdown()
    }
}
