import Foundation

/// Looks for a Linux compass offered by iio-sensor-proxy over D-Bus (`net.hadess.SensorProxy.Compass`), for
/// `soundscape doctor`: asks once with the `gdbus` command, when it is installed, and says plainly what it found.
/// `run` reads the compass itself (``SensorProxyCompass``).
public enum CompassProbe {
    public enum Result: Sendable, Equatable, CustomStringConvertible {
        /// iio-sensor-proxy reports a compass; `run` reads it.
        case present
        case notPresent(reason: String)
        /// There is a compass service, but the bus's policy does not let this user read it.
        case denied(reason: String)

        public var description: String {
            switch self {
            case .present: return "iio-sensor-proxy has a compass; soundscape run reads it for the direction you face"
            case .notPresent(let reason): return "no compass: \(reason)"
            case .denied(let reason): return "the compass cannot be read: \(reason)"
            }
        }
    }

    /// Runs `gdbus` once (at most `timeout` seconds) and interprets the answer.
    public static func detect(timeout: TimeInterval = 2) -> Result {
        guard let gdbus = ["/usr/bin/gdbus", "/bin/gdbus", "/usr/local/bin/gdbus"].first(where: FileManager.default.isExecutableFile) else {
            return .notPresent(reason: "the gdbus command is not installed (package libglib2.0-bin), so D-Bus cannot be asked")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gdbus)
        process.arguments = ["call", "--system", "--timeout", "\(max(1, Int(timeout)))",
                             "--dest", "net.hadess.SensorProxy", "--object-path", "/net/hadess/SensorProxy/Compass",
                             "--method", "org.freedesktop.DBus.Properties.Get", "net.hadess.SensorProxy.Compass", "HasCompass"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch { return .notPresent(reason: "gdbus did not start (\(error))") }
        let deadline = Date().addingTimeInterval(timeout + 1)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate(); return .notPresent(reason: "D-Bus did not answer in time") }
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return interpret(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }

    /// Turns gdbus's output into a result (pure, for tests).
    public static func interpret(status: Int32, stdout: String, stderr: String) -> Result {
        if status == 0 {
            return stdout.contains("true") ? .present : .notPresent(reason: "iio-sensor-proxy runs but this machine has no compass")
        }
        if stderr.contains("ServiceUnknown") || stderr.contains("was not provided by any") {
            return .notPresent(reason: "iio-sensor-proxy is not running (it is the service that offers compasses)")
        }
        if stderr.contains("AccessDenied") {
            return .denied(reason: "the D-Bus policy of iio-sensor-proxy lets only the geoclue user use its compass; "
                + "allow your user to send to net.hadess.SensorProxy.Compass in a file in /etc/dbus-1/system.d/ (see the README)")
        }
        if stderr.contains("UnknownObject") || stderr.contains("UnknownInterface") || stderr.contains("UnknownProperty") {
            return .notPresent(reason: "this iio-sensor-proxy offers no compass interface")
        }
        if stderr.contains("Could not connect") || stderr.contains("No such file") || stderr.contains("connect:") {
            return .notPresent(reason: "there is no D-Bus system bus to ask")
        }
        let first = stderr.split(separator: "\n").first.map(String.init) ?? "gdbus exited with status \(status)"
        return .notPresent(reason: first)
    }
}
