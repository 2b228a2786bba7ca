import Dispatch
import CZlib
import Foundation
import Geo
import GRDB

/// Progress of an import, for a progress bar.
public struct MapImportProgress: Sendable {
    public enum Phase: String, Sendable {
        case reading = "Reading"
        case building = "Building features"
        case writing = "Writing database"
        case finishing = "Finishing"
    }
    public var phase: Phase
    /// 0…1 within the phase.
    public var fraction: Double
    /// Bytes of the file read so far and in all, and seconds since reading began, for a rate and the time left.
    public var bytesDone = 0
    public var bytesTotal = 0
    public var seconds = 0.0
    /// What is being read: "nodes", "ways" or "relations".
    public var detail: String?
}

/// What an import did.
public struct MapImportSummary: Sendable, CustomStringConvertible {
    public var sourcePath: String
    public var databasePath: String
    public var blocks = 0
    public var nodes = 0
    public var ways = 0
    public var relations = 0
    public var features = 0
    public var intersections = 0
    public var entranceLists = 0
    public var walkNodes = 0
    public var walkEdges = 0
    /// Node references of ways whose node is not in the file (bbox cuts).
    public var missingNodeRefs = 0
    public var waysWithMissingNodes = 0
    public var databaseBytes: Int64 = 0
    public var seconds = 0.0

    public var description: String {
        let g = MapImportError.grouped
        return """
        Imported \((sourcePath as NSString).lastPathComponent) into \(databasePath)
          nodes \(g(nodes)), ways \(g(ways)), relations \(g(relations)) (\(g(blocks)) blocks)
          features \(g(features)), intersections \(g(intersections)), entrance lists \(g(entranceLists))
          walking graph: \(g(walkNodes)) nodes, \(g(walkEdges)) edges
          missing node references \(g(missingNodeRefs)) in \(g(waysWithMissingNodes)) ways (kept with the nodes that exist)
          database \(String(format: "%.1f", Double(databaseBytes) / 1_048_576)) MB, \(String(format: "%.2f", seconds)) s
          Map data \(MapStore.attribution)
        """
    }
}

