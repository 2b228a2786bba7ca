import App
import Foundation

/// `soundscape run` as a child process, with both recognizers, at a fixed place, the microphone open (the default
/// source: the silent test microphone under scripts/with-test-services) and nothing said: its resident memory and the
/// processor time it takes while idle and listening.
enum RunFootprintBench {
    /// - Parameter environment: the bench's own environment, which the child gets with private XDG folders in place.
    static func run(pbf: String, workDir: String, environment inherited: [String: String], settle: Double = 25,
                    window: Double = 30) throws -> [BenchFigure] {
        let binary = MapBenchChild.soundscape
        let work = URL(fileURLWithPath: workDir).appendingPathComponent("run-footprint")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        var environment = inherited
        for (key, dir) in [("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state"), ("XDG_RUNTIME_DIR", "runtime")] {
            let path = work.appendingPathComponent(dir).path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            environment[key] = path
        }
        let db = work.appendingPathComponent("map.sqlite").path
        if !FileManager.default.fileExists(atPath: db) {
            printError("bench: importing \(pbf) for `soundscape run`…")
            let importer = Process()
            importer.executableURL = URL(fileURLWithPath: binary)
            importer.arguments = ["import", pbf, "--db", db, "--quiet"]
            importer.environment = environment
            try importer.run()
            importer.waitUntilExit()
            guard importer.terminationStatus == 0 else { throw BenchSpeechCache.BenchVoiceError(description: "soundscape import \(pbf) failed") }
        }
        let log = work.appendingPathComponent("run.log").path
        FileManager.default.createFile(atPath: log, contents: nil)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: binary)
        child.arguments = ["run", "--db", db, "--at", "60.1699,24.9410", "--quiet",
                           "--user-db", work.appendingPathComponent("user.sqlite").path,
                           "--control-socket", work.appendingPathComponent("control.sock").path]
        child.environment = environment
        child.standardInput = Pipe()
        child.standardOutput = FileHandle(forWritingAtPath: log)
        child.standardError = FileHandle(forWritingAtPath: log)
        try child.run()
        defer {
            if child.isRunning { child.terminate() }
            child.waitUntilExit()
        }
        let pid = child.processIdentifier
        printError("bench: `soundscape run` (pid \(pid)) started; measuring after \(Int(settle)) s for \(Int(window)) s…")
        Thread.sleep(forTimeInterval: settle)
        guard child.isRunning, let cpu0 = cpuTicks(pid) else {
            throw BenchSpeechCache.BenchVoiceError(description: "soundscape run ended early; see \(log)")
        }
        let wall0 = Date()
        var peak = 0.0, last = 0.0
        while Date().timeIntervalSince(wall0) < window {
            Thread.sleep(forTimeInterval: 1)
            if let kib = residentKiB(pid) { last = kib / 1024; peak = max(peak, last) }
        }
        guard let cpu1 = cpuTicks(pid) else { throw BenchSpeechCache.BenchVoiceError(description: "soundscape run ended early; see \(log)") }
        let seconds = Date().timeIntervalSince(wall0)
        let hz = Double(sysconf(Int32(_SC_CLK_TCK)))
        let cpu = 100 * Double(cpu1 - cpu0) / hz / seconds
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let whisper = !text.contains("PocketSphinx alone decides")
        let problems = text.split(separator: "\n").filter { $0.contains("Problem") }
        if !problems.isEmpty { printError("bench: `soundscape run` said: \(problems.joined(separator: "; "))") }
        let what = whisper ? "both recognizers" : "PocketSphinx only (no Whisper)"
        let figures = [
            BenchFigure.atMost("soundscape run resident memory, \(what), idle and listening (peak over \(Int(window)) s)", peak, "MB", 250),
            BenchFigure.atMost("soundscape run CPU, idle and listening, microphone open, no speech", cpu, "% of a core", 3),
        ]
        for f in figures { printError("bench: \(f.name): \(String(format: "%.2f", f.value)) \(f.unit)") }
        return figures
    }

    static func residentKiB(_ pid: Int32) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return line.split(separator: " ").compactMap { Double($0) }.first
    }

    /// User and system clock ticks of the process (fields 14 and 15 of /proc/PID/stat).
    static func cpuTicks(_ pid: Int32) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }
}
