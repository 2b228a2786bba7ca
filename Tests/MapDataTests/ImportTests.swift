import Foundation
import GRDB
@testable import MapData
import MapTestSupport
import Testing

@Suite("PBF import")
struct ImportTests {
    @Test("element counts and missing node references match osmium")
    func countsMatchOsmium() async throws {
        let helsinki = try await SharedHelsinki.get()
        let pbf = try TestData.helsinki()
        // `osmium fileinfo -e` → "Number of nodes: 24260", ways 5130, relations 620.
        let info = try Osmium.run(["fileinfo", "-e", pbf])
        func number(_ label: String) -> Int? {
            info.split(separator: "\n").first { $0.contains(label) }
                .flatMap { Int($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) }
        }
        #expect(helsinki.summary.nodes == number("Number of nodes"))
        #expect(helsinki.summary.ways == number("Number of ways"))
        #expect(helsinki.summary.relations == number("Number of relations"))
        #expect(helsinki.summary.nodes == 24_260)
        // `osmium check-refs` → "Nodes     in ways      missing: 4525".
        let refs = try Osmium.run(["check-refs", pbf], acceptFailure: true)
        let missingLine = refs.split(separator: "\n").first { $0.contains("in ways") && $0.contains("missing") }
        let osmiumMissing = missingLine.flatMap { Int($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) }
        #expect(osmiumMissing == 4_525)
        #expect(helsinki.summary.missingNodeRefs == osmiumMissing)
        #expect(helsinki.summary.waysWithMissingNodes > 0)
        #expect(helsinki.summary.features > 5_000)
        #expect(helsinki.summary.intersections > 1_000)
    }

    @Test("metadata records the source, its SHA-256 and the attribution")
    func metadata() async throws {
        let helsinki = try await SharedHelsinki.get()
        let meta = helsinki.view.metadata
        #expect(meta.attribution == "© OpenStreetMap contributors")
        // The pinned digest of the extract (docs: test-data.md §1).
        #expect(meta.sourceSHA256 == "b73e9c2c82054d654209b0127f1c3287d5900d6780a6083bf3a45ead8ba3e5ee")
        #expect(meta.sourceFile?.hasSuffix("Helsinki.osm.pbf") == true)
        let bbox = try #require(meta.bbox)
        #expect(bbox.count == 4)
        #expect(abs(bbox[0] - 60.164155) < 0.001 && abs(bbox[3] - 24.9534145) < 0.001)
        #expect(meta.importedAt != nil)
    }

