import Foundation
import Speech
import Testing

/// Inputs the grammar fuzzer (Fuzz/, `make fuzz`) found to crash or hang the grammar loader, kept so that they stay fixed.
@Suite struct GrammarFuzzRegressionTests {
    /// Rules that lead to one another many times over, with stars piled on stars: checking the intents took
    /// exponential time (over 10 s, the fuzzer's limit) before each rule's tags were found only once.
    @Test func rulesReachedManyTimesOverLoadQuickly() throws {
        let text = String(decoding: Data(base64Encoded: "I0pTR0YgVjEuMDsKLy8gcyA7IAEgUCNKU0dGIFYxLjA7Ci8vIFNwCgpwdWJsaWMgPHN5c3RlbT4gPQogICB0YWxLKipsSyoqKioqKioqKioqKioqKg0qKioqKioqKioqKioqKg0qKioqKipsSyoqKioqKioqKioqKioqKg0qKioqKioqKioqKioqKg0qKioqKipVbml0cyBvbXJvdXRlX2YgbW1yb3V0ZV9mIG1lYVNWMS4gU3AKCnB1YmxpYyA8c3lzdGVtPnRBYypVbml0cyBvbXJvdXRlX2YgbWVhU1YxLiBTcAoKcHVlYVNWMS4gU3AKCnB1YmxpYyA8c3lzdGVtPnRBYypVbml0cyBvbXJvdXRlX2YgbWVhU1YxLiBTcAoKcHVibGljIDxzeXN0ZW0+dEFjaGluaW1nIGJwdCAgZSA7Cg==")!, as: UTF8.self)
        let start = ContinuousClock.now
        _ = try? CommandGrammar(sources: [(path: "fuzz.gram", text: text)])
        let elapsed = ContinuousClock.now - start
        #expect(elapsed < .seconds(1), "loading took \(elapsed)")
    }
}
