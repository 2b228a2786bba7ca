import Foundation
import Speech

/// The command recognizer as the program uses it: the en-us model, the extra pronunciations, and the
/// command grammar from `Grammars/`. `soundscape listen` and live input share it.
public final class CommandRecognizer {
    public let decoder: PocketSphinxDecoder
    public let grammarPath: String

    public init(paths: ProjectPaths, model: AcousticModel = .debianEnglish, grammarPath: String? = nil) throws {
        decoder = try PocketSphinxDecoder(model: model)
        try ExtraDictionary.apply(ExtraDictionary.load(paths.extraDictionary.path), to: decoder)
        let grammarFile = grammarPath ?? paths.commandGrammar.path
        let grammar: String
        do { grammar = try String(contentsOfFile: grammarFile, encoding: .utf8) } catch {
            throw RecognitionError(message: "\(grammarFile): cannot read the grammar (\(error.localizedDescription))")
        }
        do { try decoder.useGrammar(jsgf: grammar) } catch let error as RecognitionError {
            throw RecognitionError(message: "\(grammarFile): \(error.message)")
        }
        self.grammarPath = grammarFile
    }

    /// Decodes 16 kHz mono samples.
    public func recognize(_ samples: [Int16]) throws -> Hypothesis {
        try decoder.decode(samples)
    }
}
