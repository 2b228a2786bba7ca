import Foundation
import GRDBSQLite

/// A row's values in one byte buffer, made on the thread that prepares the row and bound in place by the one
/// that writes it. Why: as an array of `DatabaseValue`s, a feature row was a dozen allocations made on one thread
/// and freed on another, and retaining, releasing and freeing them was a third of the writing thread's work.
///
/// Each value is a tag byte (0 null, 1 integer, 2 real, 3 text, 4 blob), then 8 bytes for a number, or a 4-byte
/// length and the bytes for a text or blob.
struct RowBuffer: Sendable {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func append(_ value: Int64?) {
        guard let value else { return bytes.append(0) }
        bytes.append(1)
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ value: Int) { append(Int64(value)) }
    mutating func append(_ value: Bool) { append(Int64(value ? 1 : 0)) }

    mutating func append(_ value: Double) {
        bytes.append(2)
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ value: String?) {
        guard let value else { return bytes.append(0) }
        bytes.append(3)
        appendLength(value.utf8.count)
        bytes.append(contentsOf: value.utf8)
    }

    mutating func append(_ value: Data) {
        bytes.append(4)
        appendLength(value.count)
        bytes.append(contentsOf: value)
    }

    private mutating func appendLength(_ count: Int) {
        withUnsafeBytes(of: UInt32(count)) { bytes.append(contentsOf: $0) }
    }

    /// Binds the values to parameters `first`, `first + 1`… of `s` and steps it, returning the first result code
    /// that is neither SQLITE_OK nor SQLITE_DONE, or SQLITE_DONE. Texts and blobs are bound in place
    /// (SQLITE_STATIC), valid while the step runs; nothing reads them after it.
    func bindAndStep(_ s: OpaquePointer, first: Int32) -> Int32 {
        bytes.withUnsafeBytes { raw -> Int32 in
            let code = Self.bind(raw, to: s, first: first)
            return code == SQLITE_OK ? sqlite3_step(s) : code
        }
    }

    /// Binds the values in `raw` (a row buffer's bytes, which must stay in place until the statement has run)
    /// to parameters `first`, `first + 1`… of `s`; returns the first result code that is not SQLITE_OK, or SQLITE_OK.
    static func bind(_ raw: UnsafeRawBufferPointer, to s: OpaquePointer, first: Int32) -> Int32 {
            var offset = 0
            var index = first
            while offset < raw.count {
                let tag = raw[offset]
                offset += 1
                let code: Int32
                switch tag {
                case 0:
                    code = sqlite3_bind_null(s, index)
                case 1:
                    code = sqlite3_bind_int64(s, index, raw.loadUnaligned(fromByteOffset: offset, as: Int64.self))
                    offset += 8
                case 2:
                    code = sqlite3_bind_double(s, index, raw.loadUnaligned(fromByteOffset: offset, as: Double.self))
                    offset += 8
                default:
                    let count = Int(raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                    offset += 4
                    let start = raw.baseAddress! + offset
                    if tag == 3 {
                        code = sqlite3_bind_text(s, index, start.assumingMemoryBound(to: CChar.self), Int32(count), nil)
                    } else if count == 0 {
                        code = sqlite3_bind_zeroblob(s, index, 0)
                    } else {
                        code = sqlite3_bind_blob(s, index, start, Int32(count), nil)
                    }
                    offset += count
                }
                guard code == SQLITE_OK else { return code }
                index += 1
            }
            return SQLITE_OK
    }
}
