import Crypto
import Foundation

/// SHA-256 hex digests (swift-crypto): the digest of a PBF file is recorded in the database imported from
/// it, so `soundscape import` can tell when the extract has changed.
public enum SHA256Digest {
    /// Hex digest of a whole file, read in 1 MiB chunks so a large extract is never held in memory.
    public static func hexDigest(ofFile path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hex(hasher.finalize())
    }

    public static func hexDigest(of data: Data) -> String {
        hex(SHA256.hash(data: data))
    }

    private static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
