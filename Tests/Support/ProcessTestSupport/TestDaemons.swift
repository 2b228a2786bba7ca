import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What scripts/with-test-services provides, read from the environment, and the package's files.
public enum Harness {
    public struct NotUnderHarness: Error, CustomStringConvertible {
        public var description: String {
            "these tests need the real daemons: run them as `scripts/with-test-services swift test` (make test does)"
        }
    }

    public static var environment: [String: String] { ProcessInfo.processInfo.environment }

    public static func require() throws {
        guard environment["SOUNDSCAPE_TEST_SERVICES"] == "1" else { throw NotUnderHarness() }
    }

    /// The package's root folder (three levels above this file's folder).
    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    public static var dataDirectory: URL {
        environment["SOUNDSCAPE_DATA"].map { URL(fileURLWithPath: $0) } ?? packageRoot.appendingPathComponent(".data")
    }

    /// The built `soundscape`, next to the test bundle in <scratch>/<configuration>/.
    public static var soundscape: String {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("soundscape")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            dir = dir.deletingLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/soundscape").path
    }

    public static func temporaryDirectory(_ name: String = "test") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("soundscape-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A port nobody listens on now.
    public static func freePort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    public static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Child processes of `parent` whose command name is `name` (gpsfake starts gpsd itself).
    public static func children(of parent: pid_t, named name: String) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, pid_t(fields[1]) == parent, stat.contains("(\(name))") else { return nil }
            return pid
        }
    }
}

/// A map database imported once per test run from the bundled Helsinki extract, by the real `import` command.
public actor HelsinkiMap {
    public static let shared = HelsinkiMap()
    private var path: String?

    public func database() async throws -> String {
        if let path { return path }
        // Kept between runs while the program and the extract stay the same (named after both).
        let pbf = Harness.dataDirectory.appendingPathComponent("osm/Helsinki.osm.pbf").path
        func stamp(_ path: String) -> String {
            let a = try? FileManager.default.attributesOfItem(atPath: path)
            return "\(Int((a?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0))-\((a?[.size] as? NSNumber)?.intValue ?? 0)"
        }
        let name = "soundscape-test-map-\(stamp(Harness.soundscape))-\(stamp(pbf)).sqlite"
        let tmp = FileManager.default.temporaryDirectory
        let db = tmp.appendingPathComponent(name).path
        if !FileManager.default.fileExists(atPath: db) {
            for old in (try? FileManager.default.contentsOfDirectory(atPath: tmp.path)) ?? [] where old.hasPrefix("soundscape-test-map-") {
                try? FileManager.default.removeItem(at: tmp.appendingPathComponent(old))
            }
            let partial = db + ".importing-\(getpid())"
            try await runToEnd([Harness.soundscape, "import", pbf, "--db", partial], timeout: 300)
            try FileManager.default.moveItem(atPath: partial, toPath: db)
        }
        path = db
        return db
    }
}

/// A gpsd of the test's own, fed by gpsfake looping an NMEA log on a fixed port, so that it can be killed
/// (SIGKILL: a crash, no goodbye to clients) and started again where clients look for it.
public final class GpsfakeDaemon: @unchecked Sendable {
    public let port: UInt16
    public let log: String
    private var gpsfake: ChildProcess?

    public init(log: String, port: UInt16 = Harness.freePort()) {
        self.log = log
        self.port = port
    }

    public var address: String { "127.0.0.1:\(port)" }

    public func start(cycle: Double = 0.2) async throws {
        let child = try ChildProcess(["gpsfake", "-q", "-c", String(cycle), "-P", String(port), "-S", log])
        gpsfake = child
        let deadline = Date().addingTimeInterval(15)
        while !Harness.accepts(port) {
            guard Date() < deadline, child.isRunning else {
                kill9()
                throw ChildProcess.SpawnFailed(description: "gpsfake did not open port \(port): \(child.stderr)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Kills gpsd and gpsfake by PID and reaps gpsfake.
    public func kill9() {
        guard let child = gpsfake else { return }
        for pid in Harness.children(of: child.pid, named: "gpsd") { kill(pid, SIGKILL) }
        child.signal(SIGKILL)
        var status: Int32 = 0
        if child.isRunning { waitpid(child.pid, &status, 0) }
        gpsfake = nil
    }

    deinit { kill9() }
}

/// A PulseAudio daemon of the test's own (the same command line as scripts/with-test-services: a null sink `spk`,
/// and a virtual microphone `vmic` fed from the null sink `micsink`).
public final class PrivatePulseAudio: @unchecked Sendable {
    public let directory: URL
    private var daemon: ChildProcess?
    public var server: String { "unix:\(directory.path)/xdg/pulse/native" }

    public init() throws {
        directory = try Harness.temporaryDirectory("pulse")
        for sub in ["xdg", "home"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        chmod(directory.appendingPathComponent("xdg").path, 0o700)
    }

    /// What a client of this server needs in its environment.
    public var clientEnvironment: [String: String] {
        ["PULSE_SERVER": server, "XDG_RUNTIME_DIR": directory.appendingPathComponent("xdg").path,
         "PULSE_COOKIE": directory.appendingPathComponent("cookie").path]
    }

    public func start() async throws {
        var env = clientEnvironment
        env["HOME"] = directory.appendingPathComponent("home").path
        daemon = try ChildProcess(["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit", "--use-pid-file=no",
                                   "--log-target=file:\(directory.path)/pulse.log",
                                   "--load=module-native-protocol-unix auth-anonymous=1",
                                   "--load=module-null-sink sink_name=spk rate=48000 channels=2",
                                   "--load=module-null-sink sink_name=micsink rate=16000 channels=1",
                                   "--load=module-remap-source master=micsink.monitor source_name=vmic channels=1",
                                   "--load=module-always-sink"], environment: env)
        for _ in 0..<100 {
            if (try? await pactl(["info"])) != nil {
                try await pactl(["set-default-sink", "spk"])
                try await pactl(["set-default-source", "vmic"])
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ChildProcess.SpawnFailed(description: "PulseAudio did not start")
    }

    @discardableResult
    public func pactl(_ arguments: [String]) async throws -> String {
        try await runToEnd(["pactl"] + arguments, environment: clientEnvironment, timeout: 10)
    }

    /// Unplugs the virtual microphone `vmic` (unloads its module); the default source falls to a monitor.
    public func unloadMicrophone() async throws {
        let modules = try await pactl(["list", "short", "modules"])
        guard let line = modules.split(separator: "\n").first(where: { $0.contains("module-remap-source") && $0.contains("source_name=vmic") }),
              let index = line.split(separator: "\t").first else {
            throw ChildProcess.SpawnFailed(description: "no virtual microphone to unload among the modules: \(modules)")
        }
        try await pactl(["unload-module", String(index)])
    }

    public func kill9() {
        guard let daemon else { return }
        daemon.signal(SIGKILL)
        var status: Int32 = 0
        if daemon.isRunning { waitpid(daemon.pid, &status, 0) }
        self.daemon = nil
    }

    deinit {
        kill9()
        try? FileManager.default.removeItem(at: directory)
    }
}
