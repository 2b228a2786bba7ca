import CFuzzDriver
import Foundation
import Location

// One line from gpsd (TPV, SKY, VERSION, DEVICES, ATT… or anything a broken daemon might send).
@_cdecl("fuzz_gpsd_json_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ input: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data = input ?? (size == 0 ? UnsafePointer<UInt8>(bitPattern: 1) : nil) else { return 0 }
    _ = try? GpsdMessageParser.parse(Data(bytes: data, count: size), receivedAt: Date(timeIntervalSince1970: 1_800_000_000))
    return 0
}
