import Foundation

/// What the recognizer made of one utterance.
public struct VoiceResult: Sendable, Equatable {
    /// The words the grammar search heard (lower case, pronunciation numbers removed); may be empty.
    public var text: String
    /// The command, when the words parse and the confidence passes the threshold.
    public var command: RecognizedCommand?
    /// The command the words parse to, before the confidence check (nil when they parse to none).
    public var heard: RecognizedCommand?
    /// 0…1, see ``ConfidenceModel``. When the N-best margin was not needed for the decision
    /// (``ConfidenceFeatures/nbestMarginMeasured`` false) it counts as 0, so this is a lower bound.
    public var confidence: Double
    /// Why it was rejected, when it was.
    public var rejection: String?
    public var features: ConfidenceFeatures
    /// What the everyday-words loop heard in the same audio (for diagnosis; empty without the loop).
    public var everydayText: String = ""
    /// Audio length in seconds.
    public var duration: Double
    /// The phone loop heard no speech sounds in it, only noise (``VoiceRecognizer/minimumSpeechFrames``).
    public var noSpeech = false

    public var rejected: Bool { command == nil }
}

/// The command recognizer: one long-lived grammar decoder (its live cepstral mean adapts to the stream),
/// a phone-loop decoder and an everyday-words decoder (``EverydayWords``) fed the same audio for the
/// confidence measure, the grammar with its dynamic slots, and pronunciations for words the dictionary
/// lacks. Live input and `soundscape listen` use it alike. Not thread-safe: use from one thread or task at a time.
public final class VoiceRecognizer {
    public struct Configuration: Sendable {
        public var model: AcousticModel
        /// Phonetic language model for the phone loop; nil disables the acoustic confidence.
        public var phoneLoopModel: String?
        public var decoderOptions: [String]
        public var confidence: ConfidenceModel
        /// Decides when the N-best margin was wanted but its search ran past ``VoiceRecognizer/marginBudget``.
        public var confidenceWithoutMargin: ConfidenceModel
        /// Street-noise suppression before both decoders (maximum attenuation in dB, negative); nil for none.
        /// −15 dB (speexdsp's default) with a −50 dBFS floor put back: in the bench it raised command accuracy at
        /// 5 dB SNR by about 4 points at the same false rejection and out-of-grammar rejection, and cost nothing clean.
        public var noiseSuppression: Int32?
        /// The RNNoise shared library (``NeuralNoiseSuppressor``), run before the spectral suppressor; nil for none.
        /// In the bench (held-out voices) the grammar decoder's words were right for 92.9 % of the commands in 5 dB
        /// street noise instead of 75.7 %, and for 95.8 % at 10 dB instead of 85.6 %; in quiet 94.9 % (94.6). The
        /// rejection model was refitted on it. It costs about 6 % of a core while listening (decode speed 3.6
        /// instead of 4.6 × real time).
        public var neuralDenoiser: String?
        /// Large-vocabulary language model whose commonest words form the everyday-speech loop decoded beside
        /// the grammar (``EverydayWords``, ``ConfidenceFeatures/everydayMargin``); nil for none.
        public var everydayLanguageModel: String?
        /// How many of its words the loop has (0 for no loop).
        public var everydayWords: Int
        /// PocketSphinx options for the everyday loop alone, after the shared ones and its narrow beams.
        public var everydayOptions: [String] = Configuration.defaultEverydayOptions
        /// PocketSphinx options for the phone loop, after its own. Two Gaussians per codebook instead of four
        /// (`-topn 2`): the loop only gives the scores the grammar path is compared with. In the bench (2 held-out
        /// voices, clean, 10 and 5 dB, 285 out-of-grammar sentences) it cut the loop's time by 8 %; clean accuracy
        /// 94.9 % (94.5), false rejection 1.3 % (1.7), 5 dB 68.2 % (69.1), out-of-grammar rejection 84.6 % (81.8),
        /// with the confidence model fitted on four. `SOUNDSCAPE_ASR_PHONELOOP_OPTIONS` replaces it, for comparisons.
        public var phoneLoopOptions: [String] = Configuration.defaultPhoneLoopOptions
        /// Decode the first utterance a second time, once the first pass has adapted the decoders to it
        /// (``VoiceRecognizer/finish()``). `SOUNDSCAPE_ASR_COLDSTART=once` turns it off (for comparisons).
        public var redecodesColdStart: Bool = ProcessInfo.processInfo.environment["SOUNDSCAPE_ASR_COLDSTART"] != "once"