    @Test("a truncated PBF fails and leaves the existing database byte for byte unchanged")
    func truncatedLeavesDatabaseUnchanged() async throws {
        let helsinki = try await SharedHelsinki.get()
        let pbf = try TestData.helsinki()
        let dir = try TestData.temporaryDirectory("truncated")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("map.sqlite").path
        try FileManager.default.copyItem(atPath: helsinki.databasePath, toPath: db)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let beforeDigest = SHA256Digest.hexDigest(of: before)

        let full = try Data(contentsOf: URL(fileURLWithPath: pbf))
        // Cut inside the last (largest) blob, inside a block header, and inside a length prefix.
        for cut in [full.count * 3 / 5, full.count - 1, 2, 20] {
            let truncated = dir.appendingPathComponent("Helsinki-cut.osm.pbf").path
            try full.prefix(cut).write(to: URL(fileURLWithPath: truncated))
            let error = try #require(throws: MapImportError.self) {
                try MapImporter.importPBF(at: truncated, into: db)
            }
            let text = error.description
            #expect(text.contains("Helsinki-cut.osm.pbf"), "error names the file: \(text)")
            #expect(text.contains("block"), "error names the block: \(text)")
            #expect(error.offset != nil && error.block != nil)
            if cut == full.count * 3 / 5 {
                guard case .truncatedBlob(let expected, let found) = error.reason else {
                    Issue.record("expected a truncated blob, got \(text)")
                    continue
                }
                #expect(found < expected)
                #expect(text.contains("truncated blob at byte"))
            }
            let after = try Data(contentsOf: URL(fileURLWithPath: db))
            #expect(after == before)
            #expect(SHA256Digest.hexDigest(of: after) == beforeDigest)
        }
        // sha256sum agrees with our digest (our digest code is not the only judge).
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        shell.arguments = [db]
        let pipe = Pipe()
        shell.standardOutput = pipe
        try shell.run()
        shell.waitUntilExit()
        let sum = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).prefix(64)
        #expect(String(sum) == beforeDigest)
        // No temporary files are left behind.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".importing-") }
        #expect(leftovers.isEmpty)
        // The untouched database still opens and answers.
        let view = try SpatialDataView(path: db)
        #expect(try view.lookup(spokenName: "Kauppatori").isEmpty == false)
    }

    @Test("a map database that is missing, not SQLite, or another program's SQLite is refused with an error that names it")
    func openingWhatIsNoMapSaysWhichFile() throws {
        let dir = try TestData.temporaryDirectory("notamap")
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("map.sqlite").path
        let absent = try #require(throws: MapOpenError.self) { try SpatialDataView(path: missing) }
        #expect(absent.reason == nil)
        #expect(absent.description.contains(missing) && absent.description.contains("soundscape import"), "\(absent)")
        #expect(!FileManager.default.fileExists(atPath: missing), "opening for reading creates nothing")

        let text = dir.appendingPathComponent("notes.sqlite").path
        try Data("these are my notes, not a database\n".utf8).write(to: URL(fileURLWithPath: text))
        let garbage = try #require(throws: MapOpenError.self) { try SpatialDataView(path: text) }
        #expect(garbage.reason != nil && garbage.description.contains(text), "\(garbage)")

        let other = dir.appendingPathComponent("other.sqlite").path
        try DatabaseQueue(path: other).write { try $0.execute(sql: "CREATE TABLE markers (name TEXT)") }
        let foreign = try #require(throws: MapOpenError.self) { try SpatialDataView(path: other) }
        #expect(foreign.reason?.contains("metadata") == true, "\(foreign)")
        #expect(foreign.description.contains(other) && foreign.description.contains("import the map again"), "\(foreign)")

        // A map imported by an older version stores geometry in another encoding: it is refused, not misread.
        let older = dir.appendingPathComponent("older.sqlite").path
        try DatabaseQueue(path: older).write { db in
            try db.execute(sql: "CREATE TABLE metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO metadata VALUES ('schema_version', '1')")
        }
        let outdated = try #require(throws: MapOpenError.self) { try SpatialDataView(path: older) }
        #expect(outdated.reason?.contains("older") == true, "\(outdated)")
        #expect(outdated.description.contains(older) && outdated.description.contains("import the map again"), "\(outdated)")
        // So is one of the format just before this one (format 5 kept the walking graph and the legs in rows).
        let previous = dir.appendingPathComponent("previous.sqlite").path
        try DatabaseQueue(path: previous).write { db in
            try db.execute(sql: "CREATE TABLE metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO metadata VALUES ('schema_version', ?)", arguments: [String(MapStore.schemaVersion - 1)])
        }
        let refused = try #require(throws: MapOpenError.self) { try SpatialDataView(path: previous) }
        #expect(refused.reason?.contains("format \(MapStore.schemaVersion - 1)") == true, "\(refused)")
        #expect(refused.description.contains("import the map again"), "\(refused)")
    }

    @Test("empty file, wrong magic and XML are rejected with a clear error and no database")
    func badFiles() throws {
        let dir = try TestData.temporaryDirectory("badfiles")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("map.sqlite").path
        let cases: [(String, Data, (MapImportError.Reason) -> Bool)] = [
            ("empty.osm.pbf", Data(), { if case .emptyFile = $0 { return true }; return false }),
            ("magic.osm.pbf", Data([0xDE, 0xAD, 0xBE, 0xEF] + [UInt8](repeating: 7, count: 60)),
             { if case .notPBF = $0 { return true }; return false }),
            ("xml.osm.pbf", Data("<?xml version='1.0'?><osm version='0.6'></osm>".utf8),
             { if case .notPBF = $0 { return true }; return false }),
            ("gzip.osm.pbf", Data([0x1F, 0x8B, 0x08, 0x00, 1, 2, 3, 4]), { if case .notPBF = $0 { return true }; return false }),
        ]
        for (name, bytes, matches) in cases {
            let path = dir.appendingPathComponent(name).path
            try bytes.write(to: URL(fileURLWithPath: path))
            let error = try #require(throws: MapImportError.self) { try MapImporter.importPBF(at: path, into: db) }
            #expect(matches(error.reason), "\(name): \(error)")
            #expect(error.description.contains(name))
            #expect(!FileManager.default.fileExists(atPath: db), "no database is created for \(name)")
        }
        let missing = try #require(throws: MapImportError.self) {
            try MapImporter.importPBF(at: dir.appendingPathComponent("nope.osm.pbf").path, into: db)
        }
        #expect(missing.description.contains("nope.osm.pbf"))
    }

    @Test("a blob that does not inflate names its byte offset and block")
    func corruptBlob() async throws {
        let helsinki = try await SharedHelsinki.get()
        let pbf = try TestData.helsinki()
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: pbf)))
        // Walk the frames by hand: 4-byte length, BlobHeader (datasize is field 3), Blob.
        var offset = 0
        var frames: [(start: Int, blobStart: Int, blobSize: Int)] = []
        while offset + 4 <= bytes.count {
            let headerLength = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let header = try OSMPBF_BlobHeader(serializedBytes: Data(bytes[(offset + 4)..<(offset + 4 + headerLength)]))
            let blobStart = offset + 4 + headerLength
            frames.append((offset, blobStart, Int(header.datasize)))
            offset = blobStart + Int(header.datasize)
        }
        #expect(frames.count == helsinki.summary.blocks)
        let victim = frames[2]
        // Scramble the middle of the compressed data of block 3.
        for i in (victim.blobStart + victim.blobSize / 2)..<(victim.blobStart + victim.blobSize / 2 + 64) { bytes[i] ^= 0x5A }
        let dir = try TestData.temporaryDirectory("corrupt")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("corrupt.osm.pbf").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let db = dir.appendingPathComponent("map.sqlite").path
        let error = try #require(throws: MapImportError.self) { try MapImporter.importPBF(at: path, into: db) }
        #expect(error.block == 3, "\(error)")
        #expect(error.offset == victim.blobStart, "\(error)")
        if case .inflateFailed = error.reason {} else { Issue.record("expected an inflate failure: \(error)") }
        #expect(error.description.contains("does not inflate"))
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test("a successful import replaces an existing database atomically")
    func reimportReplaces() async throws {
        let pbf = try TestData.helsinki()
        let dir = try TestData.temporaryDirectory("reimport")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("sub/dir/map.sqlite").path
        let first = try MapImporter.importPBF(at: pbf, into: db)
        let second = try MapImporter.importPBF(at: pbf, into: db)
        #expect(first.features == second.features)
        #expect(try MapStore.statistics(path: db).features == second.features)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: (db as NSString).deletingLastPathComponent)
        #expect(leftovers == ["map.sqlite"])
    }
}
