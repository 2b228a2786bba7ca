import CSystemd
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// The compass iio-sensor-proxy offers on the D-Bus system bus, read through libsystemd's sd-bus, as
/// ``HeadingSourceKind/compass`` readings (the spec's *device* heading).
///
/// Object `/net/hadess/SensorProxy/Compass` of `net.hadess.SensorProxy`, interface `net.hadess.SensorProxy.Compass`:
/// when `HasCompass` is true it calls `ClaimCompass`, reads `CompassHeading` (degrees from magnetic north) and again
/// on every `PropertiesChanged`, and claims again whenever the service's owner changes (a restart). The service only
/// signals changes, so while the user stands still the last heading is published again every `refreshInterval`;
/// when the service goes away nothing more is published and the heading expires in the ``HeadingResolver``.
/// No bus, no service or no compass: no readings, and only debug logs (``status`` says which).
/// The bus is read on a dedicated thread; sd-bus objects never leave it.
public final class SensorProxyCompass: HeadingProvider {
    public struct Configuration: Sendable {
        /// A D-Bus address, e.g. `unix:path=/run/dbus/system_bus_socket` (the system bus).
        public var busAddress: String
        /// How often the last heading is published again while nothing changes.
        public var refreshInterval: Duration = .milliseconds(500)
        /// How long to wait before connecting again when the bus is not there.
        public var retryInterval: Duration = .seconds(2)
        /// The longest the thread waits for the bus before it checks whether to stop or refresh.
        public var pollInterval: Duration = .milliseconds(100)

        public init(busAddress: String = SensorProxyCompass.systemBusAddress) { self.busAddress = busAddress }
    }

    /// What the compass reader knows now.
    public enum Status: Sendable, Equatable, CustomStringConvertible {
        case connecting
        case noBus(String)
        case noService
        case noCompass
        case refused(String)
        case reading(Double)

        public var description: String {
            switch self {
            case .connecting: "connecting to D-Bus"
            case .noBus(let why): "no D-Bus system bus (\(why))"
            case .noService: "iio-sensor-proxy is not running"
            case .noCompass: "iio-sensor-proxy reports no compass"
            case .refused(let why): "iio-sensor-proxy refused the compass (\(why))"
            case .reading(let d): "compass heading \(Int(d.rounded()))°"
            }
        }
    }

    public static let systemBusAddress = "unix:path=/run/dbus/system_bus_socket"
    public static let service = "net.hadess.SensorProxy"
    public static let objectPath = "/net/hadess/SensorProxy/Compass"
    public static let interface = "net.hadess.SensorProxy.Compass"

    public let configuration: Configuration
    public let readings: AsyncStream<HeadingReading>
    public var name: String { "iio-sensor-proxy compass on \(configuration.busAddress)" }
    public var status: Status { state.withLock { $0 } }

    private let continuation: AsyncStream<HeadingReading>.Continuation
    private let stop = StopFlag()
    private let state = Mutex<Status>(.connecting)
    private let logger: Logger

    public init(configuration: Configuration, logger: Logger = Logger(label: "soundscape.location.compass")) {
        self.configuration = configuration
        self.logger = logger
        (readings, continuation) = AsyncStream.makeStream(of: HeadingReading.self, bufferingPolicy: .bufferingNewest(16))
    }

    /// Reads until cancelled or shut down (then stops within `pollInterval`).
    public func run() async throws {
        defer { continuation.finish() }
        await stop.runBlocking(threadName: "compass-dbus") { [self] in
            while !stop.isSet {
                session()
                pause(configuration.retryInterval)
            }
        }
    }

    private func setStatus(_ s: Status) {
        let old = state.withLock { old in defer { old = s }; return old }
        if case .reading = s, case .reading = old { return }
        if old != s { logger.debug("compass: \(s)") }
    }

    private func pause(_ d: Duration) {
        var left = d
        while left > .zero && !stop.isSet {
            let step = min(left, configuration.pollInterval)
            Thread.sleep(forTimeInterval: Double(step.components.seconds) + Double(step.components.attoseconds) * 1e-18)
            left -= step
        }
    }

