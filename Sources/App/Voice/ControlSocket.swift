import Foundation
import Speech
#if canImport(Glibc)
import Glibc
#endif

/// A Unix control socket for push-to-talk, so any desktop keybinding can drive the assistant:
/// `soundscape ptt press|release|toggle|cancel` connects, sends one line ("press\n") and reads "ok". A line
/// "command where am i" gives the assistant a command written out, as if typed.
/// The socket lives in `$XDG_RUNTIME_DIR/soundscape/control.sock` and only its owner may use it (0600).
public final class ControlSocket: @unchecked Sendable {
    public let path: String
    private let fd: Int32
    private let handler: @Sendable (PushToTalk) -> Void
    private let command: (@Sendable (String) -> Void)?
    private let lock = NSLock()
    private var closed = false

    public struct SocketError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Binds and starts answering on a thread of its own.
    /// - Parameter command: told the words of a "command …" line; nil: such lines are refused.
    public init(path: String, command: (@Sendable (String) -> Void)? = nil,
                handler: @escaping @Sendable (PushToTalk) -> Void) throws {
        self.path = path
        self.handler = handler
        self.command = command
        let dir = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // A socket left by a program that crashed: remove it unless someone still answers on it.
        if FileManager.default.fileExists(atPath: path) {
            if (try? Self.send("status", to: path)) != nil { throw SocketError(description: "\(path): another soundscape is already listening there") }
            unlink(path)
        }
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard s >= 0 else { throw SocketError(description: "cannot create a socket: \(String(cString: strerror(errno)))") }
        var address = try Self.address(path)
        let old = umask(0o177)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        umask(old)
        guard bound == 0 else {
            let e = String(cString: strerror(errno)); close(s)
            throw SocketError(description: "cannot bind \(path): \(e)")
        }
        chmod(path, 0o600)
        guard listen(s, 8) == 0 else { close(s); throw SocketError(description: "cannot listen on \(path)") }
        fd = s
        let t = Thread { [self] in acceptLoop() }
        t.name = "voice-control-socket"
        t.start()
    }

    deinit { shutdown() }

    public func shutdown() {
        let wasOpen = lock.withLock { () -> Bool in defer { closed = true }; return !closed }
        guard wasOpen else { return }
        Glibc.shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        unlink(path)
    }

    private func acceptLoop() {
        while true {
            let client = accept(fd, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            var buffer = [UInt8](repeating: 0, count: 256)
            var timeout = timeval(tv_sec: 1, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let n = read(client, &buffer, buffer.count)
            let line = n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : ""
            let reply: String
            if line == "status" {
                reply = "ok listening\n"
            } else if line.hasPrefix("command "), let command {
                command(String(line.dropFirst("command ".count)))
                reply = "ok\n"
            } else if let action = PushToTalk(rawValue: line.replacingOccurrences(of: "ptt ", with: "")) {
                handler(action)
                reply = "ok\n"
            } else {
                reply = "error: unknown command \"\(line)\" (press, release, toggle, cancel, status)\n"
            }
            _ = reply.withCString { write(client, $0, strlen($0)) }
            close(client)
        }
    }

    /// Sends one command to a running assistant and returns its answer.
    @discardableResult
    public static func send(_ command: String, to path: String) throws -> String {
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard s >= 0 else { throw SocketError(description: "cannot create a socket") }
        defer { close(s) }
        var address = try address(path)
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        guard connected == 0 else {
            throw SocketError(description: "no assistant answers on \(path) (\(String(cString: strerror(errno)))); is `soundscape run` running?")
        }
        let line = command + "\n"
        _ = line.withCString { write(s, $0, strlen($0)) }
        var buffer = [UInt8](repeating: 0, count: 256)
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let n = read(s, &buffer, buffer.count)
        let answer = n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : ""
        guard answer.hasPrefix("ok") else { throw SocketError(description: answer.isEmpty ? "no answer from \(path)" : answer) }
        return answer
    }

    static func address(_ path: String) throws -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { throw SocketError(description: "socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
        return address
    }
}