        public init(model: AcousticModel = .debianEnglish,
                    phoneLoopModel: String? = "/usr/share/pocketsphinx/model/en-us/en-us-phone.lm.bin",
                    decoderOptions: [String] = Configuration.defaultDecoderOptions, confidence: ConfidenceModel = .tuned,
                    confidenceWithoutMargin: ConfidenceModel? = nil,
                    noiseSuppression: Int32? = Configuration.defaultNoiseSuppression,
                    neuralDenoiser: String? = Configuration.defaultNeuralDenoiser,
                    everydayLanguageModel: String? = "/usr/share/pocketsphinx/model/en-us/en-us.lm.bin",
                    everydayWords: Int = Configuration.defaultEverydayWords) {
            self.model = model
            self.phoneLoopModel = phoneLoopModel
            self.decoderOptions = decoderOptions
            self.confidence = confidence
            // A model other than the tuned one brings no fallback of its own: it decides alone (margin 0).
            self.confidenceWithoutMargin = confidenceWithoutMargin ?? (confidence == .tuned ? .tunedWithoutMargin : confidence)
            self.noiseSuppression = noiseSuppression
            self.neuralDenoiser = neuralDenoiser
            self.everydayLanguageModel = everydayLanguageModel
            self.everydayWords = everydayWords
        }

        /// None, or what `SOUNDSCAPE_ASR_OPTIONS` says (PocketSphinx options separated by spaces, such as
        /// "-topn 8 -wip 0.5"), for comparisons in the bench. They go to the grammar decoder and the everyday loop.
        public static var defaultDecoderOptions: [String] { options(from: "SOUNDSCAPE_ASR_OPTIONS") }

        /// None, or what `SOUNDSCAPE_ASR_EVERYDAY_OPTIONS` says (as `SOUNDSCAPE_ASR_OPTIONS`, for the loop alone).
        public static var defaultEverydayOptions: [String] { options(from: "SOUNDSCAPE_ASR_EVERYDAY_OPTIONS") }

        /// The environment variable's PocketSphinx options, split at spaces; none when it is not set.
        static func options(from variable: String) -> [String] {
            (ProcessInfo.processInfo.environment[variable] ?? "").split(separator: " ").map(String.init)
        }

        /// 1,200, or what `SOUNDSCAPE_ASR_EVERYDAY` says ("off" or a number of words), for comparisons in the bench.
        ///
        /// With 400 words, short remarks and everyday questions whose words were not among them ("where is the
        /// exit", "open the window", "play some jazz") fitted a command better than the loop. With the rejection
        /// model refitted for each size on the same bench corpus (held-out voices and sentences, thresholds set to
        /// refuse 2 % of the tuning split's clean commands, the N-best margin always measured): 400 words rejected
        /// 91.6 % of the out-of-grammar sentences, 800 words 94.0 %, 1,200 words 95.2 %, while the clean commands
        /// refused went from 1.9 % to 2.5 % and 2.2 %. Fitted as shipped (with the margin's 35 ms budget), 1,200
        /// words reject 94.4 % against 91.6 %, refuse 2.2 % of clean commands either way, and get 90.0 % at 5 dB
        /// against 90.6 %. The loop's narrow beams keep the cost moderate: the bench's dump run decoded at 5.65
        /// instead of 6.58 × real time.
        public static var defaultEverydayWords: Int {
            let standard = 1200
            guard let v = ProcessInfo.processInfo.environment["SOUNDSCAPE_ASR_EVERYDAY"] else { return standard }
            return v == "off" ? 0 : Int(v) ?? standard
        }

