import Foundation
import Geo
import App
import MapData

/// Map figures for `soundscape-bench`: import time and peak memory of `soundscape import` on the
/// given extract (run as a child process so its peak RSS is its own), the size of what it built, and
/// query latencies over 10,000 random points inside the extract.
func runMapBench(pbf: String, workDir: String, importRuns: Int = 3, queryPoints: Int = 10_000) async throws -> [BenchFigure] {
    try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
    let dbPath = (workDir as NSString).appendingPathComponent("bench-map.sqlite")
    var figures: [BenchFigure] = []

    // Import, in a fresh process each time.
    var walls: [Double] = []
    var peakKB = 0
    for _ in 0..<max(1, importRuns) {
        try? FileManager.default.removeItem(atPath: dbPath)
        let run = try MapBenchChild.run(arguments: ["import", pbf, "--db", dbPath, "--quiet"])
        guard run.status == 0 else {
            throw MapBenchError(description: "soundscape import exited with status \(run.status)")
        }
        walls.append(run.seconds)
        peakKB = max(peakKB, run.maxRSSKilobytes)
    }
    let name = (pbf as NSString).lastPathComponent
    figures.append(.atMost("Import \(name): wall time (median of \(walls.count))", walls.sorted()[walls.count / 2], "s", 2))
    figures.append(.atMost("Import \(name): peak RSS", Double(peakKB) / 1024, "MB", 150))

    let view = try SpatialDataView(path: dbPath)
    let counts = try MapStore.statistics(path: dbPath)
    figures.append(BenchFigure("Features", Double(counts.features), "", target: nil))
    figures.append(BenchFigure("Intersections", Double(counts.intersections), "", target: nil))
    figures.append(BenchFigure("Walking graph edges", Double(counts.walkEdges), "", target: nil))
    let size = (try? FileManager.default.attributesOfItem(atPath: dbPath)[.size] as? NSNumber)??.doubleValue ?? 0
    figures.append(BenchFigure("Map database size", size / 1_048_576, "MB", target: nil))

    // Query latency at random points inside the extract's bounding box.
    let bbox = view.metadata.bbox ?? [60.1641551, 24.9351766, 60.1791074, 24.9534132]
    var random = SplitMix64(seed: 0x5EED_0F_A9)
    let points = (0..<queryPoints).map { _ in
        Coordinate(latitude: bbox[0] + random.uniform() * (bbox[2] - bbox[0]),
                   longitude: bbox[1] + random.uniform() * (bbox[3] - bbox[1]))
    }
    let headings = (0..<queryPoints).map { _ in random.uniform() * 360 }
    // Warm the page cache and statement caches first.
    for p in points.prefix(200) {
        _ = try view.nearestPerQuadrant(around: p, heading: 0, radius: 200)
        _ = try view.features(near: p, radius: 50)
        _ = try view.nearestIntersection(to: p)
    }
    func measure(_ body: (Int) throws -> Void) rethrows -> Percentiles {
        var samples: [Double] = []
        samples.reserveCapacity(points.count)
        for i in points.indices {
            let start = DispatchTime.now().uptimeNanoseconds
            try body(i)
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        return Percentiles(samples)
    }
    let quadrants = try measure { i in _ = try view.nearestPerQuadrant(around: points[i], heading: headings[i], radius: 200) }
    let within = try measure { i in _ = try view.features(near: points[i], radius: 50) }
    let intersection = try measure { i in _ = try view.nearestIntersection(to: points[i]) }
    for (label, p) in [("nearest per 90° sector ≤ 200 m", quadrants), ("features within 50 m", within),
                       ("nearest intersection + roads", intersection)] {
        figures.append(BenchFigure("Query \(label): p50", p.at(50), "ms", target: nil))
        figures.append(.atMost("Query \(label): p99", p.at(99), "ms", 2))
    }
    return figures
}

struct MapBenchError: Error, CustomStringConvertible {
    var description: String
}

/// Runs the `soundscape` program (or another executable) as a child and reports its wall time and peak RSS (from wait4).
enum MapBenchChild {
    struct Result { var status: Int32; var seconds: Double; var maxRSSKilobytes: Int }

    /// The `soundscape` executable built beside this one (`.build/release/soundscape` next to `soundscape-bench`).
    static var soundscape: String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("soundscape").path
    }

    static func run(arguments: [String], executable other: String? = nil) throws -> Result {
        let executable = other ?? soundscape
        let argv = [executable] + arguments
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { for p in cArgs where p != nil { free(p) } }
        var pid: pid_t = 0
        var fileActions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fileActions)
        defer { posix_spawn_file_actions_destroy(&fileActions) }
        posix_spawn_file_actions_addopen(&fileActions, 1, "/dev/null", O_WRONLY, 0)
        let start = DispatchTime.now().uptimeNanoseconds
        let spawned = posix_spawn(&pid, executable, &fileActions, nil, &cArgs, environ)
        guard spawned == 0 else {
            throw MapBenchError(description: "cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw MapBenchError(description: "wait4: \(String(cString: strerror(errno)))") }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let exitStatus: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Result(status: exitStatus, seconds: seconds, maxRSSKilobytes: Int(usage.ru_maxrss))
    }
}

