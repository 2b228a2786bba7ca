import Foundation
import MapData
import Speech
import Synchronization

/// The command recognizer as the program uses it: the en-us model, the extra pronunciations of
/// Models/extra.dict, the grammar folder Grammars/, RNNoise where scripts/setup put it and PocketSphinx's own confidence. `soundscape listen`, live
/// voice input and the benchmark share it.
public final class CommandRecognizer {
    public let recognizer: VoiceRecognizer
    /// The grammar folder (or single file) in use.
    public var grammarPath: String { grammarWatch.path }
    /// Notices an edited `.gram` file and loads it again.
    public let grammarWatch: GrammarWatch

    public var decoder: PocketSphinxDecoder { recognizer.decoder }
    public var parser: IntentParser { recognizer.parser }
    /// Why RNNoise is not cleaning the microphone (its library missing or broken); nil when it is, or was not wanted.
    public var denoiserProblem: String? { recognizer.neuralDenoiserProblem }

    /// - Parameters:
    ///   - grammarPath: a folder of `.gram` files or one file; default Grammars/.
    ///   - confidence: PocketSphinx's own confidence and threshold (``AcousticConfidence/standard`` unless measuring).
    public init(paths: ProjectPaths, model: AcousticModel = .debianEnglish, grammarPath: String? = nil,
                confidence: AcousticConfidence = .standard, pronouncer: (any Pronouncer)? = EspeakPronouncer()) throws {
        let path = grammarPath ?? paths.grammars.path
        let grammar = try Self.loadGrammar(path)
        let extra = try ExtraDictionary.words(paths.extraDictionary.path)
        recognizer = try VoiceRecognizer(grammar: grammar, extraWords: extra, pronouncer: pronouncer,
                                         configuration: .init(model: model, confidence: confidence,
                                                              neuralDenoiser: paths.rnnoiseLibrary()))
        grammarWatch = GrammarWatch(path: path)
    }

    /// Parses a grammar folder (every `.gram` file) or a single file.
    public static func loadGrammar(_ path: String) throws -> CommandGrammar {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw GrammarError(SourceLocation(file: path, line: 0, column: 0), "no such grammar file or folder")
        }
        if isDirectory.boolValue {
            // The kinds of place (kinds.txt beside the grammars) fill the `$kinds` rule from the start.
            var grammar = try CommandGrammar(directory: path)
            if let kinds = try KindTable.beside(grammars: path) {
                grammar.setPhrases(kinds.phrases(), for: "kinds")
                grammar.setPhrases(kinds.phrases(singularOnly: true), for: "kinds_singular")
            }
            return grammar
        }
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw GrammarError(SourceLocation(file: path, line: 0, column: 0), "cannot read (\(error.localizedDescription))")
        }
        return try CommandGrammar(sources: [(path, text)])
    }

    /// Decodes 16 kHz mono samples.
    public func recognize(_ samples: [Int16]) throws -> VoiceResult {
        try recognizer.recognize(samples)
    }

    /// Reloads the grammar when a `.gram` file changed since the last look. Returns the error when the
    /// edited grammar is broken — the last good grammar then stays in use — and nil otherwise.
    @discardableResult
    public func reloadGrammarIfChanged() -> (any Error)? {
        guard let changed = grammarWatch.reloadIfChanged() else { return nil }
        do {
            try recognizer.replaceGrammar(changed.get())
            return nil
        } catch {
            return error
        }
    }

    static func stamp(_ path: String) -> [String: Date] {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else { return [:] }
        let files = isDirectory.boolValue
            ? ((try? fm.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".gram") }.map { (path as NSString).appendingPathComponent($0) }
            : [path]
        var out: [String: Date] = [:]
        for f in files { out[f] = (try? fm.attributesOfItem(atPath: f)[.modificationDate] as? Date) ?? .distantPast }
        return out
    }
}

/// A grammar folder (or file) and when its `.gram` files were last changed: loads the grammar again after an
/// edit. Live voice input and ``CommandRecognizer`` both reload through it.
public final class GrammarWatch: Sendable {
    public let path: String
    private let stamp: Mutex<[String: Date]>

    public init(path: String) {
        self.path = path
        stamp = Mutex(CommandRecognizer.stamp(path))
    }

    /// Nil when no `.gram` file changed since the last look; otherwise the edited grammar, or why it cannot be
    /// used (the last good grammar should then stay in use).
    public func reloadIfChanged() -> Result<CommandGrammar, any Error>? {
        let now = CommandRecognizer.stamp(path)
        let changed = stamp.withLock { s -> Bool in defer { s = now }; return s != now }
        guard changed else { return nil }
        return Result { try CommandRecognizer.loadGrammar(path) }
    }
}