        /// `-topn 2`, or what `SOUNDSCAPE_ASR_PHONELOOP_OPTIONS` says (as `SOUNDSCAPE_ASR_OPTIONS`, for the phone loop).
        public static var defaultPhoneLoopOptions: [String] {
            ProcessInfo.processInfo.environment["SOUNDSCAPE_ASR_PHONELOOP_OPTIONS"] == nil ? ["-topn", "2"] : options(from: "SOUNDSCAPE_ASR_PHONELOOP_OPTIONS")
        }

        /// What `SOUNDSCAPE_ASR_RNNOISE` names ("off" for none), or else `$SOUNDSCAPE_DATA/rnnoise/librnnoise.so`
        /// (where scripts/setup puts it; the Makefile sets `SOUNDSCAPE_DATA`), or else none. The program passes
        /// the path it finds itself (App's ProjectPaths, which also knows the installed layout).
        public static var defaultNeuralDenoiser: String? {
            let environment = ProcessInfo.processInfo.environment
            if let chosen = environment["SOUNDSCAPE_ASR_RNNOISE"] { return chosen == "off" ? nil : chosen }
            return environment["SOUNDSCAPE_DATA"].map { $0 + "/rnnoise/librnnoise.so" }
        }

        /// −15 dB, or what `SOUNDSCAPE_ASR_DENOISE` says ("off", or a level such as "-8"), for comparisons in the bench.
        public static var defaultNoiseSuppression: Int32? {
            if let v = ProcessInfo.processInfo.environment["SOUNDSCAPE_ASR_DENOISE"] { return v == "off" ? nil : Int32(v) }
            return -15
        }
    }

    public let configuration: Configuration
    public private(set) var grammar: CommandGrammar
    public let decoder: PocketSphinxDecoder
    let phoneLoop: PocketSphinxDecoder?
    let pronouncer: (any Pronouncer)?
    let suppressor: NoiseSuppressor?
    /// RNNoise before the spectral suppressor; nil when not configured or not loaded (``neuralDenoiserProblem``).
    let neural: NeuralNoiseSuppressor?
    /// Why RNNoise is not in use although it was configured (the library missing or broken); nil otherwise.
    public let neuralDenoiserProblem: String?
    /// What cleans the audio before the decoders, in words ("RNNoise (AVX2 kernels with RNNoise's 8-bit
    /// weights), then speexdsp").
    public var noiseSuppressionDescription: String {
        (neural.map { "RNNoise (\($0.library.arithmetic)), then " } ?? "") + (suppressor == nil ? "no spectral suppressor" : "speexdsp")
    }
    /// The loaded grammar's two searches: every command but waking up, and only waking up (``ListeningState``).
    /// When a state would admit no phrasing of the grammar, its search is the whole grammar.
    private var searchNames: [ListeningState: String] = [:]
    private var generation = 0
    /// What is listened for (``ListeningState``); change it with ``setListeningState(_:)``.
    public private(set) var listeningState: ListeningState = .awake
    private var samplesThisUtterance = 0
    private var bigrams: PhoneBigrams?
    /// The everyday-speech loop's words and its decoder; nil when off.
    public let everyday: EverydayWords?
    let everydayLoop: PocketSphinxDecoder?
    /// Words given pronunciations by the pronouncer (word → CMU phones), for diagnostics and tests.
    public private(set) var generatedPronunciations: [String: [String]] = [:]
    /// Changes whenever the grammar or its slot phrases were loaded anew (for a second recognizer that follows them).
    public var grammarGeneration: Int { generation }
    /// Keep each utterance's audio as it came in (``utteranceAudio``), for a second recognizer.
    public var keepsUtteranceAudio = false
    /// The current (or last) utterance's audio as it came in, when ``keepsUtteranceAudio`` is on.
    public private(set) var utteranceAudio: [Int16] = []

    public var parser: IntentParser { IntentParser(grammar: grammar) }

