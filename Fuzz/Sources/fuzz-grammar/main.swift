import CFuzzDriver
import Foundation
import Speech

// The grammar loader: JSGF text (a user may edit the .gram files) → CommandGrammar, then the decoder's JSGF.
@_cdecl("fuzz_grammar_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ input: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data = input ?? (size == 0 ? UnsafePointer<UInt8>(bitPattern: 1) : nil) else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let grammar = try? CommandGrammar(sources: [(path: "fuzz.gram", text: text)]) {
        _ = grammar.decoderJSGF()
    }
    return 0
}
