/// Where gpsd listens: host and TCP port (gpsd's default is 127.0.0.1:2947).
public struct GpsdEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public static let `default` = GpsdEndpoint(host: "127.0.0.1", port: 2947)

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses "HOST:PORT", "HOST" (default port) or "[IPv6]:PORT".
    public init?(_ text: String) {
        var host = Substring(text)
        var port: UInt16 = 2947
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if rest.hasPrefix(":") { guard let p = UInt16(rest.dropFirst()) else { return nil }; port = p }
        } else if let colon = host.lastIndex(of: ":"), host.firstIndex(of: ":") == colon {
            guard let p = UInt16(host[host.index(after: colon)...]) else { return nil }
            port = p
            host = host[..<colon]
        }
        guard !host.isEmpty else { return nil }
        self.host = String(host)
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
