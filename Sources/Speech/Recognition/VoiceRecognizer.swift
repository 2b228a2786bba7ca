import CPocketSphinx
import Foundation

/// What the recognizer made of one utterance.
public struct VoiceResult: Sendable, Equatable {
    /// The words the grammar search heard (lower case, pronunciation numbers removed); may be empty.
    public var text: String
    /// The command, when the words parse and the confidence passes the threshold.
    public var command: RecognizedCommand?
    /// The command the words parse to, before the confidence check (nil when they parse to none).
    public var heard: RecognizedCommand?
    /// 0…1, PocketSphinx's own confidence (``AcousticConfidence``).
    public var confidence: Double
    /// Why it was rejected, when it was.
    public var rejection: String?
    public var features: ConfidenceFeatures
    /// Audio length in seconds.
    public var duration: Double
    /// The phone loop heard no speech sounds in it, only noise (``VoiceRecognizer/minimumSpeechFrames``).
    public var noSpeech = false

    public var rejected: Bool { command == nil }
}

/// The command recognizer (PocketSphinx's streaming first pass): one long-lived grammar decoder (its live cepstral
/// mean adapts to the stream) and a phone-loop decoder fed the same audio for its confidence and to tell speech from
/// noise, the grammar with its dynamic slots, and pronunciations for words the dictionary lacks. Live input and
/// `soundscape listen` use it alike. Not thread-safe: use from one thread or task at a time.
public final class VoiceRecognizer {
    /// The recognizer's settings, passed in as values by the program (nothing is read from the environment here).
    public struct Configuration: Sendable {
        public var model: AcousticModel
        /// Phonetic language model for the phone loop; nil disables the acoustic confidence and the speech check.
        public var phoneLoopModel: String?
        /// Extra PocketSphinx options for the grammar decoder.
        public var decoderOptions: [String]
        /// PocketSphinx's own confidence and its threshold.
        public var confidence: AcousticConfidence
        /// Street-noise suppression before the decoders (speexdsp; maximum attenuation in dB, negative); nil for none.
        /// −15 dB (speexdsp's default) with a −50 dBFS floor put back.
        public var noiseSuppression: Int32?
        /// The RNNoise shared library (``NeuralNoiseSuppressor``), run before the spectral suppressor; nil for none.
        public var neuralDenoiser: String?
        /// PocketSphinx options for the phone loop, after its own: two Gaussians per codebook instead of four
        /// (`-topn 2`), since the loop only gives the scores the grammar path is compared with.
        public var phoneLoopOptions: [String] = ["-topn", "2"]
        /// Decode the first utterance a second time, once the first pass has adapted the decoders to it
        /// (``VoiceRecognizer/finish()``).
        public var redecodesColdStart = true

        public init(model: AcousticModel = .debianEnglish,
                    phoneLoopModel: String? = "/usr/share/pocketsphinx/model/en-us/en-us-phone.lm.bin",
                    decoderOptions: [String] = [], confidence: AcousticConfidence = .standard,
                    noiseSuppression: Int32? = -15, neuralDenoiser: String? = nil) {
            self.model = model
            self.phoneLoopModel = phoneLoopModel
            self.decoderOptions = decoderOptions
            self.confidence = confidence
            self.noiseSuppression = noiseSuppression
            self.neuralDenoiser = neuralDenoiser
        }
    }