/// Imports an OSM PBF file into a map database. The import is built in a temporary file next to
/// the target (`PATH.importing-PID`) inside one transaction, synced, and renamed over the target:
/// whatever fails, the target is left exactly as it was.
public enum MapImporter {
    public static func importPBF(at pbfPath: String, into databasePath: String,
                                 progress: (@Sendable (MapImportProgress) -> Void)? = nil) throws -> MapImportSummary {
        let started = Date()
        let temporaryPath = "\(databasePath).importing-\(getpid())"
        removeDatabaseFiles(temporaryPath)
        removeStaleTemporaries(of: databasePath)
        do {
            var summary = MapImportSummary(sourcePath: pbfPath, databasePath: databasePath)
            // 1. The header, before any database is touched: a file that is no PBF at all fails here.
            var reader = try PBFFrameReader(path: pbfPath)
            defer { reader.close() }
            guard let first = try reader.next() else {
                throw MapImportError(file: pbfPath, offset: 0, block: 1, reason: .emptyFile)
            }
            guard first.type == "OSMHeader" else {
                throw MapImportError(file: pbfPath, offset: 0, block: 1, reason: .notPBF("the first block is not OSMHeader"))
            }
            let header = try PBFDecoder.decodeHeader(first, path: pbfPath)
            summary.blocks = 1
            // 2. One pass over the blocks, writing into the temporary database in one transaction.
            let queue: DatabaseQueue
            do {
                queue = try MapStore.openWritable(path: temporaryPath, fast: true)
            } catch {
                throw MapImportError(file: pbfPath, reason: .database("\(error)"))
            }
            // The file's digest on a thread of its own, while it is read (it is needed only for the metadata).
            let digest = FileDigest(path: pbfPath)
            var writebacks: [EarlyWriteback] = []
            do {
                try queue.inTransaction { db in
                    // Secondary indexes are built once at the end, not row by row; but for `features_key`, which
                    // holds only the intersections' and entrance lists' keys: kept up row by row it costs little,
                    // and built at the end it read the whole table again.
                    let indexes = try Row.fetchAll(db, sql: """
                        SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND name != 'features_key'
                        """)
                    for index in indexes { try db.execute(sql: "DROP INDEX \(index["name"] as String)") }
                    // One thread reads the file and prepares the rows; this one writes them.
                    // The R-tree is built in one pass at the end, packed (see RTreePacker).
                    let packer = try RTreePacker(scratchPath: temporaryPath + "-boxes", source: pbfPath)
                    var writer = try FeatureWriter(db: db)
                    writer.packer = packer
                    let channel = PreparedChannel()
                    let pass = try StreamingImport(path: pbfPath, scratchPrefix: temporaryPath, firstID: writer.nextID,
                                                   channel: channel, progress: progress, summary: summary)
                    let reading = ReadingThread(pass: pass, reader: reader)
                    let finished = DispatchSemaphore(value: 0)
                    Thread.detachNewThread {
                        do {
                            try reading.pass.run(reader: &reading.reader)
                            channel.close(error: nil)
                        } catch {
                            channel.close(error: error)
                        }
                        finished.signal()
                    }
                    do {
                        while let batch = try channel.take() {
                            try writer.write(batch)
                        }
                    } catch {
                        channel.cancel()
                        finished.wait()
                        throw error
                    }
                    finished.wait()
                    writebacks.append(EarlyWriteback(path: temporaryPath))
                    writer = try FeatureWriter(db: db)
                    writer.packer = packer
                    try pass.finish(writer: &writer)
                    releaseFreedMemory()
                    try packer.write(into: db, table: "feature_index")
                    summary = pass.summary
                    progress?(MapImportProgress(phase: .writing, fraction: 0))
                    for index in indexes { try db.execute(sql: index["sql"] as String) }
                    var meta: [String: String] = [
                        "source_file": (pbfPath as NSString).standardizingPath,
                        "source_sha256": digest.value(),
                        "imported_at": ISO8601DateFormatter().string(from: Date()),
                        "attribution": MapStore.attribution,
                        "schema_version": String(MapStore.schemaVersion),
                        "generator": "soundscape import",
                        "node_count": String(summary.nodes),
                        "way_count": String(summary.ways),
                        "relation_count": String(summary.relations),
                        "missing_node_refs": String(summary.missingNodeRefs),
                        "source": "pbf",
                    ]
                    if let b = header.bbox {
                        meta["bbox"] = "\(b.0),\(b.1),\(b.2),\(b.3)"
                    } else if let b = pass.bbox {
                        meta["bbox"] = "\(Double(b.minLat) * 1e-7),\(Double(b.minLon) * 1e-7),\(Double(b.maxLat) * 1e-7),\(Double(b.maxLon) * 1e-7)"
                    }
                    try FeatureWriter(db: db).setMetadata(meta)
                    return .commit
                }
                progress?(MapImportProgress(phase: .finishing, fraction: 0))
                // The commit's pages are written back while the statistics are gathered.
                writebacks.append(EarlyWriteback(path: temporaryPath))
                try queue.writeWithoutTransaction { db in try db.execute(sql: "ANALYZE") }
                try queue.close()
            } catch let error as MapImportError {
                throw error
            } catch {
                throw MapImportError(file: pbfPath, reason: .database("\(error)"))
            }
            // 3. Make the new file durable, then atomically replace the target.
            for writeback in writebacks { writeback.wait() }
            try syncFile(temporaryPath, pbfPath: pbfPath)
            removeDatabaseFiles(databasePath, keepMain: true)
            guard rename(temporaryPath, databasePath) == 0 else {
                throw MapImportError(file: pbfPath, reason: .database("cannot rename \(temporaryPath) to \(databasePath): \(String(cString: strerror(errno)))"))
            }
            syncDirectory(of: databasePath)
            summary.databaseBytes = Int64((try? FileManager.default.attributesOfItem(atPath: databasePath)[.size] as? NSNumber)??.int64Value ?? 0)
            summary.seconds = Date().timeIntervalSince(started)
            progress?(MapImportProgress(phase: .finishing, fraction: 1))
            return summary
        } catch {
            removeDatabaseFiles(temporaryPath)
            throw error
        }
    }

    /// Gives the heap's free memory back to the system. The end phase frees the travel network and the
    /// walking graph's arrays (tens of megabytes at a region's scale, partly in the network thread's own
    /// malloc arena), but malloc keeps most of it, and the R-tree packing that follows made the import's peak.
    static func releaseFreedMemory() {
        _ = malloc_trim(0)
    }

    // MARK: files

    static func removeDatabaseFiles(_ path: String, keepMain: Bool = false) {
        let fm = FileManager.default
        for suffix in keepMain ? ["-journal", "-wal", "-shm"] : ["", "-journal", "-wal", "-shm", "-nodes", "-ways", "-refs", "-boxes",
                                                        "-network-ways", "-network-ids", "-network-lat", "-network-lon"] {
            try? fm.removeItem(atPath: path + suffix)
        }
    }

