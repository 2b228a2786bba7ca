// Streaming reader for OpenStreetMap PBF files.
//
// The protobuf messages are described in Sources/MapData/PBF/proto/*.proto; the Swift in
// Sources/MapData/PBF/Generated/ is generated from them and committed. To regenerate (`make proto`):
//
//   protoc --plugin=protoc-gen-swift=$(PATH_TO)/protoc-gen-swift --swift_opt=Visibility=Internal \
//          --swift_out=Sources/MapData/PBF/Generated -I Sources/MapData/PBF/proto \
//          Sources/MapData/PBF/proto/fileformat.proto Sources/MapData/PBF/proto/osmformat.proto \
//          Sources/MapData/PBF/proto/osmread.proto
//
// (protoc from Debian's protobuf-compiler; protoc-gen-swift from `swift build --product protoc-gen-swift`
// in a checkout of apple/swift-protobuf at the version Package.resolved pins.)

import CLibdeflate
import Foundation
import SwiftProtobuf

/// One frame of a PBF file, read and decompressed but not yet decoded.
struct PBFRawBlock: Sendable {
    /// "OSMHeader", "OSMData" or a kind this reader skips.
    var type: String
    /// Byte offset of the frame's length prefix in the file.
    var offset: Int
    /// 1-based frame number.
    var number: Int
    /// The decompressed payload.
    var payload: Data
}

/// One frame of a PBF file as read: its blob not yet decompressed.
struct PBFFrame: Sendable {
    var type: String
    /// Byte offset of the frame's length prefix in the file.
    var offset: Int
    /// 1-based frame number.
    var number: Int
    /// Byte offset of the blob in the file.
    var blobOffset: Int
    var blob: Data

    func unpacked(path: String) throws(MapImportError) -> PBFRawBlock {
        let payload = try PBFFrameReader.unpack(blob, path: path, offset: blobOffset, block: number)
        return PBFRawBlock(type: type, offset: offset, number: number, payload: payload)
    }
}

/// Reads a PBF file frame by frame. It never holds more than one frame in memory.
struct PBFFrameReader {
    /// Limits from the format's documentation: block headers stay under 64 KiB and blobs under 32 MiB.
    static let maxHeaderSize = 64 * 1024
    static let maxBlobSize = 32 * 1024 * 1024

    let path: String
    let fileSize: Int
    private let handle: FileHandle
    private(set) var position = 0
    private(set) var framesRead = 0

