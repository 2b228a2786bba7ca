import App
import Foundation
import Speech
import Testing

@Suite("Setting up the second recognizer")
struct SecondRecognizerTests {
    static let paths = ProjectPaths(home: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent())

    final class Silent: Transcriber {
        func transcribe(_ samples: [Float], prompt: String) throws -> Transcript { Transcript(text: "") }
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String { "/nowhere/ggml-tiny.en.bin is missing; run scripts/setup" }
    }

    @Test func aTranscriberThatCannotLoadLeavesPocketSphinxAloneAndSaysWhyWithTheFix() {
        let (opinion, problem) = SecondRecognizer.load(paths: Self.paths, transcriber: { _ in throw Missing() })
        #expect(opinion == nil)
        let text = problem ?? ""
        #expect(text.contains("/nowhere/ggml-tiny.en.bin is missing; run scripts/setup"), "\(text)")
        #expect(text.contains("PocketSphinx alone"), "\(text)")
    }

    @Test func aBuildWithoutTranscriberSaysNothingAndOneThatLoadsIsUsed() {
        let none = SecondRecognizer.load(paths: Self.paths, transcriber: { _ in nil })
        #expect(none.secondOpinion == nil && none.problem == nil)
        let silent = Silent()
        let loaded = SecondRecognizer.load(paths: Self.paths, transcriber: { _ in silent })
        #expect(loaded.problem == nil)
        #expect(loaded.secondOpinion?.transcriber === silent)
    }
}
