import CPocketSphinx
import Foundation

/// Where the PocketSphinx acoustic model and dictionary are.
public struct AcousticModel: Sendable, Hashable, Codable {
    /// Folder with `mdef`, `means`, `variances`, `feat.params`, … (PocketSphinx's `-hmm`).
    public var modelDirectory: String
    /// Pronunciation dictionary (PocketSphinx's `-dict`).
    public var dictionary: String

    /// The US English model of Debian's pocketsphinx-en-us package.
    public static let debianEnglish = AcousticModel(
        modelDirectory: "/usr/share/pocketsphinx/model/en-us/en-us",
        dictionary: "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict")

    public init(modelDirectory: String, dictionary: String) {
        self.modelDirectory = modelDirectory
        self.dictionary = dictionary
    }

    /// Files that must exist for the model to load; empty when all are there.
    public var missingFiles: [String] {
        let needed = ["mdef", "means", "variances", "transition_matrices", "feat.params"].map { "\(modelDirectory)/\($0)" } + [dictionary]
        return needed.filter { !FileManager.default.fileExists(atPath: $0) }
    }
}

public struct RecognitionError: Error, CustomStringConvertible, Equatable {
    public var message: String
    public var description: String { message }
    public init(message: String) { self.message = message }
}

/// What the decoder heard in one utterance.
public struct Hypothesis: Sendable, Equatable {
    /// Recognized words, lowercase, separated by single spaces; empty when nothing matched.
    public var text: String
    /// The decoder's path score (log domain, more negative is worse).
    public var score: Int32
    /// Number of 10 ms feature frames decoded.
    public var frames: Int
}

/// One long-lived PocketSphinx decoder (keep one per audio stream: its live cepstral mean adapts across
/// utterances). Not thread-safe: use it from one task or thread at a time.
public final class PocketSphinxDecoder {
    public static let sampleRate = 16_000

    let decoder: OpaquePointer
    private let config: OpaquePointer

    /// Name/value pairs with each name once, at its first place, holding its last value.
    static func mergedOptions(_ options: [String]) -> [String] {
        var names: [String] = [], values: [String: String] = [:]
        var i = 0
        while i + 1 < options.count {
            if values[options[i]] == nil { names.append(options[i]) }
            values[options[i]] = options[i + 1]
            i += 2
        }
        return names.flatMap { [$0, values[$0]!] } + (i < options.count ? [options[i]] : [])
    }

