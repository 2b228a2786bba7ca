import CFuzzDriver
import Foundation
import Location

// An NMEA log (a walk to replay): sentences, checksums, fields.
@_cdecl("fuzz_nmea_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ input: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data = input ?? (size == 0 ? UnsafePointer<UInt8>(bitPattern: 1) : nil) else { return 0 }
    _ = NMEAReader.parse(String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
    return 0
}
