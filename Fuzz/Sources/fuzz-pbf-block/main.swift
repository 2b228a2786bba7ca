import CFuzzDriver
import Foundation
import MapData

// One PBF frame: the first byte chooses what the rest is — a Blob message (raw or zlib) as read from a file,
// or a block's decompressed payload — and it is decoded as both an OSMHeader and an OSMData block.
@_cdecl("fuzz_pbf_block_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ input: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data = input ?? (size == 0 ? UnsafePointer<UInt8>(bitPattern: 1) : nil) else { return 0 }
    guard size > 0 else { return 0 }
    let rest = Data(bytes: data + 1, count: size - 1)
    if data[0] & 1 == 0 {
        _ = MapDataParserEntryPoints.pbfBlob(rest)
    } else {
        _ = MapDataParserEntryPoints.pbfPayload(rest)
    }
    return 0
}

// With FUZZ_PBF_SEEDS=FILE.osm.pbf:OUTDIR in the environment the program writes seeds instead of fuzzing:
// cut-down blocks of a real extract, each as a Blob (first byte 0) and as a bare payload (first byte 1).
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    guard let request = ProcessInfo.processInfo.environment["FUZZ_PBF_SEEDS"], let colon = request.lastIndex(of: ":") else { return 0 }
    let pbf = String(request[..<colon]), dir = String(request[request.index(after: colon)...])
    do {
        let (blobs, payloads) = try MapDataParserEntryPoints.pbfSeeds(fromFile: pbf)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (i, blob) in blobs.enumerated() { try (Data([0]) + blob).write(to: URL(fileURLWithPath: "\(dir)/blob-\(i)")) }
        for (i, payload) in payloads.enumerated() { try (Data([1]) + payload).write(to: URL(fileURLWithPath: "\(dir)/payload-\(i)")) }
        print("fuzz-pbf-block: \(blobs.count + payloads.count) seeds from \(pbf) in \(dir)")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("fuzz-pbf-block: \(pbf): \(error)\n".utf8))
        exit(1)
    }
}