    init(path: String) throws(MapImportError) {
        self.path = path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw MapImportError(file: path, reason: .unreadable("no such file"))
        }
        guard !isDirectory.boolValue else {
            throw MapImportError(file: path, reason: .unreadable("it is a directory"))
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw MapImportError(file: path, reason: .unreadable("permission denied or I/O error"))
        }
        self.handle = handle
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        self.fileSize = (attributes?[.size] as? NSNumber)?.intValue ?? 0
        if fileSize == 0 {
            throw MapImportError(file: path, offset: 0, reason: .emptyFile)
        }
    }

    func close() { try? handle.close() }

    private mutating func read(_ count: Int) throws(MapImportError) -> Data {
        do {
            let data = try handle.read(upToCount: count) ?? Data()
            position += data.count
            return data
        } catch {
            throw MapImportError(file: path, offset: position, reason: .unreadable("\(error)"))
        }
    }

    /// The next frame, or nil at a clean end of file.
    mutating func next() throws(MapImportError) -> PBFRawBlock? {
        guard let frame = try nextFrame() else { return nil }
        return try frame.unpacked(path: path)
    }

    /// The next frame with its blob still compressed, or nil at a clean end of file: the importer
    /// inflates and decodes frames on all cores.
    mutating func nextFrame() throws(MapImportError) -> PBFFrame? {
        let frameOffset = position
        let number = framesRead + 1
        let lengthBytes = try read(4)
        if lengthBytes.isEmpty { return nil }
        guard lengthBytes.count == 4 else {
            throw MapImportError(file: path, offset: frameOffset, block: number,
                                 reason: .truncatedLength(found: lengthBytes.count))
        }
        let headerLength = lengthBytes.reduce(0) { ($0 << 8) | Int($1) }
        if number == 1 { try Self.checkMagic(lengthBytes, headerLength: headerLength, path: path) }
        guard headerLength > 0, headerLength <= Self.maxHeaderSize else {
            throw MapImportError(file: path, offset: frameOffset, block: number,
                                 reason: .oversizedHeader(headerLength))
        }
        let headerBytes = try read(headerLength)
        guard headerBytes.count == headerLength else {
            throw MapImportError(file: path, offset: frameOffset + 4, block: number,
                                 reason: .truncatedHeader(expected: headerLength, found: headerBytes.count))
        }
        let header: OSMPBF_BlobHeader
        do {
            header = try OSMPBF_BlobHeader(serializedBytes: headerBytes)
        } catch {
            throw MapImportError(file: path, offset: frameOffset + 4, block: number,
                                 reason: number == 1 ? .notPBF("the first block header does not decode")
                                                     : .invalidHeader("\(error)"))
        }
        guard header.hasType, header.hasDatasize else {
            throw MapImportError(file: path, offset: frameOffset + 4, block: number,
                                 reason: .invalidHeader("type or datasize missing"))
        }
        if number == 1 && header.type != "OSMHeader" {
            throw MapImportError(file: path, offset: frameOffset + 4, block: number,
                                 reason: .notPBF("the first block is '\(header.type.prefix(40))', expected 'OSMHeader'"))
        }
        let blobSize = Int(header.datasize)
        guard blobSize >= 0, blobSize <= Self.maxBlobSize else {
            throw MapImportError(file: path, offset: frameOffset + 4, block: number,
                                 reason: .invalidHeader("blob size \(blobSize) is outside 0…32 MiB"))
        }
        let blobOffset = position
        let blobBytes = try read(blobSize)
        guard blobBytes.count == blobSize else {
            throw MapImportError(file: path, offset: blobOffset, block: number,
                                 reason: .truncatedBlob(expected: blobSize, found: blobBytes.count))
        }
        framesRead = number
        return PBFFrame(type: header.type, offset: frameOffset, number: number, blobOffset: blobOffset, blob: blobBytes)
    }

    /// Recognises common non-PBF files by their first bytes so that the error says what the file is.
    private static func checkMagic(_ first: Data, headerLength: Int, path: String) throws(MapImportError) {
        let b = [UInt8](first)
        var what: String?
        if b.starts(with: [0x3C, 0x3F, 0x78, 0x6D]) || b.starts(with: [0x3C, 0x6F, 0x73, 0x6D]) {
            what = "it looks like OSM XML; convert it with `osmium cat FILE -o FILE.osm.pbf`"
        } else if b.starts(with: [0x1F, 0x8B]) {
            what = "it is gzip-compressed"
        } else if b.starts(with: [0x42, 0x5A, 0x68]) {
            what = "it is bzip2-compressed"
        } else if b.starts(with: [0x53, 0x51, 0x4C, 0x69]) {
            what = "it is an SQLite database"
        } else if b.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            what = "it is a zip archive"
        } else if b.starts(with: [0x7B]) || b.starts(with: [0x5B]) {
            what = "it looks like JSON"
        } else if headerLength == 0 || headerLength > maxHeaderSize {
            what = "bad magic: the first 4 bytes (\(b.map { String(format: "%02x", $0) }.joined(separator: " "))) are not a block header length"
        }
        if let what { throw MapImportError(file: path, offset: 0, block: 1, reason: .notPBF(what)) }
    }

    /// Decodes a Blob message and returns its decompressed payload.
    static func unpack(_ bytes: Data, path: String, offset: Int, block: Int) throws(MapImportError) -> Data {
        let blob: OSMPBF_Blob
        do {
            blob = try OSMPBF_Blob(serializedBytes: bytes)
        } catch {
            throw MapImportError(file: path, offset: offset, block: block, reason: .invalidBlob("\(error)"))
        }
        switch blob.data {
        case .raw(let raw)?:
            return raw
        case .zlibData(let compressed)?:
            guard blob.hasRawSize, blob.rawSize >= 0, Int(blob.rawSize) <= maxBlobSize else {
                throw MapImportError(file: path, offset: offset, block: block,
                                     reason: .invalidBlob("zlib blob without a valid raw_size"))
            }
            return try inflate(compressed, rawSize: Int(blob.rawSize), path: path, offset: offset, block: block)
        case .lzmaData?: throw MapImportError(file: path, offset: offset, block: block, reason: .unsupportedCompression("lzma"))
        case .obsoleteBzip2Data?: throw MapImportError(file: path, offset: offset, block: block, reason: .unsupportedCompression("bzip2"))
        case .lz4Data?: throw MapImportError(file: path, offset: offset, block: block, reason: .unsupportedCompression("lz4"))
        case .zstdData?: throw MapImportError(file: path, offset: offset, block: block, reason: .unsupportedCompression("zstd"))
        case nil:
            throw MapImportError(file: path, offset: offset, block: block, reason: .invalidBlob("the blob holds no data"))
        }
    }

    /// zlib-inflates `compressed` into exactly `rawSize` bytes. libdeflate inflates a whole buffer of known
    /// size about twice as fast as zlib's streaming `uncompress`, and inflating was a tenth of the import's
    /// decoding work.
    static func inflate(_ compressed: Data, rawSize: Int, path: String, offset: Int, block: Int) throws(MapImportError) -> Data {
        if rawSize == 0 { return Data() }
        guard let decompressor = libdeflate_alloc_decompressor() else {
            throw MapImportError(file: path, offset: offset, block: block, reason: .inflateFailed("out of memory"))
        }
        defer { libdeflate_free_decompressor(decompressor) }
        var output = Data(count: rawSize)
        var producedLength = 0
        let status = output.withUnsafeMutableBytes { out in
            compressed.withUnsafeBytes { input in
                libdeflate_zlib_decompress(decompressor, input.baseAddress, input.count, out.baseAddress, rawSize, &producedLength)
            }
        }
        switch status {
        case LIBDEFLATE_SUCCESS:
            guard producedLength == rawSize else {
                throw MapImportError(file: path, offset: offset, block: block,
                                     reason: .inflateFailed("inflated to \(grouped(producedLength)) bytes, raw_size says \(grouped(rawSize))"))
            }
            return output
        case LIBDEFLATE_INSUFFICIENT_SPACE:
            throw MapImportError(file: path, offset: offset, block: block,
                                 reason: .inflateFailed("the zlib stream is larger than raw_size \(grouped(rawSize))"))
        case LIBDEFLATE_BAD_DATA:
            throw MapImportError(file: path, offset: offset, block: block,
                                 reason: .inflateFailed("invalid, corrupt or incomplete zlib data"))
        default:
            throw MapImportError(file: path, offset: offset, block: block, reason: .inflateFailed("libdeflate error \(status.rawValue)"))
        }
    }

    private static func grouped(_ v: Int) -> String { MapImportError.grouped(v) }
}