    /// - Parameters:
    ///   - options: extra PocketSphinx options, e.g. `["-beam", "1e-60"]`; an option given twice takes
    ///     its last value (PocketSphinx itself refuses duplicates).
    ///   - loadsDictionary: load the model's whole dictionary (22 MB of memory for the en-us one); without it the
    ///     decoder knows only the fillers until words are added (``learn(_:from:)``, ``addWord(_:phones:update:)``).
    public init(model: AcousticModel = .debianEnglish, options: [String] = [], loadsDictionary: Bool = true) throws {
        let missing = model.missingFiles
        guard missing.isEmpty else {
            throw RecognitionError(message: "the speech model is incomplete; missing \(missing.joined(separator: ", ")) (install pocketsphinx-en-us)")
        }
        SphinxLog.shared.install()
        let args = Self.mergedOptions(["-hmm", model.modelDirectory] + (loadsDictionary ? ["-dict", model.dictionary] : []) + options)
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) }
        defer { argv.forEach { free($0) } }
        guard let cfg = cmd_ln_parse_r(nil, ps_args(), Int32(argv.count), &argv, 1) else {
            throw RecognitionError(message: "PocketSphinx rejected its options \(options)")
        }
        config = cfg
        guard let ps = ps_init(cfg) else {
            _ = cmd_ln_free_r(cfg)
            throw RecognitionError(message: "PocketSphinx could not load the model in \(model.modelDirectory)")
        }
        decoder = ps
    }

    deinit {
        _ = ps_free(decoder)
        _ = cmd_ln_free_r(config)
    }

    /// Adds (or with `update` replaces) a dictionary word. Phones are CMU phones, e.g. "S AW N D S K EY P".
    /// An alternative pronunciation of an existing word is named `word(2)`, `word(3)`, ….
    /// With `update` false the active search is not rebuilt (faster when adding many words before loading a grammar).
    public func addWord(_ word: String, phones: String, update: Bool = true) throws {
        if ps_add_word(decoder, word, phones, update ? 1 : 0) < 0 {
            throw RecognitionError(message: "cannot add \"\(word)\" with phones \"\(phones)\": \(lastLogErrors())")
        }
    }

    /// Gives the decoder every pronunciation `lexicon` has for `word` (the file's, then the added ones) unless it
    /// knows the word already. Returns whether it knows the word now.
    @discardableResult
    public func learn(_ word: String, from lexicon: PronunciationLexicon) throws -> Bool {
        if knows(word) { return true }
        let entries = lexicon.entries(for: word)
        guard !entries.isEmpty else { return false }
        for e in entries where !knows(e.name) { try addWord(e.name, phones: e.phones, update: false) }
        return knows(word)
    }

    /// The live cepstral mean the front end subtracts (one value per cepstral coefficient, 13 for the en-us
    /// model). It starts at the model's `-cmninit` and moves towards this microphone's and voice's mean at the
    /// end of every utterance.
    public var cepstralMean: [Float] {
        guard let cmn = ps_get_feat(decoder)?.pointee.cmn_struct else { return [] }
        var mean = [Float](repeating: 0, count: Int(cmn.pointee.veclen))
        cmn_live_get(cmn, &mean)
        return mean
    }

    /// Starts the live cepstral mean at `mean` (from ``cepstralMean`` of an earlier run on the same
    /// microphone), as if that many frames had been heard. Call between utterances.
    public func setCepstralMean(_ mean: [Float]) throws {
        guard let cmn = ps_get_feat(decoder)?.pointee.cmn_struct else { throw RecognitionError(message: "the decoder has no cepstral mean") }
        guard mean.count == Int(cmn.pointee.veclen), mean.allSatisfy(\.isFinite) else {
            throw RecognitionError(message: "a cepstral mean needs \(cmn.pointee.veclen) finite values, not \(mean.count): \(mean)")
        }
        cmn_live_set(cmn, mean)
    }

    /// Whether the dictionary has `word`.
    public func knows(_ word: String) -> Bool {
        guard let phones = ps_lookup_word(decoder, word) else { return false }
        free(phones)
        return true
    }

    /// Loads a JSGF grammar from text under a search name and makes it the active search.
    public func useGrammar(jsgf: String, name: String = "commands") throws {
        if ps_set_jsgf_string(decoder, name, jsgf) < 0 {
            throw RecognitionError(message: "the grammar \"\(name)\" did not load: \(lastLogErrors())")
        }
        if ps_set_search(decoder, name) < 0 {
            throw RecognitionError(message: "cannot switch to the grammar \"\(name)\"")
        }
    }

    /// Decodes one whole utterance of 16 kHz mono 16-bit samples, streaming it in 1024-sample chunks
    /// as live input would arrive.
    public func decode(_ samples: [Int16]) throws -> Hypothesis {
        try begin()
        var start = 0
        while start < samples.count {
            let end = min(start + 1024, samples.count)
            try process(samples[start..<end])
            start = end
        }
        return try end()
    }

    public func begin() throws {
        if ps_start_utt(decoder) < 0 { throw RecognitionError(message: "cannot start an utterance: \(lastLogErrors())") }
    }

    public func process(_ chunk: ArraySlice<Int16>) throws {
        let rc = chunk.withUnsafeBufferPointer { ps_process_raw(decoder, $0.baseAddress, $0.count, 0, 0) }
        if rc < 0 { throw RecognitionError(message: "decoding failed: \(lastLogErrors())") }
    }

    public func end() throws -> Hypothesis {
        if ps_end_utt(decoder) < 0 { throw RecognitionError(message: "cannot end the utterance: \(lastLogErrors())") }
        var score: Int32 = 0
        let text = ps_get_hyp(decoder, &score).map { String(cString: $0) } ?? ""
        return Hypothesis(text: text.split(separator: " ").joined(separator: " "), score: score, frames: Int(ps_get_n_frames(decoder)))
    }

    /// The ERROR lines PocketSphinx logged most recently (it reports grammar and dictionary problems there).
    func lastLogErrors() -> String { SphinxLog.shared.recentErrors() }
}

/// PocketSphinx and sphinxbase log through one process-wide FILE pointer. We point it, once, at a private
/// temporary file (their INFO output is very chatty) and quote its ERROR lines in our own error messages.
final class SphinxLog: @unchecked Sendable {
    static let shared = SphinxLog()
    private let lock = NSLock()
    private let file: UnsafeMutablePointer<FILE>?
    private var installed = false

    private init() { file = tmpfile() }

    func install() {
        lock.withLock {
            guard !installed else { return }
            err_set_logfp(file)
            installed = true
        }
    }

    func recentErrors() -> String {
        lock.withLock {
            guard let file else { return "no details" }
            fflush(file)
            let size = ftell(file)
            guard size > 0 else { return "no details" }
            let window = min(size, 16_384)
            fseek(file, size - window, SEEK_SET)
            var bytes = [UInt8](repeating: 0, count: window)
            let n = fread(&bytes, 1, window, file)
            fseek(file, 0, SEEK_END)
            let lines = String(decoding: bytes.prefix(n), as: UTF8.self).split(separator: "\n")
            // Keep PocketSphinx's words, not the C file and line they came from.
            let errors = lines.filter { $0.hasPrefix("ERROR") }.suffix(3).map { line -> String in
                var text = Substring(line.dropFirst("ERROR:".count))
                if let range = text.range(of: #"^\s*"[^"]*", line \d+:\s*"#, options: .regularExpression) {
                    text = text[range.upperBound...]
                }
                return text.trimmingCharacters(in: .whitespaces)
            }
            return errors.isEmpty ? "no details" : errors.joined(separator: "; ")
        }
    }
}
