import Foundation
import ServiceLifecycle

/// A source of heading readings other than GPS course (head tracker, compass). Like ``LocationProvider`` it is a
/// `Service`; its `readings` stream has one consumer and finishes when `run()` returns.
public protocol HeadingProvider: Service {
    var name: String { get }
    var readings: AsyncStream<HeadingReading> { get }
}
