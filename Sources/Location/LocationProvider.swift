import Foundation
import ServiceLifecycle

/// A source of positions: gpsd, a replayed walk, or a fixed place.
///
/// A provider is a swift-service-lifecycle `Service`: `run()` produces the events and returns when the source is
/// exhausted (a replay ends), when the task is cancelled, or on graceful shutdown. Its `events` stream has a
/// single consumer (normally ``GeolocationManager``) and finishes when `run()` returns.
public protocol LocationProvider: Service {
    /// A short name for logs and `doctor` ("gpsd 127.0.0.1:2947", "replay walk.gpx", "fixed").
    var name: String { get }
    var events: AsyncStream<LocationEvent> { get }
}
