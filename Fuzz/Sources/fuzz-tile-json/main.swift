import CFuzzDriver
import Foundation
import MapData

// A tile's GeoJSON as the tile service sends it.
@_cdecl("fuzz_tile_json_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ input: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data = input ?? (size == 0 ? UnsafePointer<UInt8>(bitPattern: 1) : nil) else { return 0 }
    _ = MapDataParserEntryPoints.tileJSON(Data(bytes: data, count: size))
    return 0
}

// With FUZZ_TILE_SEEDS=MAP.sqlite:OUTDIR in the environment the program writes seeds instead of fuzzing:
// features of real tiles rendered from the map, a few at a time.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    guard let request = ProcessInfo.processInfo.environment["FUZZ_TILE_SEEDS"], let colon = request.lastIndex(of: ":") else { return 0 }
    let db = String(request[..<colon]), dir = String(request[request.index(after: colon)...])
    do {
        let seeds = try MapDataParserEntryPoints.tileSeeds(databasePath: db)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (i, seed) in seeds.enumerated() { try seed.write(to: URL(fileURLWithPath: "\(dir)/tile-\(i).json")) }
        print("fuzz-tile-json: \(seeds.count) seeds from \(db) in \(dir)")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("fuzz-tile-json: \(db): \(error)\n".utf8))
        exit(1)
    }
}