    public let configuration: Configuration
    public private(set) var grammar: CommandGrammar
    public let decoder: PocketSphinxDecoder
    let phoneLoop: PocketSphinxDecoder?
    /// The pronunciations words are taken from (the model's dictionary, then the extra words): the decoder is given
    /// only the words its grammars use, as they are loaded, instead of the whole dictionary.
    public let lexicon: PronunciationLexicon
    let pronouncer: (any Pronouncer)?
    let suppressor: NoiseSuppressor?
    /// RNNoise before the spectral suppressor; nil when not configured or not loaded (``neuralDenoiserProblem``).
    let neural: NeuralNoiseSuppressor?
    /// Why RNNoise is not in use although it was configured (the library missing or broken); nil otherwise.
    public let neuralDenoiserProblem: String?
    /// What cleans the audio before the decoders, in words ("RNNoise, then speexdsp").
    public var noiseSuppressionDescription: String {
        (neural == nil ? "" : "RNNoise, then ") + (suppressor == nil ? "no spectral suppressor" : "speexdsp")
    }
    /// The loaded grammar's two searches: every command but waking up, and only waking up (``ListeningState``).
    /// When a state would admit no phrasing of the grammar, its search is the whole grammar.
    private var searchNames: [ListeningState: String] = [:]
    private var generation = 0
    /// What is listened for (``ListeningState``); change it with ``setListeningState(_:)``.
    public private(set) var listeningState: ListeningState = .awake
    private var samplesThisUtterance = 0
    private var bigrams: PhoneBigrams?
    /// Words given pronunciations by the pronouncer (word → CMU phones), for diagnostics and tests.
    public private(set) var generatedPronunciations: [String: [String]] = [:]
    /// Changes whenever the grammar or its slot phrases were loaded anew (for a second recognizer that follows them).
    public var grammarGeneration: Int { generation }
    /// Keep each utterance's audio as it came in (``utteranceAudio``), for a second recognizer.
    public var keepsUtteranceAudio = false
    /// The current (or last) utterance's audio as it came in, when ``keepsUtteranceAudio`` is on.
    public private(set) var utteranceAudio: [Int16] = []

    public var parser: IntentParser { IntentParser(grammar: grammar) }

    /// - Parameters:
    ///   - extraWords: pronunciations after the dictionary's (Models/extra.dict).
    ///   - lexicon: the model's dictionary already read (to share it with a wake-word spotter); nil reads it.
    public init(grammar: CommandGrammar, extraWords: [(word: String, phones: String)] = [],
                pronouncer: (any Pronouncer)? = EspeakPronouncer(), configuration: Configuration = Configuration(),
                lexicon: PronunciationLexicon? = nil) throws {
        self.configuration = configuration
        coldAudio = configuration.redecodesColdStart ? [] : nil
        self.grammar = grammar
        self.pronouncer = pronouncer
        suppressor = configuration.noiseSuppression.map { NoiseSuppressor(suppression: $0, floor: 100) }
        if let path = configuration.neuralDenoiser {
            do {
                neural = try NeuralNoiseSuppressor(library: NeuralNoiseSuppressor.Library(path: path))
                neuralDenoiserProblem = nil
            } catch {
                neural = nil
                neuralDenoiserProblem = "\(error); speech is recognized less well in street noise"
            }
        } else {
            neural = nil
            neuralDenoiserProblem = nil
        }
        decoder = try PocketSphinxDecoder(model: configuration.model,
                                          options: ["-beam", "1e-60", "-wbeam", "1e-40", "-pbeam", "1e-60"] + configuration.decoderOptions,
                                          loadsDictionary: false)
        let words = try lexicon?.adding(extraWords)
            ?? PronunciationLexicon(contentsOf: configuration.model.dictionary, extra: extraWords)
        self.lexicon = words
        // The extra words at once, so that a broken line shows at start-up.
        for e in extraWords { try decoder.learn(PronunciationLexicon.baseWord(e.word), from: words) }
        if let lm = configuration.phoneLoopModel, FileManager.default.fileExists(atPath: lm) {
            // The phone loop hears phones, not words: no dictionary.
            let loop = try PocketSphinxDecoder(model: configuration.model, options: ["-allphone_ci", "yes"] + configuration.phoneLoopOptions,
                                               loadsDictionary: false)
            try loop.usePhoneLoop(languageModel: lm)
            phoneLoop = loop
        } else {
            phoneLoop = nil
        }
        try load(grammar)
    }

    /// Switches to another grammar (an edited one). On error the current grammar stays active.
    public func replaceGrammar(_ newGrammar: CommandGrammar) throws {
        var g = newGrammar
        for (source, list) in grammar.phrases where g.dynamicSources.contains(source) { g.setPhrases(list, for: source) }
        try load(g)
    }