    /// Deletes `PATH.importing-PID` files left by imports whose process no longer exists.
    static func removeStaleTemporaries(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let base = (path as NSString).lastPathComponent + ".importing-"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory) else { return }
        for entry in entries where entry.hasPrefix(base) {
            let rest = entry.dropFirst(base.count)
            let pidText = rest.prefix { $0.isNumber }
            guard let pid = Int32(pidText), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent(entry))
            }
        }
    }

    private static func syncFile(_ path: String, pbfPath: String) throws(MapImportError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw MapImportError(file: pbfPath, reason: .database("cannot open \(path) to sync it: \(String(cString: strerror(errno)))"))
        }
        defer { close(fd) }
        guard fsync(fd) == 0 else {
            throw MapImportError(file: pbfPath, reason: .database("fsync \(path): \(String(cString: strerror(errno)))"))
        }
    }

    private static func syncDirectory(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
    }
}

/// The SHA-256 of a file, computed on a thread of its own from when it is made; "" when the file
/// cannot be read. Why: hashing a region's file took a tenth of a second or more before the first block
/// was read.
// @unchecked: `hex` is written by the thread before it signals `done`, and read only after waiting for it.
private final class FileDigest: @unchecked Sendable {
    private var hex = ""
    private let done = DispatchSemaphore(value: 0)

    init(path: String) {
        Thread.detachNewThread { [self] in
            hex = (try? SHA256Digest.hexDigest(ofFile: path)) ?? ""
            done.signal()
        }
    }

    /// Waits for the digest.
    func value() -> String {
        done.wait()
        done.signal()
        return hex
    }
}

/// Writes back the temporary database's dirty pages on a thread of its own: from when the read is done (most
/// of the file is written by then) and from the commit (while `ANALYZE` runs), so that the final fsync (about
/// 0.2 s at 100 × Helsinki) has less left to write.
private final class EarlyWriteback: Sendable {
    private let done = DispatchSemaphore(value: 0)

    init(path: String) {
        Thread.detachNewThread { [done] in
            let fd = open(path, O_RDONLY)
            if fd >= 0 {
                _ = fdatasync(fd)
                close(fd)
            }
            done.signal()
        }
    }

    func wait() { done.wait() }
}

/// What the reading thread owns while it runs.
private final class ReadingThread: @unchecked Sendable {
    let pass: StreamingImport
    var reader: PBFFrameReader
    init(pass: StreamingImport, reader: PBFFrameReader) { self.pass = pass; self.reader = reader }
}

/// Joins multipolygon member ways into closed rings.
enum RingAssembler {
    static func rings(_ segments: [[(Int64, Coordinate)]]) -> [[Coordinate]] {
        var pool = segments.filter { $0.count >= 2 }
        var rings: [[Coordinate]] = []
        while !pool.isEmpty {
            var chain = pool.removeFirst()
            while chain.first!.0 != chain.last!.0 {
                let end = chain.last!.0
                guard let next = pool.firstIndex(where: { $0.first!.0 == end || $0.last!.0 == end }) else { break }
                let segment = pool.remove(at: next)
                if segment.first!.0 == end {
                    chain.append(contentsOf: segment.dropFirst())
                } else {
                    chain.append(contentsOf: segment.reversed().dropFirst())
                }
            }
            var ring = chain.map(\.1)
            // A ring cut open by the extract's edge is closed with a straight line: an approximate
            // outline is better than losing the feature.
            if chain.first!.0 != chain.last!.0 { ring.append(ring[0]) }
            if ring.count >= 4 { rings.append(ring) }
        }
        return rings
    }

    static func geometry(outers: [[Coordinate]], inners: [[Coordinate]]) -> FeatureGeometry {
        if outers.count == 1 { return .polygon([outers[0]] + inners) }
        var polygons = outers.map { [$0] }
        for inner in inners {
            let probe = inner[0]
            let owner = outers.firstIndex { contains($0, probe) } ?? 0
            polygons[owner].append(inner)
        }
        return .multiPolygon(polygons)
    }

    static func contains(_ ring: [Coordinate], _ p: Coordinate) -> Bool {
        var inside = false
        var j = ring.count - 1
        for i in 0..<ring.count {
            let a = ring[i], b = ring[j]
            if (a.latitude > p.latitude) != (b.latitude > p.latitude) {
                let x = a.longitude + (p.latitude - a.latitude) * (b.longitude - a.longitude) / (b.latitude - a.latitude)
                if p.longitude < x { inside.toggle() }
            }
            j = i
        }
        return inside
    }
}
