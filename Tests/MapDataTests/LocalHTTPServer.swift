import Foundation
import MapTestSupport
#if canImport(Glibc)
import Glibc
#endif
@testable import MapData

/// A tiny HTTP/1.1 file server on 127.0.0.1 for the tile-client tests: GET only, one request per
/// connection, strong ETags (SHA-256 of the body) and `If-None-Match` → 304.
final class LocalHTTPServer: @unchecked Sendable {
    struct Request: Sendable {
        var path: String
        var ifNoneMatch: String?
        var status: Int
    }

    let root: URL
    private(set) var port: UInt16 = 0
    private let listenFD: Int32
    private let lock = NSLock()
    private var log: [Request] = []
    private var stopped = false

    var requests: [Request] { lock.lock(); defer { lock.unlock() }; return log }
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    init(root: URL) throws {
        self.root = root
        listenFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listenFD >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(listenFD, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listenFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listenFD, 64) == 0 else {
            close(listenFD)
            throw TestFailure("bind/listen: \(String(cString: strerror(errno)))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listenFD, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
        shutdown(listenFD, Int32(SHUT_RDWR))
        close(listenFD)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listenFD, nil, nil)
            if client < 0 {
                lock.lock()
                let done = stopped
                lock.unlock()
                if done || errno == EBADF || errno == EINVAL { return }
                continue
            }
            handle(client)
            close(client)
        }
    }

    private func handle(_ fd: Int32) {
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while buffer.count < 65_536 {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { break }
            buffer.append(contentsOf: chunk[0..<n])
            if buffer.count >= 4, String(decoding: buffer.suffix(4), as: UTF8.self) == "\r\n\r\n" { break }
            if String(decoding: buffer, as: UTF8.self).contains("\r\n\r\n") { break }
        }
        let text = String(decoding: buffer, as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        let requestLine = lines.first?.split(separator: " ") ?? []
        guard requestLine.count >= 2, requestLine[0] == "GET" else {
            respond(fd, status: 405, reason: "Method Not Allowed", headers: [:], body: Data())
            return
        }
        let path = String(requestLine[1])
        var ifNoneMatch: String?
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "if-none-match" {
                ifNoneMatch = parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        let file = root.appendingPathComponent(String(path.drop { $0 == "/" }))
        guard !path.contains(".."), let body = try? Data(contentsOf: file) else {
            record(path, ifNoneMatch, 404)
            respond(fd, status: 404, reason: "Not Found", headers: [:], body: Data("not found".utf8))
            return
        }
        let etag = "\"" + SHA256Digest.hexDigest(of: body).prefix(20) + "\""
        if ifNoneMatch == etag {
            record(path, ifNoneMatch, 304)
            respond(fd, status: 304, reason: "Not Modified", headers: ["ETag": etag], body: Data())
            return
        }
        record(path, ifNoneMatch, 200)
        respond(fd, status: 200, reason: "OK", headers: ["ETag": etag, "Content-Type": "application/json"], body: body)
    }

    private func record(_ path: String, _ ifNoneMatch: String?, _ status: Int) {
        lock.lock()
        log.append(Request(path: path, ifNoneMatch: ifNoneMatch, status: status))
        lock.unlock()
    }

    private func respond(_ fd: Int32, status: Int, reason: String, headers: [String: String], body: Data) {
        var head = "HTTP/1.1 \(status) \(reason)\r\nConnection: close\r\n"
        if status != 304 { head += "Content-Length: \(body.count)\r\n" }
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        head += "\r\n"
        var out = Data(head.utf8)
        if status != 304 { out.append(body) }
        out.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if n <= 0 { break }
                sent += n
            }
        }
    }
}
