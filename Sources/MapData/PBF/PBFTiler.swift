import CZlib
import Foundation
import SwiftProtobuf

/// Makes a larger, realistic extract out of a small one for the import bench: `copies` copies of
/// the source laid side by side on a grid (each shifted by the source's bounding box), with ids
/// shifted per copy so that they stay unique and the file stays sorted (all nodes, then all ways,
/// then all relations, each in ascending id order).
public enum PBFTiler {
    /// Writes the tiled file to `output` (through a temporary file renamed into place). Returns the
    /// number of data blocks written.
    @discardableResult
    public static func tile(source: String, copies: Int, output: String) throws(MapImportError) -> Int {
        precondition(copies >= 1)
        var reader = try PBFFrameReader(path: source)
        defer { reader.close() }
        guard let first = try reader.next(), first.type == "OSMHeader" else {
            throw MapImportError(file: source, offset: 0, block: 1, reason: .notPBF("the first block is not OSMHeader"))
        }
        var header: OSMPBF_HeaderBlock
        do { header = try OSMPBF_HeaderBlock(serializedBytes: first.payload) } catch {
            throw MapImportError(file: source, offset: first.offset, block: first.number,
                                 reason: .invalidBlock("OSMHeader does not decode: \(error)"))
        }
        var blocks: [OSMPBF_PrimitiveBlock] = []
        var maxID: Int64 = 0
        var minLat = Int64.max, maxLat = Int64.min, minLon = Int64.max, maxLon = Int64.min
        while let raw = try reader.next() {
            guard raw.type == "OSMData" else { continue }
            let block: OSMPBF_PrimitiveBlock
            do { block = try OSMPBF_PrimitiveBlock(serializedBytes: raw.payload) } catch {
                throw MapImportError(file: source, offset: raw.offset, block: raw.number,
                                     reason: .invalidBlock("OSMData does not decode: \(error)"))
            }
            let g = Int64(block.granularity)
            for group in block.primitivegroup {
                var id: Int64 = 0, lat: Int64 = 0, lon: Int64 = 0
                for i in group.dense.id.indices {
                    id += group.dense.id[i]; lat += group.dense.lat[i]; lon += group.dense.lon[i]
                    maxID = max(maxID, id)
                    let la = block.latOffset + g * lat, lo = block.lonOffset + g * lon
                    minLat = min(minLat, la); maxLat = max(maxLat, la); minLon = min(minLon, lo); maxLon = max(maxLon, lo)
                }
                for node in group.nodes {
                    maxID = max(maxID, node.id)
                    let la = block.latOffset + g * node.lat, lo = block.lonOffset + g * node.lon
                    minLat = min(minLat, la); maxLat = max(maxLat, la); minLon = min(minLon, lo); maxLon = max(maxLon, lo)
                }
                for way in group.ways { maxID = max(maxID, way.id) }
                for relation in group.relations { maxID = max(maxID, relation.id) }
            }
            blocks.append(block)
        }
        guard minLat <= maxLat else {
            throw MapImportError(file: source, reason: .invalidBlock("the file has no nodes to tile"))
        }
        // Copies on a near-square grid, 2 % apart; ids of copy k are shifted by k × (largest id + 1).
        let columns = Int(Double(copies).squareRoot().rounded(.up))
        let rows = (copies + columns - 1) / columns
        let stepLat = (maxLat - minLat) * 102 / 100, stepLon = (maxLon - minLon) * 102 / 100
        let idStep = maxID + 1
        if header.hasBbox {
            header.bbox.bottom = minLat
            header.bbox.left = minLon
            header.bbox.top = minLat + stepLat * Int64(rows - 1) + (maxLat - minLat)
            header.bbox.right = minLon + stepLon * Int64(columns - 1) + (maxLon - minLon)
        }
        header.writingprogram = "soundscape bench (\(copies) copies of \((source as NSString).lastPathComponent))"

        let temporary = "\(output).partial-\(getpid())"
        try? FileManager.default.createDirectory(atPath: (output as NSString).deletingLastPathComponent,
                                                 withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
              let out = FileHandle(forWritingAtPath: temporary) else {
            throw MapImportError(file: output, reason: .unreadable("cannot create \(temporary)"))
        }
        var written = 0
        do {
            defer { try? out.close() }
            try writeFrame(type: "OSMHeader", payload: try header.serializedData(), to: out)
            enum Kind: CaseIterable { case nodes, ways, relations }
            for kind in Kind.allCases {
                for copy in 0..<copies {
                    let shift = idStep * Int64(copy)
                    let dLat = stepLat * Int64(copy / columns), dLon = stepLon * Int64(copy % columns)
                    for var block in blocks {
                        var groups: [OSMPBF_PrimitiveGroup] = []
                        for var group in block.primitivegroup {
                            switch kind {
                            case .nodes:
                                guard group.hasDense || !group.nodes.isEmpty else { continue }
                                group.ways = []; group.relations = []; group.changesets = []
                                if group.hasDense, !group.dense.id.isEmpty { group.dense.id[0] += shift }
                                for i in group.nodes.indices { group.nodes[i].id += shift }
                            case .ways:
                                guard !group.ways.isEmpty else { continue }
                                group.nodes = []; group.clearDense(); group.relations = []; group.changesets = []
                                for i in group.ways.indices {
                                    group.ways[i].id += shift
                                    if !group.ways[i].refs.isEmpty { group.ways[i].refs[0] += shift }
                                }
                            case .relations:
                                guard !group.relations.isEmpty else { continue }
                                group.nodes = []; group.clearDense(); group.ways = []; group.changesets = []
                                for i in group.relations.indices {
                                    group.relations[i].id += shift
                                    if !group.relations[i].memids.isEmpty { group.relations[i].memids[0] += shift }
                                }
                            }
                            groups.append(group)
                        }
                        guard !groups.isEmpty else { continue }
                        block.primitivegroup = groups
                        // Coordinates are shifted through the block's offsets (in nanodegrees).
                        block.latOffset += dLat
                        block.lonOffset += dLon
                        try writeFrame(type: "OSMData", payload: try block.serializedData(), to: out)
                        written += 1
                    }
                }
            }
            try out.synchronize()
        } catch let error as MapImportError {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw MapImportError(file: output, reason: .unreadable("writing \(temporary): \(error)"))
        }
        guard rename(temporary, output) == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw MapImportError(file: output, reason: .unreadable("cannot rename \(temporary): \(String(cString: strerror(errno)))"))
        }
        return written
    }

