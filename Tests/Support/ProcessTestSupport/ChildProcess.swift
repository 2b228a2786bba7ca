import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A program started by a test and watched while it runs: its standard output and error are collected as they
/// come (so a test can wait for a line), its standard input stays open for typed commands, and the test can
/// signal it, read its memory, and reap it.
///
/// Spawned with `posix_spawn` and reaped with `waitpid`, not with Foundation's `Process`, whose child bookkeeping
/// can hang when several children are waited for at once.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    public let command: [String]
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()
    private var exitStatus: Int32?
    private var stdinFD: Int32
    private let readersDone = DispatchGroup()

    /// Starts `arguments[0]` (looked up on PATH when it has no slash) with the test's environment plus `environment`.
    /// - Parameter stdout: a file to send standard output to instead of collecting it (a recorder's audio).
    public init(_ arguments: [String], environment: [String: String] = [:], stdout path: String? = nil) throws {
        command = arguments
        var inPipe: [Int32] = [0, 0], outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
        guard pipe(&inPipe) == 0, pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        // Not inherited by other children the test starts (the child gets its ends through dup2).
        for fd in inPipe + outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        if let path {
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        }
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        let env = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let cArgs = arguments.map { strdup($0) } + [nil]
        let cEnv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (cArgs + cEnv).forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawnp(&child, arguments[0], &actions, nil, cArgs, cEnv)
        close(inPipe[0]); close(outPipe[1]); close(errPipe[1])
        guard rc == 0 else {
            close(inPipe[1]); close(outPipe[0]); close(errPipe[0])
            throw SpawnFailed(description: "cannot start \(arguments[0]): \(String(cString: strerror(rc)))")
        }
        pid = child
        stdinFD = inPipe[1]
        for (fd, isOut) in [(outPipe[0], true), (errPipe[0], false)] {
            readersDone.enter()
            let thread = Thread { [weak self, readersDone] in
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { break }
                    self?.append(Data(buffer[0..<n]), toOut: isOut)
                }
                close(fd)
                readersDone.leave()
            }
            thread.name = "child-\(child)-\(isOut ? "out" : "err")"
            thread.start()
        }
    }

    public struct SpawnFailed: Error, CustomStringConvertible { public var description: String }

    private func append(_ data: Data, toOut: Bool) {
        lock.lock(); defer { lock.unlock() }
        if toOut { out.append(data) } else { err.append(data) }
    }

    /// Everything the program has printed to standard output so far.
    public var stdout: String { lock.lock(); defer { lock.unlock() }; return String(decoding: out, as: UTF8.self) }
    public var stderr: String { lock.lock(); defer { lock.unlock() }; return String(decoding: err, as: UTF8.self) }
    public var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

    /// Writes a line to the program's standard input.
    public func type(_ line: String) {
        lock.lock(); let fd = stdinFD; lock.unlock()
        guard fd >= 0 else { return }
        let bytes = Array((line + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            written += n
        }
    }

    /// Ends the program's standard input (end of file).
    public func closeInput() {
        lock.lock(); defer { lock.unlock() }
        if stdinFD >= 0 { close(stdinFD); stdinFD = -1 }
    }

    /// Waits until standard output satisfies `condition` (checked every 50 ms); false after `timeout` seconds
    /// or when the program has ended without it.
    @discardableResult
    public func waitForOutput(timeout: Double, _ condition: (String) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(stdout) { return true }
            if !isRunning { return condition(stdout) }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition(stdout)
    }

    /// Waits for `text` to appear on standard output `count` times in all.
    @discardableResult
    public func waitFor(_ text: String, count: Int = 1, timeout: Double) async -> Bool {
        await waitForOutput(timeout: timeout) { $0.occurrences(of: text) >= count }
    }

    /// Whether the program still runs (reaps it when it has ended).
    public var isRunning: Bool {
        lock.lock(); defer { lock.unlock() }
        if exitStatus != nil { return false }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid { exitStatus = status; return false }
        return r == 0
    }

    public func signal(_ sig: Int32) { if isRunning { kill(pid, sig) } }

    /// Waits for the program to end, at most `timeout` seconds (then kills it with SIGKILL), and for its output
    /// to be read to the end. Returns how it ended.
    @discardableResult
    public func wait(timeout: Double = 30) async -> Termination {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        var timedOut = false
        if isRunning {
            timedOut = true
            kill(pid, SIGKILL)
            while isRunning { try? await Task.sleep(for: .milliseconds(10)) }
        }
        closeInput()
        _ = readersDone.wait(timeout: .now() + 5)
        return Termination(rawStatus: recordedStatus, timedOut: timedOut)
    }

    private var recordedStatus: Int32 { lock.withLock { exitStatus ?? 0 } }

    public struct Termination: Sendable, CustomStringConvertible {
        public var rawStatus: Int32
        public var timedOut: Bool
        /// The exit code when the program exited, nil when a signal ended it.
        public var exitCode: Int32? { rawStatus & 0x7f == 0 ? (rawStatus >> 8) & 0xff : nil }
        public var signal: Int32? { rawStatus & 0x7f == 0 ? nil : rawStatus & 0x7f }
        public var description: String {
            (timedOut ? "timed out, " : "") + (exitCode.map { "exit \($0)" } ?? "signal \(signal ?? 0)")
        }
    }

    /// Resident memory in KiB (VmRSS of /proc/PID/status), nil once the program has ended.
    public var residentKiB: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }

    deinit {
        if isRunning { kill(pid, SIGKILL); var s: Int32 = 0; waitpid(pid, &s, 0) }
        if stdinFD >= 0 { close(stdinFD) }
    }
}

extension String {
    public func occurrences(of text: String) -> Int {
        guard !text.isEmpty else { return 0 }
        return components(separatedBy: text).count - 1
    }
}

/// Runs a program to its end and returns its output; throws with its stderr when it fails.
@discardableResult
public func runToEnd(_ arguments: [String], environment: [String: String] = [:], timeout: Double = 60) async throws -> String {
    let child = try ChildProcess(arguments, environment: environment)
    let end = await child.wait(timeout: timeout)
    guard end.exitCode == 0 else {
        throw ChildProcess.SpawnFailed(description: "\(arguments.joined(separator: " ")) ended with \(end): \(child.stderr)\(child.stdout)")
    }
    return child.stdout
}
