import Foundation
import Logging
import ServiceLifecycle
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One pose as OpenTrack's "UDP over network" output sends it: six little-endian doubles, 48 bytes —
/// x, y, z (centimetres) then yaw, pitch, roll (degrees, relative to the tracker's centre).
public struct OpenTrackPose: Sendable, Equatable {
    public var x, y, z, yaw, pitch, roll: Double

    public init(x: Double = 0, y: Double = 0, z: Double = 0, yaw: Double, pitch: Double = 0, roll: Double = 0) {
        (self.x, self.y, self.z, self.yaw, self.pitch, self.roll) = (x, y, z, yaw, pitch, roll)
    }

    public static let datagramSize = 48

    /// Decodes a datagram; nil unless it is exactly 48 bytes of finite numbers.
    public init?(datagram bytes: some Collection<UInt8>) {
        guard bytes.count == Self.datagramSize else { return nil }
        let array = Array(bytes)
        var values: [Double] = []
        for i in 0..<6 {
            var bits: UInt64 = 0
            for b in 0..<8 { bits |= UInt64(array[i * 8 + b]) << (8 * UInt64(b)) }
            let v = Double(bitPattern: bits)
            guard v.isFinite else { return nil }
            values.append(v)
        }
        self.init(x: values[0], y: values[1], z: values[2], yaw: values[3], pitch: values[4], roll: values[5])
    }

    /// The 48-byte datagram for this pose (what a tracker sends).
    public var datagram: [UInt8] {
        [x, y, z, yaw, pitch, roll].flatMap { value in (0..<8).map { UInt8(truncatingIfNeeded: value.bitPattern >> (8 * UInt64($0))) } }
    }
}

public enum OpenTrackError: Error, CustomStringConvertible {
    case cannotBind(host: String, port: UInt16, reason: String)
    public var description: String {
        switch self {
        case .cannotBind(let host, let port, let reason):
            return "OpenTrack receiver: cannot listen on UDP \(host):\(port) (\(reason)); is another program using the port?"
        }
    }
}

/// Receives head-tracker poses over UDP in OpenTrack's format and publishes the yaw as
/// ``HeadingSourceKind/headTracker`` readings. Phone apps and webcam trackers (opentrack with its face trackers)
/// can feed it; point their "UDP over network" output at this machine, port 4242.
///
/// The yaw is relative to the tracker's centre; ``HeadingResolver`` turns it into a world heading (see there).
/// The socket is read on a dedicated thread. Datagrams that are not 48 bytes of finite doubles are counted and dropped.
public final class OpenTrackReceiver: HeadingProvider {
    public static let defaultPort: UInt16 = 4242

    public let host: String
    /// The UDP port actually bound (useful when 0 was asked for).
    public let port: UInt16
    public let readings: AsyncStream<HeadingReading>
    public var name: String { "OpenTrack UDP \(host):\(port)" }

    private let continuation: AsyncStream<HeadingReading>.Continuation
    private let socketFD: Int32
    private let stop = StopFlag()
    private let received = Atomic<Int>(0)
    private let malformed = Atomic<Int>(0)
    private let latest = Mutex<OpenTrackPose?>(nil)
    private let logger: Logger

    /// Poses decoded so far.
    public var packetsReceived: Int { received.load(ordering: .acquiring) }
    /// Datagrams dropped for a wrong size or non-finite values.
    public var packetsMalformed: Int { malformed.load(ordering: .acquiring) }
    /// The last pose decoded (pitch and roll too).
    public var latestPose: OpenTrackPose? { latest.withLock { $0 } }

    /// Binds the socket now, so a port conflict shows at start-up. `host` "0.0.0.0" accepts trackers on other
    /// machines (a phone on the same Wi-Fi); "127.0.0.1" only local ones.
    public init(host: String = "0.0.0.0", port: UInt16 = OpenTrackReceiver.defaultPort,
                logger: Logger = Logger(label: "soundscape.location.opentrack")) throws {
        self.host = host
        self.logger = logger
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw OpenTrackError.cannotBind(host: host, port: port, reason: "not an IPv4 address")
        }
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw OpenTrackError.cannotBind(host: host, port: port, reason: String(cString: strerror(errno))) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw OpenTrackError.cannotBind(host: host, port: port, reason: reason)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = UInt16(bigEndian: actual.sin_port)
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        socketFD = fd
        (readings, continuation) = AsyncStream.makeStream(of: HeadingReading.self, bufferingPolicy: .bufferingNewest(16))
    }

    deinit { close(socketFD) }

    /// Reads until cancelled or shut down (then stops within 0.2 s).
    public func run() async throws {
        defer { continuation.finish() }
        await stop.runBlocking(threadName: "opentrack-udp") { [self] in readLoop() }
    }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 512)
        while !stop.isSet {
            let n = buffer.withUnsafeMutableBytes { recv(socketFD, $0.baseAddress, $0.count, 0) }
            if n < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                logger.error("OpenTrack socket failed", metadata: ["errno": "\(errno)"])
                return
            }
            guard let pose = OpenTrackPose(datagram: buffer[0..<n]) else {
                malformed.add(1, ordering: .releasing)
                continue
            }
            latest.withLock { $0 = pose }
            received.add(1, ordering: .releasing)
            continuation.yield(HeadingReading(kind: .headTracker, degrees: pose.yaw, measuredAt: Date()))
        }
    }
}