    /// - Parameter extraWords: pronunciations to add first (Models/extra.dict).
    public init(grammar: CommandGrammar, extraWords: [(word: String, phones: String)] = [],
                pronouncer: (any Pronouncer)? = EspeakPronouncer(), configuration: Configuration = Configuration()) throws {
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
                                          options: ["-beam", "1e-60", "-wbeam", "1e-40", "-pbeam", "1e-60"] + configuration.decoderOptions)
        for e in extraWords { try decoder.addWord(e.word, phones: e.phones, update: false) }
        if let lm = configuration.everydayLanguageModel, configuration.everydayWords > 0, FileManager.default.fileExists(atPath: lm) {
            // Narrow beams: only the loop's best score is wanted, and 400 words searched as widely as the
            // grammar made the three decoders run at 2.5 × real time instead of 5 (`make bench`).
            let loop = try PocketSphinxDecoder(model: configuration.model,
                                               options: configuration.decoderOptions + ["-beam", "1e-20", "-wbeam", "1e-15", "-pbeam", "1e-20"]
                                                   + configuration.everydayOptions)
            let words = try EverydayWords.load(languageModel: lm, count: configuration.everydayWords) { loop.knows($0) }
            try loop.useGrammar(fsg: words.fsg(), name: "everyday")
            everyday = words
            everydayLoop = loop
        } else {
            everyday = nil
            everydayLoop = nil
        }
        if let lm = configuration.phoneLoopModel, FileManager.default.fileExists(atPath: lm) {
            let loop = try PocketSphinxDecoder(model: configuration.model, options: ["-allphone_ci", "yes"] + configuration.phoneLoopOptions)
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
        let unknown = Set(phrases.flatMap(\.words)).filter { !decoder.knows($0) && generatedPronunciations[$0] == nil }
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
        let missing = g.allWords.filter { !decoder.knows($0) }
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

    /// N-best paths searched for a rival (another intent or slot value) to the best one (``ConfidenceFeatures/nbestMargin``).
    static let nbestLimit = 30
    /// Frames of speech (10 ms each) the phone loop must hear for an utterance to be taken as a command at all.
    /// Street noise with nobody speaking (the key pressed and nothing said, or a crowd behind) sometimes fits a
    /// one-word command ("hush", "stop", "undo") well enough for the rejection model, while the phone loop,
    /// free to hear anything, hears nothing but silence and noise in it: every one of the 100 noise windows of a
    /// `make bench` dump had 0 frames of speech, and so did 31 of the 36 that a run of 300 windows took for a
    /// command. The rejection model cannot see this: with no speech, the features it scores low (speech left
    /// in fillers, phones heard beyond the command's) are at their best. Spoken commands had 16 frames or more
    /// in every dump (13 for one "help" without RNNoise), so 10 frames (0.1 s) is below any spoken word.
    public static let minimumSpeechFrames = 10
    /// Measure the N-best margin of every utterance, even when the other features already decide
    /// (for fitting the model and for tests); otherwise only when it could change the decision
    /// (``ConfidenceModel/marginCanChange(_:)``), since the N-best search is the slowest step after release.
    public var measuresMarginAlways = false
    /// How long ``finish()`` waits for the N-best margin. PocketSphinx builds the word lattice of a grammar
    /// search in time that grows with the square of its word exits: usually a few milliseconds, but a long
    /// noisy utterance against 150 place names can take seconds. The search runs in a forked child
    /// (``PocketSphinxDecoder/startMarginSearch(limit:same:)``); when the budget runs out the child is killed
    /// and the decision is made without the margin (by ``Configuration/confidenceWithoutMargin``). Nothing of
    /// it is left running: the next utterance starts at once and no processor time goes on an answer nobody
    /// waits for. nil waits as long as it takes (fitting the model); zero decides without the margin at once.
    public var marginBudget: Duration? = .milliseconds(35)

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
        try everydayLoop?.setCepstralMean(mean)
        if neural == nil { coldAudio = nil }
    }

    /// Whether the first utterance will be decoded twice (see ``finish()``): true for a new recognizer unless
    /// `SOUNDSCAPE_ASR_COLDSTART` is "once" or ``adapt(cepstralMean:)`` was called without RNNoise in use.
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
        try everydayLoop?.begin()
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

