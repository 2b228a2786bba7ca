import Foundation
import ServiceLifecycle
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

public enum GpsdError: Error, CustomStringConvertible, Equatable {
    case cannotResolve(GpsdEndpoint)
    case cannotConnect(GpsdEndpoint, reason: String)
    case closed(GpsdEndpoint)

    public var description: String {
        switch self {
        case .cannotResolve(let e): return "gpsd at \(e): the host name does not resolve"
        case .cannotConnect(let e, let why): return "gpsd at \(e): cannot connect (\(why)); is gpsd running?"
        case .closed(let e): return "gpsd at \(e) closed the connection"
        }
    }
}

/// Counters a connection keeps while it runs (readable from any thread).
public final class GpsdCounters: Sendable {
    private let skipped = Atomic<Int>(0)
    private let received = Atomic<Int>(0)
    private let connected = Atomic<Int>(0)
    private let duplicates = Atomic<Int>(0)
    private let tries = Atomic<Int>(0)
    public init() {}
    /// Lines that were not gpsd JSON (garbage) and were skipped.
    public var skippedLines: Int { skipped.load(ordering: .relaxed) }
    /// Reports delivered.
    public var reports: Int { received.load(ordering: .relaxed) }
    /// Successful TCP connections so far (1 + the number of reconnections).
    public var connections: Int { connected.load(ordering: .acquiring) }
    /// Fixes dropped because their time was not later than the last fix delivered (repeats after a reconnection).
    public var droppedRepeats: Int { duplicates.load(ordering: .relaxed) }
    /// Connections tried so far, refused or not (the provider's retries show here).
    public var attempts: Int { tries.load(ordering: .acquiring) }
    func countSkipped() { skipped.add(1, ordering: .relaxed) }
    func countReport() { received.add(1, ordering: .relaxed) }
    func countConnection() { connected.add(1, ordering: .releasing) }
    func countRepeat() { duplicates.add(1, ordering: .relaxed) }
    func countAttempt() { tries.add(1, ordering: .releasing) }
}

/// One TCP connection to gpsd speaking its JSON protocol (`?WATCH={"enable":true,"json":true}`).
///
/// The socket is read on a dedicated thread (blocking reads do not belong on the cooperative pool);
/// reports come out of an `AsyncThrowingStream` that ends with ``GpsdError/closed(_:)`` when gpsd goes away.
/// Cancelling the consumer closes the socket within half a second.
public enum GpsdConnection {
    public static func reports(from endpoint: GpsdEndpoint, connectTimeout: Double = 2,
                               counters: GpsdCounters = GpsdCounters()) -> AsyncThrowingStream<GpsdReport, any Error> {
        let (stream, continuation) = AsyncThrowingStream<GpsdReport, any Error>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let stop = StopFlag()
        continuation.onTermination = { _ in stop.set() }
        let thread = Thread {
            do {
                let fd = try connect(to: endpoint, timeout: connectTimeout)
                defer { close(fd) }
                counters.countConnection()
                let watch = "?WATCH={\"enable\":true,\"json\":true}\n"
                _ = watch.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                var pending = [UInt8]()
                var buffer = [UInt8](repeating: 0, count: 8192)
                while !stop.isSet {
                    let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if n == 0 { throw GpsdError.closed(endpoint) }
                    if n < 0 {
                        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                        throw GpsdError.closed(endpoint)
                    }
                    pending.append(contentsOf: buffer[0..<n])
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = Data(pending[..<newline])
                        pending.removeSubrange(...newline)
                        guard !line.isEmpty else { continue }
                        do {
                            if let report = try GpsdMessageParser.parse(line) {
                                counters.countReport()
                                continuation.yield(report)
                            }
                        } catch {
                            counters.countSkipped()
                        }
                    }
                    if pending.count > 1 << 20 { pending.removeAll(); counters.countSkipped() }  // no newline in 1 MiB: garbage
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        thread.name = "gpsd-reader"
        thread.start()
        return stream
    }

    /// Opens a TCP socket to the endpoint with a connect timeout and a 0.5 s receive timeout.
    static func connect(to endpoint: GpsdEndpoint, timeout: Double) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(endpoint.host, String(endpoint.port), &hints, &result) == 0, let first = result else {
            throw GpsdError.cannotResolve(endpoint)
        }
        defer { freeaddrinfo(result) }
        var lastError = "no address"
        var info: UnsafeMutablePointer<addrinfo>? = first
        while let ai = info {
            info = ai.pointee.ai_next
            let fd = socket(ai.pointee.ai_family, ai.pointee.ai_socktype, ai.pointee.ai_protocol)
            if fd < 0 { lastError = String(cString: strerror(errno)); continue }
            // Non-blocking connect so that a dead host cannot hang us longer than `timeout`.
            let flags = fcntl(fd, F_GETFL, 0)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            var rc = Glibc.connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen)
            if rc < 0 && errno == EINPROGRESS {
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                rc = poll(&pfd, 1, Int32(timeout * 1000)) == 1 ? 0 : -1
                var soError: Int32 = 0
                var len = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &len)
                if rc == 0 && soError != 0 { rc = -1; errno = soError } else if rc != 0 { errno = ETIMEDOUT }
            }
            if rc == 0 {
                _ = fcntl(fd, F_SETFL, flags)
                var tv = timeval(tv_sec: 0, tv_usec: 500_000)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                return fd
            }
            lastError = String(cString: strerror(errno))
            close(fd)
        }
        throw GpsdError.cannotConnect(endpoint, reason: lastError)
    }
}

final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .releasing) }
    var isSet: Bool { flag.load(ordering: .acquiring) }

    /// Runs `loop`, a blocking reader that returns once this flag is set, on a thread of its own named `name`;
    /// cancellation or a graceful shutdown sets the flag. Returns when `loop` has returned.
    func runBlocking(threadName name: String, _ loop: @escaping @Sendable () -> Void) async {
        await cancelWhenGracefulShutdown {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    let thread = Thread {
                        loop()
                        done.resume()
                    }
                    thread.name = name
                    thread.start()
                }
            } onCancel: {
                self.set()
            }
        }
    }
}
