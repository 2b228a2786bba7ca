import Foundation

/// A growing array of fixed-size records kept in a scratch file instead of the heap: appended through
/// a small buffer, then memory-mapped read-only. `releasePages()` drops the mapped pages from the
/// process (the kernel keeps them in its page cache), so that an import's resident memory does not
/// grow with the size of the extract. The file is deleted when the object goes away.
final class RecordFile<Record: BitwiseCopyable> {
    let path: String
    /// The PBF file the records come from, for error messages.
    private let source: String
    private var fd: Int32
    private var buffer: [Record] = []
    private let bufferLimit: Int
    private(set) var count = 0
    private var mapping: UnsafeMutableRawPointer?
    private var mappedBytes = 0

    init(path: String, source: String, bufferRecords: Int = 1 << 15) throws(MapImportError) {
        self.path = path
        self.source = source
        bufferLimit = bufferRecords
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw MapImportError(file: source, reason: .database("cannot create the scratch file \(path): \(String(cString: strerror(errno)))"))
        }
        buffer.reserveCapacity(bufferRecords)
    }

    deinit {
        if let mapping { munmap(mapping, mappedBytes) }
        if fd >= 0 { close(fd) }
        unlink(path)
    }

    func append(_ record: Record) throws(MapImportError) {
        buffer.append(record)
        if buffer.count >= bufferLimit { try flush() }
    }

    /// Appends many records at once: a block's nodes or a way's references cost one call, not one for each.
    func append(contentsOf records: [Record]) throws(MapImportError) {
        buffer.append(contentsOf: records)
        if buffer.count >= bufferLimit { try flush() }
    }

    private func flush() throws(MapImportError) {
        guard !buffer.isEmpty else { return }
        let failure: Int32? = buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += n
            }
            return nil
        }
        if let failure {
            throw MapImportError(file: source, reason: .database("cannot write the scratch file \(path): \(String(cString: strerror(failure)))"))
        }
        count += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is buffered and maps the file. No more records can be appended.
    func seal() throws(MapImportError) -> UnsafeBufferPointer<Record> {
        try flush()
        buffer = []
        let bytes = count * MemoryLayout<Record>.stride
        guard bytes > 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
        guard let address = mmap(nil, bytes, PROT_READ, MAP_SHARED, fd, 0), address != MAP_FAILED else {
            throw MapImportError(file: source, reason: .database("cannot map the scratch file \(path): \(String(cString: strerror(errno)))"))
        }
        mapping = address
        mappedBytes = bytes
        return UnsafeBufferPointer(start: address.assumingMemoryBound(to: Record.self), count: count)
    }

    /// Lets the kernel take back the mapped pages that were read; they are read again from the page
    /// cache when next touched.
    func releasePages() {
        if let mapping { _ = madvise(mapping, mappedBytes, MADV_DONTNEED) }
    }
}