    /// Replaces the phrases of a dynamic slot source (places near the user, markers, routes) and reloads
    /// the search. Phrases with words nobody can pronounce are left out.
    public func setPhrases(_ phrases: [SlotPhrase], for source: String) throws {
        var g = grammar
        let unknown = Set(phrases.flatMap(\.words)).filter { !learn($0) && generatedPronunciations[$0] == nil }
        // Names keep their own spelling too ("Pääposti" is read differently from "paaposti").
        var spellings: [String: Set<String>] = [:]
        for p in phrases {
            let original = p.value.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init)
            guard original.count == p.words.count else { continue }
            for (w, o) in zip(p.words, original) where o != w && unknown.contains(w) { spellings[w, default: []].insert(o) }
        }
        let made = pronounce(Array(unknown), spellings: spellings)
        let speakable = phrases.filter { p in p.words.allSatisfy { decoder.knows($0) || made.contains($0) } }
        g.setPhrases(speakable, for: source)
        try load(g)
    }

    private func load(_ g: CommandGrammar) throws {
        let missing = g.allWords.filter { !learn($0) }
        let made = pronounce(Array(missing))
        if let word = missing.subtracting(made).sorted().first {
            let location = g.words[word] ?? SourceLocation(file: "grammar", line: 0, column: 0)
            throw GrammarError(location, "\"\(word)\" is not in the pronunciation dictionary and espeak-ng could not pronounce it; add it to Models/extra.dict")
        }
        generation += 1
        var names: [ListeningState: String] = [:]
        do {
            for state in ListeningState.allCases {
                let name = "commands\(generation)\(state.rawValue)"
                try decoder.addGrammar(jsgf: (g.restricted(to: state.admits) ?? g).decoderJSGF(), name: name)
                names[state] = name
            }
            try decoder.switchSearch(to: names[listeningState]!)
        } catch let error as RecognitionError {
            for name in names.values { decoder.removeSearch(name) }
            let file = g.files.first?.path ?? "grammar"
            throw GrammarError(SourceLocation(file: file, line: 0, column: 0), error.message)
        }
        for name in searchNames.values { decoder.removeSearch(name) }
        searchNames = names
        grammar = g
        Self.returnFreedMemory()
    }

    /// Gives freed heap pages back to the system: those of the searches just replaced and of the grammar's
    /// conversion, and whatever else was freed since; glibc would otherwise keep it in its arenas for reuse
    /// (docs/measurements.md, "Footprint (idle run)").
    static func returnFreedMemory() {
        _ = malloc_trim(0)
    }

    /// Whether the decoder knows `word`, after giving it the lexicon's pronunciations if it has any.
    private func learn(_ word: String) -> Bool {
        (try? decoder.learn(word, from: lexicon)) ?? decoder.knows(word)
    }

    /// Listens for what can be said in `state` from the next utterance on; call between utterances.
    public func setListeningState(_ state: ListeningState) throws {
        guard state != listeningState else { return }
        if let name = searchNames[state] { try decoder.switchSearch(to: name) }
        listeningState = state
    }

    /// Adds pronunciations for words; returns the words that now have one.
    @discardableResult
    private func pronounce(_ words: [String], spellings: [String: Set<String>] = [:]) -> Set<String> {
        guard !words.isEmpty, let pronouncer else { return [] }
        var prons = pronouncer.pronunciations(for: words)
        let originals = spellings.values.flatMap { $0 }
        if !originals.isEmpty {
            let extra = pronouncer.pronunciations(for: Array(Set(originals)))
            for (word, forms) in spellings {
                for form in forms.sorted() {
                    for p in extra[form] ?? [] where !(prons[word] ?? []).contains(p) { prons[word, default: []].append(p) }
                }
            }
        }
        if bigrams == nil { bigrams = (try? PhoneBigrams(dictionary: configuration.model.dictionary)) ?? PhoneBigrams(pairs: []) }
        if let bigrams, !bigrams.pairs.isEmpty {
            for (word, list) in prons {
                var repaired: [String] = []
                for p in list {
                    let r = bigrams.repair(p.split(separator: " ").map(String.init)).joined(separator: " ")
                    if !r.isEmpty && !repaired.contains(r) { repaired.append(r) }
                }
                prons[word] = repaired
            }
        }
        var done = Set<String>()
        for (word, list) in prons {
            for (i, phones) in list.enumerated() {
                let name = i == 0 ? word : "\(word)(\(i + 1))"
                if (try? decoder.addWord(name, phones: phones, update: false)) != nil, i == 0 { done.insert(word) }
            }
            generatedPronunciations[word] = list
        }
        return done
    }

    // MARK: decoding

    /// Frames of speech (10 ms each) the phone loop must hear for an utterance to be taken as a command at all.
    /// Street noise with nobody speaking (the key pressed and nothing said, or a crowd behind) sometimes fits a
    /// one-word command ("hush", "stop", "undo") well enough for the rejection model, while the phone loop,
    /// free to hear anything, hears nothing but silence and noise in it: every one of the 100 noise windows of a
    /// `make bench` dump had 0 frames of speech, and so did 31 of the 36 that a run of 300 windows took for a
    /// command. How well the words fit cannot show this: with no speech, a short command over noise fits as well as
    /// anything else does. Spoken commands had 16 frames or more
    /// in every dump (13 for one "help" without RNNoise), so 10 frames (0.1 s) is below any spoken word.
    public static let minimumSpeechFrames = 10
    /// The first utterance's audio, kept while the decoders are cold (see ``finish()``); nil once they are warm.
    private var coldAudio: [Int16]?

    /// The live cepstral mean the decoders have reached (``PocketSphinxDecoder/cepstralMean``); keep it per
    /// microphone and give it to ``adapt(cepstralMean:)`` on the next start.
    public var cepstralMean: [Float] { decoder.cepstralMean }

    /// Starts every decoder at a cepstral mean kept from an earlier run on the same microphone, so that
    /// the first utterance is decoded once, by decoders already adapted to it (twice when RNNoise is in use, whose
    /// state is not kept). Call before the first utterance.
    ///
    /// The second pass with RNNoise was measured (`make bench`, "first command after a restart": 72 first
    /// commands by 3 voices, clean and in 10 dB street noise, each recognizer started at the mean a run of 12 other
    /// commands by the same voice left). Decoded once, 66 were right and 6 rejected, answered 10 ms (median) after
    /// the release; decoded twice, 69 right and 3 rejected, in 315 ms (490 ms p95). Other noise draws gave 67
    /// against 70, and on 48 commands 48 either way; feeding RNNoise a second of the street before the first
    /// command instead of a second pass got 47 of those 48 and was not kept. The second pass stays: a third of a
    /// second, once a session, for fewer first commands refused.
    public func adapt(cepstralMean mean: [Float]) throws {
        try decoder.setCepstralMean(mean)
        try phoneLoop?.setCepstralMean(mean)
        if neural == nil { coldAudio = nil }
    }

    /// Whether the first utterance will be decoded twice (see ``finish()``): true for a new recognizer unless
    /// ``Configuration/redecodesColdStart`` is off or ``adapt(cepstralMean:)`` was called without RNNoise in use.
    /// Settable before the first utterance, for comparisons in the bench.
    public var decodesFirstUtteranceTwice: Bool {
        get { coldAudio != nil }
        set { coldAudio = newValue ? [] : nil }
    }

    public func begin() throws {
        samplesThisUtterance = 0
        utteranceAudio.removeAll(keepingCapacity: true)
        if coldAudio != nil { coldAudio = [] }
        try decoder.begin()
        try phoneLoop?.begin()
    }

    /// Feeds 16 kHz mono samples as they arrive.
    public func process(_ chunk: ArraySlice<Int16>) throws {
        samplesThisUtterance += chunk.count
        coldAudio?.append(contentsOf: chunk)
        if keepsUtteranceAudio { utteranceAudio.append(contentsOf: chunk) }
        if let neural {
            try feedSuppressor(neural.process(chunk)[...])
        } else {
            try feedSuppressor(chunk)
        }
    }

    /// Audio after RNNoise (if any) through the spectral suppressor (if any) to the decoders.
    private func feedSuppressor(_ samples: ArraySlice<Int16>) throws {
        guard !samples.isEmpty else { return }
        if let suppressor {
            let clean = suppressor.process(samples)
            if !clean.isEmpty { try feedDecoders(clean[...]) }
        } else {
            try feedDecoders(samples)
        }
    }

    /// The end of the utterance through both suppressors.
    private func flushSuppressors() throws {
        if let rest = neural?.flush() { try feedSuppressor(rest[...]) }
        if let rest = suppressor?.flush(), !rest.isEmpty { try feedDecoders(rest[...]) }
    }

    /// The same audio to the grammar decoder and the phone loop it is compared with.
    private func feedDecoders(_ samples: ArraySlice<Int16>) throws {
        try decoder.process(samples)
        try phoneLoop?.process(samples)
    }

    /// Ends the utterance and decides.
    ///
    /// The first utterance a recognizer hears is decoded twice, unless ``adapt(cepstralMean:)`` started the
    /// decoders at a mean kept from an earlier run and there is no RNNoise to warm up. Until an utterance has ended, each decoder
    /// subtracts the model's stock cepstral mean, which fits neither this microphone nor this voice. On 60 first commands (`soundscape listen`, 15
    /// commands × 4 voices) one cold pass got 35 right and rejected 20; two passes got 45 right and rejected 5,
    /// at the price of 5 more misheard and more out-of-grammar speech taken (6 of 19 sentences, 1 of 20 cold).
    /// The first pass leaves the decoders (and the noise suppressor) adapted to this audio; the second decides.
    /// It costs one more decode of that utterance, once per recognizer.
    public func finish() throws -> VoiceResult {
        if let cold = coldAudio, !cold.isEmpty {
            coldAudio = nil
            try flushSuppressors()
            _ = try decoder.end()
            _ = try phoneLoop?.end()
            try begin()
            try processInChunks(cold)
        }
        try flushSuppressors()
        let hypothesis = try decoder.end()
        let words = decoder.segments()
        var phones: [DecodedSegment] = []
        if let phoneLoop {
            _ = try phoneLoop.end()
            phones = phoneLoop.segments()
        }
        let decoder = self.decoder
        let features = ConfidenceFeatures(words: words, phones: phones, frames: hypothesis.frames) { word in
            (decoder.phones(of: word) ?? "").split(separator: " ").map(String.init)
        }
        let parser = self.parser
        let text = hypothesis.text.split(separator: " ").map { w -> String in
            if let p = w.firstIndex(of: "("), w.hasSuffix(")") { return String(w[..<p]) }
            return String(w)
        }.joined(separator: " ")
        let heard = text.isEmpty ? nil : parser.parse(words: text.split(separator: " ").map(String.init), openSlots: false)
        let state = listeningState
        let noSpeech = phoneLoop != nil && features.speechFrames < Self.minimumSpeechFrames
        let duration = Double(samplesThisUtterance) / Double(PocketSphinxDecoder.sampleRate)
        var result = VoiceResult(text: text, command: nil, heard: nil, confidence: 0, rejection: nil, features: features, duration: duration)
        result.noSpeech = noSpeech
        guard !text.isEmpty else { result.rejection = "nothing heard"; return result }
        guard let command = heard else {
            result.rejection = "the words match no command"
            return result
        }
        result.heard = command
        if noSpeech {
            result.rejection = "no speech, only noise (\(features.speechFrames * 10) ms of speech sounds; a spoken word has at least \(Self.minimumSpeechFrames * 10))"
            return result
        }
        let deciding = state.deciding(configuration.confidence)
        let confidence = phoneLoop == nil ? 1 : deciding.confidence(features)
        result.confidence = confidence
        if confidence < deciding.threshold {
            result.rejection = "low confidence (\(String(format: "%.2f", confidence)))"
            return result
        }
        var accepted = command
        accepted.confidence = confidence
        result.command = accepted
        return result
    }

    /// Decodes a whole utterance, streamed in 1024-sample chunks as live input would arrive.
    public func recognize(_ samples: [Int16]) throws -> VoiceResult {
        try begin()
        try processInChunks(samples)
        return try finish()
    }

    private func processInChunks(_ samples: [Int16]) throws {
        var i = 0
        while i < samples.count {
            try process(samples[i..<min(i + 1024, samples.count)])
            i += 1024
        }
    }
}