    /// Writes one frame: the 4-byte big-endian header length, the BlobHeader and a zlib Blob.
    static func writeFrame(type: String, payload: Data, to out: FileHandle) throws {
        var bound = compressBound(uLong(payload.count))
        var compressed = Data(count: Int(bound))
        let status = compressed.withUnsafeMutableBytes { dst in
            payload.withUnsafeBytes { src in
                compress2(dst.baseAddress!.assumingMemoryBound(to: Bytef.self), &bound,
                          src.baseAddress!.assumingMemoryBound(to: Bytef.self), uLong(payload.count), 6)
            }
        }
        guard status == Z_OK else { throw MapImportError(file: "", reason: .inflateFailed("zlib compress2 error \(status)")) }
        compressed.count = Int(bound)
        var blob = OSMPBF_Blob()
        blob.rawSize = Int32(payload.count)
        blob.zlibData = compressed
        let blobBytes = try blob.serializedData()
        var blobHeader = OSMPBF_BlobHeader()
        blobHeader.type = type
        blobHeader.datasize = Int32(blobBytes.count)
        let headerBytes = try blobHeader.serializedData()
        let n = UInt32(headerBytes.count)
        var frame = Data([UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)])
        frame.append(headerBytes)
        frame.append(blobBytes)
        try out.write(contentsOf: frame)
    }
}