    /// The same audio to the grammar decoder and the two it is compared with.
    private func feedDecoders(_ samples: ArraySlice<Int16>) throws {
        try decoder.process(samples)
        try phoneLoop?.process(samples)
        try everydayLoop?.process(samples)
    }

    /// Ends the utterance and decides.
    ///
    /// The first utterance a recognizer hears is decoded twice, unless ``adapt(cepstralMean:)`` started the
    /// decoders at a mean kept from an earlier run and there is no RNNoise to warm up. Until an utterance has ended, each decoder
    /// subtracts the model's stock cepstral mean, which fits neither this microphone nor this voice, and the
    /// rejection model was fitted on decoders that had adapted. On 60 first commands (`soundscape listen`, 15
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
            _ = try everydayLoop?.end()
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
        var features = ConfidenceFeatures(words: words, phones: phones, frames: hypothesis.frames) { word in
            (decoder.phones(of: word) ?? "").split(separator: " ").map(String.init)
        }
        var everydayText = ""
        if let everydayLoop {
            let everyday = try everydayLoop.end()
            everydayText = everyday.text
            if hypothesis.frames > 0, !hypothesis.text.isEmpty, !everyday.text.isEmpty {
                features.everydayMargin = Double(hypothesis.score - everyday.score) * ConfidenceFeatures.logBase / Double(hypothesis.frames)
            }
        }
        let parser = self.parser
        @Sendable func meaning(_ text: String) -> String {
            guard let c = parser.parse(words: text.split(separator: " ").map(String.init), openSlots: false) else { return "?" + text }
            return c.intent + c.slots.sorted { $0.key < $1.key }.map { "|\($0.key)=\($0.value)" }.joined()
        }
        let text = hypothesis.text.split(separator: " ").map { w -> String in
            if let p = w.firstIndex(of: "("), w.hasSuffix(")") { return String(w[..<p]) }
            return String(w)
        }.joined(separator: " ")
        let heard = text.isEmpty ? nil : parser.parse(words: text.split(separator: " ").map(String.init), openSlots: false)
        // Words that parse to no command are rejected whatever the margin.
        let parses = heard != nil
        // The state's floor is part of the threshold everywhere it is used (``ListeningState/deciding(_:)``).
        let state = listeningState
        func deciding(_ model: ConfidenceModel) -> ConfidenceModel { state.deciding(model) }
        let noSpeech = phoneLoop != nil && features.speechFrames < Self.minimumSpeechFrames
        let needsMargin = measuresMarginAlways || (phoneLoop != nil && parses && !noSpeech && deciding(configuration.confidence).marginCanChange(features))
        var marginTimedOut = false
        if needsMargin, !hypothesis.text.isEmpty, hypothesis.frames > 0 {
            let budget = measuresMarginAlways ? nil : marginBudget
            // A process that cannot fork decides without the margin, as when there is no time for it.
            let search = budget == .zero ? nil : decoder.startMarginSearch(limit: Self.nbestLimit, same: { $0 == $1 || meaning($0) == meaning($1) })
            let (margin, timedOut) = search?.wait(for: budget) ?? (nil, true)
            if timedOut {
                marginTimedOut = true
            } else if let margin {
                features.nbestMargin = Double(margin) / Double(hypothesis.frames)
                features.nbestMarginMeasured = true
            }
        }
        let duration = Double(samplesThisUtterance) / Double(PocketSphinxDecoder.sampleRate)
        var result = VoiceResult(text: text, command: nil, heard: nil, confidence: 0, rejection: nil, features: features, duration: duration)
        result.everydayText = everydayText
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
        let model = deciding(marginTimedOut ? configuration.confidenceWithoutMargin : configuration.confidence)
        let confidence = phoneLoop == nil ? 1 : model.confidence(features)
        result.confidence = confidence
        if confidence < model.threshold {
            result.rejection = "low confidence (\(String(format: "%.2f", confidence))\(marginTimedOut ? ", no time to weigh the rivals" : ""))"
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