    /// One connection to the bus, until it breaks or the reader stops.
    private func session() {
        guard let bus = DBusConnection(address: configuration.busAddress) else {
            setStatus(.noBus("cannot connect to \(configuration.busAddress)"))
            return
        }
        let flags = SignalFlags()
        let box = Unmanaged.passRetained(flags)
        defer { box.release() }
        let propertiesRule = "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path='\(Self.objectPath)'"
        let ownerRule = "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.service)'"
        guard bus.addMatch(propertiesRule, userdata: box.toOpaque(), handler: { _, userdata, _ in
                  Unmanaged<SignalFlags>.fromOpaque(userdata!).takeUnretainedValue().properties = true
                  return 0
              }),
              bus.addMatch(ownerRule, userdata: box.toOpaque(), handler: { _, userdata, _ in
                  Unmanaged<SignalFlags>.fromOpaque(userdata!).takeUnretainedValue().owner = true
                  return 0
              })
        else {
            setStatus(.noBus("the bus refused to deliver signals"))
            return
        }
        var claimed = false
        var heading: Double?
        var published = ContinuousClock.now
        let clock = ContinuousClock()

        func publish(_ degrees: Double) {
            continuation.yield(HeadingReading(kind: .compass, degrees: degrees, measuredAt: Date()))
            published = clock.now
        }
        func readHeading() {
            guard let value = bus.doubleProperty("CompassHeading", of: Self.interface, at: Self.objectPath, on: Self.service) else {
                heading = nil
                return
            }
            // iio-sensor-proxy reports a negative heading while it has none yet.
            heading = value.isFinite && value >= 0 ? value.truncatingRemainder(dividingBy: 360) : nil
            if let heading {
                setStatus(.reading(heading))
                publish(heading)
            }
        }
        func claim() {
            claimed = false
            heading = nil
            switch bus.boolProperty("HasCompass", of: Self.interface, at: Self.objectPath, on: Self.service) {
            case .failure(let error):
                setStatus(error.isMissingService ? .noService : .refused(error.description))
                return
            case .success(false):
                setStatus(.noCompass)
                return
            case .success(true):
                break
            }
            if let error = bus.call("ClaimCompass", of: Self.interface, at: Self.objectPath, on: Self.service) {
                setStatus(error.isMissingService ? .noService : .refused(error.description))
                return
            }
            claimed = true
            readHeading()
        }

        claim()
        while !stop.isSet {
            guard bus.processPending() else { break }   // the connection broke: connect again
            if flags.owner {
                flags.owner = false
                flags.properties = false
                claim()
            }
            if flags.properties {
                flags.properties = false
                if claimed, bus.boolProperty("HasCompass", of: Self.interface, at: Self.objectPath, on: Self.service) == .success(true) {
                    readHeading()
                } else {
                    claim()
                }
            }
            if claimed, let heading, published.duration(to: clock.now) >= configuration.refreshInterval { publish(heading) }
            bus.wait(configuration.pollInterval)
        }
        if claimed { _ = bus.call("ReleaseCompass", of: Self.interface, at: Self.objectPath, on: Self.service) }
    }
}

/// Set by the signal handlers, read by the loop: both run on the compass thread (inside `sd_bus_process`).
private final class SignalFlags: @unchecked Sendable {
    var properties = false
    var owner = false
}

/// A D-Bus error by name and message.
struct DBusError: Error, Equatable, CustomStringConvertible {
    var name: String
    var message: String
    var description: String { message.isEmpty ? name : "\(name): \(message)" }
    /// The service is not on the bus (never started, or gone).
    var isMissingService: Bool {
        ["org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner"].contains(name)
    }
}

/// A thin owner of one sd-bus connection; used on one thread only.
final class DBusConnection {
    private let bus: OpaquePointer

    /// Connects to `address` as a client of a message bus (says Hello); nil when that fails.
    init?(address: String) {
        var handle: OpaquePointer?
        guard sd_bus_new(&handle) >= 0, let handle else { return nil }
        guard sd_bus_set_address(handle, address) >= 0, sd_bus_set_bus_client(handle, 1) >= 0,
              sd_bus_start(handle) >= 0 else {
            sd_bus_close_unref(handle)
            return nil
        }
        bus = handle
    }

    deinit { sd_bus_flush_close_unref(bus) }

    typealias Handler = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<sd_bus_error>?) -> Int32

    /// Asks the bus for signals matching `rule`; `handler` runs inside ``processPending()``.
    func addMatch(_ rule: String, userdata: UnsafeMutableRawPointer, handler: Handler) -> Bool {
        sd_bus_add_match(bus, nil, rule, handler, userdata) >= 0
    }

    /// Handles everything that has arrived; false when the connection is broken.
    func processPending() -> Bool {
        while true {
            let r = sd_bus_process(bus, nil)
            if r < 0 { return false }
            if r == 0 { return true }
        }
    }

    /// Waits until something arrives or `timeout` passes.
    func wait(_ timeout: Duration) {
        let micros = UInt64(timeout.components.seconds) * 1_000_000 + UInt64(timeout.components.attoseconds / 1_000_000_000_000)
        _ = sd_bus_wait(bus, micros)
    }

    /// Calls a method without arguments; the error, or nil on success.
    func call(_ method: String, of interface: String, at path: String, on service: String, timeout: UInt64 = 2_000_000) -> DBusError? {
        var message: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &message, service, path, interface, method) >= 0 else {
            return DBusError(name: "org.freedesktop.DBus.Error.NoMemory", message: "could not make the call")
        }
        defer { sd_bus_message_unref(message) }
        var error = sd_bus_error()
        var reply: OpaquePointer?
        let r = sd_bus_call(bus, message, timeout, &error, &reply)
        defer { sd_bus_message_unref(reply); sd_bus_error_free(&error) }
        return r < 0 ? Self.describe(error, r) : nil
    }

    func boolProperty(_ name: String, of interface: String, at path: String, on service: String) -> Result<Bool, DBusError> {
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var value: Int32 = 0
        let r = sd_bus_get_property_trivial(bus, service, path, interface, name, &error, CChar(UInt8(ascii: "b")), &value)
        return r < 0 ? .failure(Self.describe(error, r)) : .success(value != 0)
    }

    func doubleProperty(_ name: String, of interface: String, at path: String, on service: String) -> Double? {
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var value = 0.0
        let r = sd_bus_get_property_trivial(bus, service, path, interface, name, &error, CChar(UInt8(ascii: "d")), &value)
        return r < 0 ? nil : value
    }

    private static func describe(_ error: sd_bus_error, _ code: Int32) -> DBusError {
        DBusError(name: error.name.map { String(cString: $0) } ?? "errno \(-code)",
                  message: error.message.map { String(cString: $0) } ?? String(cString: strerror(-code)))
    }
}
