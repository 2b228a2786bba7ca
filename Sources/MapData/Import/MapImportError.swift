import Foundation

/// Why an import (or a read of a PBF file) failed. Every description names the file, and, where it
/// applies, the byte offset and the block number (blocks are counted from 1; block 1 is the
/// `OSMHeader` block), so that a user can tell a truncated download from a corrupt one.
public struct MapImportError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        /// The file could not be opened or read at all.
        case unreadable(String)
        /// The file has zero bytes.
        case emptyFile
        /// The first bytes are not the start of an OSM PBF file (no `OSMHeader` block).
        case notPBF(String)
        /// The 4-byte length prefix of a block is cut short.
        case truncatedLength(found: Int)
        /// A block header claims an impossible size.
        case oversizedHeader(Int)
        /// The block header message is cut short.
        case truncatedHeader(expected: Int, found: Int)
        /// The block header message does not decode.
        case invalidHeader(String)
        /// The blob payload is cut short.
        case truncatedBlob(expected: Int, found: Int)
        /// The blob message does not decode, or holds no data.
        case invalidBlob(String)
        /// A compression this reader does not implement (lzma, lz4, zstd, bzip2).
        case unsupportedCompression(String)
        /// zlib refused the payload.
        case inflateFailed(String)
        /// The decompressed payload does not decode as the block it claims to be.
        case invalidBlock(String)
        /// The file requires a feature this reader does not implement (e.g. history files).
        case unsupportedFeature(String)
        /// The elements are not in the order a streaming import needs (nodes, ways, relations, each by id).
        case notSorted(String)
        /// Writing the database failed.
        case database(String)
    }

    public var file: String
    public var offset: Int?
    public var block: Int?
    public var reason: Reason

    public init(file: String, offset: Int? = nil, block: Int? = nil, reason: Reason) {
        self.file = file
        self.offset = offset
        self.block = block
        self.reason = reason
    }

    public var description: String {
        var location = ""
        if let offset { location += " at byte \(Self.grouped(offset))" }
        if let block { location += location.isEmpty ? " in block \(block)" : " (block \(block))" }
        let name = file
        switch reason {
        case .unreadable(let why):
            return "\(file): cannot read the file: \(why)"
        case .emptyFile:
            return "\(name): the file is empty (0 bytes); expected an OpenStreetMap PBF file"
        case .notPBF(let why):
            return "\(name): not an OpenStreetMap PBF file\(location): \(why)"
        case .truncatedLength(let found):
            return "\(name): truncated block length\(location): expected 4 bytes, found \(found)"
        case .oversizedHeader(let size):
            return "\(name): corrupt block header\(location): header length \(Self.grouped(size)) bytes exceeds the 64 KiB limit"
        case .truncatedHeader(let expected, let found):
            return "\(name): truncated block header\(location): expected \(Self.grouped(expected)) bytes, found \(Self.grouped(found))"
        case .invalidHeader(let why):
            return "\(name): corrupt block header\(location): \(why)"
        case .truncatedBlob(let expected, let found):
            return "\(name): truncated blob\(location): expected \(Self.grouped(expected)) bytes, found \(Self.grouped(found))"
        case .invalidBlob(let why):
            return "\(name): corrupt blob\(location): \(why)"
        case .unsupportedCompression(let kind):
            return "\(name): unsupported blob compression '\(kind)'\(location); only zlib and uncompressed blobs are supported"
        case .inflateFailed(let why):
            return "\(name): blob does not inflate\(location): \(why)"
        case .invalidBlock(let why):
            return "\(name): corrupt data block\(location): \(why)"
        case .unsupportedFeature(let feature):
            return "\(name): the file needs the unsupported feature '\(feature)'\(location)"
        case .notSorted(let why):
            return "\(name): the file is not sorted\(location): \(why). Sort it first: osmium sort \(name) -o sorted.osm.pbf"
        case .database(let why):
            return "\(name): could not write the map database: \(why)"
        }
    }

    /// 412337 → "412,337".
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return value < 0 ? "-" + out : out
    }
}
