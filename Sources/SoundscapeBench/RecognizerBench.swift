import App
import Audio
import Foundation
import Speech
import Synchronization

/// The two-recognizer decision measured as `soundscape run` makes it (PocketSphinx streamed in 20 ms chunks, its
/// final result, then ``SecondOpinion/decide(samples:first:state:)`` on the utterance's audio), on voices of three
/// synthesizers: espeak-ng, on which the decision's thresholds were chosen, and festival and Piper, held out and
/// reported each on its own. Every command of the grammars (slot values included), everyday and near-miss sentences,
/// clean, in the city ambience and in a crowd of other voices at 20, 10 and 5 dB.
enum RecognizerBench {
    struct Options {
        /// A small subset (a few voices, the commands that undo another and a handful more, fewer conditions) for quick
        /// before/after comparisons.
        var quick = false
        /// Take every n-th command of the grammars (1: all).
        var stride = 1
        /// Stop starting new sentences after this many seconds of recognition (a busy machine); the figures then rest
        /// on fewer sentences, each in every condition.
        var budget: Double?
        /// The program's cache folder, where the rendered voices are kept.
        var cache: String
        /// About how many characters of prompt Whisper is given (``SecondOpinion/promptLimit``).
        var promptLimit = SecondOpinion.standardPromptLimit
        /// How many of the likeliest sentences of the grammar Whisper's search returns (``SecondOpinion/searchCount``).
        var searchCount = SecondOpinion.standardSearchCount
    }

    enum Noise: String { case ambience = "ambience", crowd = "crowd" }
    struct Condition: Hashable, Comparable {
        var noise: Noise?
        var snr: Double?
        var label: String { noise.map { "\(Int(snr ?? 0)) dB \($0.rawValue)" } ?? "clean" }
        static func < (a: Condition, b: Condition) -> Bool { (a.snr ?? 99, a.noise?.rawValue ?? "") > (b.snr ?? 99, b.noise?.rawValue ?? "") }
    }

    /// Sentences that come close to a command, most of them to one that undoes another ("turn on the lights").
    static let nearMisses = [
        "turn on the lights", "turn off the lights", "switch off the radio", "turn the music on", "mute the television",
        "unmute your microphone", "speak to me", "make it louder please", "it is too quiet here", "slow down a little",
        "go faster", "the callouts were helpful", "where is the beacon shop", "stop talking to me", "start the car",
        "put your phone on silent", "i use the metric system at work", "wake me up at seven", "go to sleep now", "what is around the corner",
    ]

    struct Outcome {
        var voice: BenchVoice
        var condition: Condition
        var text: String
        var expected: RecognizedCommand?
        var taken: RecognizedCommand?
        var decision: RecognizerDecision.Outcome?
        var firstAlone: RecognizedCommand?
        var latency: Double
        /// What the decision was made from, to make it again with other thresholds (the fit).
        var first: FirstOpinion
        var snap: Snap?
        var logProbability: Double?
        var transcriberMilliseconds: Double?
        var scores: SentenceScores?
    }

    static func same(_ a: RecognizedCommand?, _ b: RecognizedCommand?) -> Bool {
        guard let a, let b else { return false }
        return a.intent == b.intent && a.slots.filter { $0.key != "text" } == b.slots.filter { $0.key != "text" }
    }

    static func opposite(_ expected: RecognizedCommand?, _ taken: RecognizedCommand?) -> Bool {
        guard let e = expected?.knownIntent, let t = taken?.knownIntent else { return false }
        return e.opposites.contains(t)
    }

    static func voices(quick: Bool, piperModel: String?) -> [BenchVoice] {
        var all: [BenchVoice] = [
            BenchVoice(synthesizer: .espeak, voice: "en-us", rate: 160, label: "espeak-ng en-us"),
            BenchVoice(synthesizer: .espeak, voice: "en+f2", rate: 145, label: "espeak-ng en+f2"),
            BenchVoice(synthesizer: .espeak, voice: "en-gb-scotland", rate: 175, label: "espeak-ng en-gb-scotland"),
            BenchVoice(synthesizer: .festival, voice: "voice_ked_diphone", rate: 0, label: "festival ked"),
            BenchVoice(synthesizer: .festival, voice: "voice_cmu_us_slt_arctic_hts", rate: 0, label: "festival slt-hts"),
            BenchVoice(synthesizer: .festival, voice: "voice_ked_diphone", rate: 0, namesVoice: "voice_suo_fi_lj_diphone",
                       label: "festival ked + suopuhe-lj names"),
            BenchVoice(synthesizer: .festival, voice: "voice_cmu_us_slt_arctic_hts", rate: 0, namesVoice: "voice_hy_fi_mv_diphone",
                       label: "festival slt-hts + suopuhe-mv names"),
        ]
        if let piperModel {
            all.append(BenchVoice(synthesizer: .piper, voice: piperModel, rate: 100, label: "piper joe"))
            all.append(BenchVoice(synthesizer: .piper, voice: piperModel, rate: 80, label: "piper joe fast"))
        }
        if quick {
            return all.filter { ["espeak-ng en-us", "festival slt-hts", "festival ked + suopuhe-lj names", "piper joe"].contains($0.label) }
        }
        return all
    }

    static func run(paths: ProjectPaths, synthesizer: EspeakSynthesizer, options: Options) throws -> [BenchFigure] {
        let recognizer = try CommandRecognizer(paths: paths)
        let voice = recognizer.recognizer
        voice.keepsUtteranceAudio = true
        // The transcriber as `run` loads it, except for its time limit: on a machine this busy the shipped 3 s stops
        // most transcriptions and PocketSphinx decides alone, which would measure PocketSphinx, not the design. How many
        // would have been stopped is reported beside the latency. Threads as in `run`: two while a core is free, else
        // one (``SpareCoreThreads``); the words written are the same but where two tokens were nearly tied.
        let shippedLimit = WhisperTranscriber.Configuration().timeLimit
        let threadChoice = CountedThreads()
        let second = SecondRecognizer.load(paths: paths, promptLimit: options.promptLimit, searchCount: options.searchCount) { paths in
            try WhisperTranscriber(library: paths.whisperLibrary().path, model: paths.whisperModel().path,
                                   configuration: WhisperTranscriber.Configuration(threads: 1, timeLimit: .seconds(120)),
                                   threads: threadChoice)
        }
        if let problem = second.problem { printError("bench: Problem: \(problem)") }
        let corpus = VoiceCorpus(grammar: voice.grammar, synthesizer: synthesizer)
        try voice.setPhrases(VoiceCorpus.helsinkiNames.map(SlotPhrase.init(name:)), for: "places")
        try voice.setPhrases(VoiceCorpus.markerNames.map(SlotPhrase.init(name:)), for: "markers")
        try voice.setPhrases(VoiceCorpus.routeNames.map(SlotPhrase.init(name:)), for: "routes")
        let cache = try BenchSpeechCache(espeak: corpus, projectRoot: paths.home, cache: options.cache)
        for s in BenchVoice.Synthesizer.allCases where !cache.available(s) {
            printError("bench: \(s.rawValue) is not installed (bash scripts/bench-voices-setup); its voices are left out")
        }
        let voices = Self.voices(quick: options.quick, piperModel: cache.piperModel).filter { cache.available($0.synthesizer) }
        let names = VoiceCorpus.helsinkiNames

        // Commands: every phrasing of the grammars (another sampling of optional words and slot values per voice).
        // Quick: one phrasing of each command that undoes another, and every 8th of the rest.
        var commands: [BenchVoice: [(text: String, expected: RecognizedCommand)]] = [:]
        for (n, v) in voices.enumerated() {
            var list = corpus.phrasings(seed: UInt64(1000 + n)).map { (text: $0.text, expected: $0.expected) }
            if v.namesVoice != nil { list = list.filter { p in names.contains { p.text.contains($0) } } }
            if options.quick {
                var seen = Set<String>()
                list = list.enumerated().filter { k, p in
                    let undoes = !(p.expected.knownIntent?.opposites.isEmpty ?? true)
                    return undoes ? seen.insert(p.expected.intent).inserted : k % 16 == 0
                }.map { $0.element }
                if v.namesVoice != nil { list = Array(list.prefix(4)) }
            } else if options.stride > 1 {
                list = list.enumerated().filter { $0.offset % options.stride == 0 }.map { $0.element }
            }
            commands[v] = list
        }
        let ordinary = options.quick
            ? stride(from: 0, to: VoiceCorpus.outOfGrammar.count, by: 30).map { VoiceCorpus.outOfGrammar[$0] } + nearMisses.prefix(6)
            : VoiceCorpus.outOfGrammar + nearMisses
        let ordinaryVoices = voices.filter { $0.namesVoice == nil }
        var jobs: [(text: String, voice: BenchVoice)] = []
        for v in voices { jobs += commands[v, default: []].map { ($0.text, v) } }
        for v in ordinaryVoices { jobs += ordinary.map { ($0, v) } }
        try cache.render(jobs, names: names)

        var rng = SplitMix64(seed: 29)
        let (ambience, ambienceName) = SpeechBench.streetNoise(paths: paths, rng: &rng)
        // The crowd's voices: the everyday sentences of every voice, clean.
        var babblePool: [(voice: BenchVoice, samples: [Float])] = []
        for v in ordinaryVoices { for text in ordinary { babblePool.append((v, try cache.speech(text, v, names: names))) } }

        /// Two to four other utterances (voices other than the speaker's, of the same and other synthesizers), each
        /// looped from a random point, summed to the length of `speech` with its padding.
        func crowd(for speaker: BenchVoice, length: Int) -> [Float] {
            let others = babblePool.filter { $0.voice != speaker }
            var out = [Float](repeating: 0, count: length)
            let count = 2 + Int(rng.next() % 3)
            for _ in 0..<count {
                let talk = others[Int(rng.next() % UInt64(others.count))].samples
                let gap = 3_200
                let start = Int(rng.next() % UInt64(talk.count + gap))
                for i in 0..<length {
                    let k = (start + i) % (talk.count + gap)
                    if k < talk.count { out[i] += talk[k] }
                }
            }
            return out
        }

        let conditions: [Condition] = options.quick
            ? [Condition(noise: nil, snr: nil), Condition(noise: .ambience, snr: 10), Condition(noise: .crowd, snr: 10), Condition(noise: .crowd, snr: 5)]
            : [Condition(noise: nil, snr: nil)] + [20.0, 10, 5].flatMap { [Condition(noise: .ambience, snr: $0), Condition(noise: .crowd, snr: $0)] }

        // For the fit: the same snap as the second opinion's (its grammar as listened for in each state, the speech
        // model's dictionary and the recognizer's generated pronunciations), to decide again with other thresholds.
        let dictionary = try PhoneDictionary(contentsOf: AcousticModel.debianEnglish.dictionary,
                                             extra: (try? ExtraDictionary.words(paths.extraDictionary.path)) ?? [])
        var snappers: [ListeningState: GrammarSnapper] = [:], snapperGeneration = -1
        func snapper(_ state: ListeningState) -> GrammarSnapper {
            if snapperGeneration != voice.grammarGeneration { snappers = [:]; snapperGeneration = voice.grammarGeneration }
            if let s = snappers[state] { return s }
            let s = GrammarSnapper(grammar: voice.grammar.restricted(to: state.admits) ?? voice.grammar,
                                   dictionary: dictionary.adding(voice.generatedPronunciations))
            snappers[state] = s
            return s
        }
        var mismatches = 0

        var outcomes: [Outcome] = []
        func decide(_ samples: [Int16], state: ListeningState) throws
            -> (RecognizedCommand?, RecognizerDecision.Outcome?, RecognizedCommand?, Double, FirstOpinion, Snap?, Double?, Double?, SentenceScores?) {
            try voice.setListeningState(state)
            second.secondOpinion?.prepare(from: voice)
            try voice.begin()
            var i = 0
            while i < samples.count {
                try voice.process(samples[i..<min(i + 320, samples.count)])
                i += 320
            }
            let release = ContinuousClock.now
            let first = try voice.finish()
            guard let opinion = second.secondOpinion else {
                return (first.command, nil, first.command, (ContinuousClock.now - release).milliseconds, FirstOpinion(first), nil, nil, nil, nil)
            }
            let report = opinion.decide(samples: voice.utteranceAudio, first: first, state: state)
            let latency = (ContinuousClock.now - release).milliseconds
            let snap = report.transcript.map { snapper(state).snap($0) }
            if let snap, RecognizerDecision.decide(first: FirstOpinion(first), second: snap, transcriptLogProbability: report.transcriptLogProbability,
                                                   scores: report.scores, thresholds: opinion.thresholds).outcome != report.decision.outcome {
                mismatches += 1
            }
            if let problem = report.problem { printError("bench: \(problem)") }
            return (report.decision.command, report.decision.outcome, first.command, latency, FirstOpinion(first), snap,
                    report.transcriptLogProbability, report.transcriberMilliseconds, report.scores)
        }
        let started = ContinuousClock.now
        var done = 0
        let total = conditions.count * (voices.reduce(0) { $0 + commands[$1, default: []].count } + ordinaryVoices.count * ordinary.count)
        printError("bench: \(total) utterances (\(voices.count) voices, \(conditions.count) conditions)…")
        // The voices take turns, and each sentence is heard in every condition before the next: a run cut short by
        // --asr-budget measures fewer sentences, not fewer conditions or synthesizers.
        var queue: [(BenchVoice, String, RecognizedCommand?)] = []
        // Everyday sentences are spread evenly among the commands, so that a cut run has both.
        var perVoice = voices.map { v -> [(BenchVoice, String, RecognizedCommand?)] in
            let cmds = commands[v, default: []].map { (v, $0.text, Optional($0.expected)) }
            let others: [(BenchVoice, String, RecognizedCommand?)] = v.namesVoice == nil ? ordinary.map { (v, $0, nil) } : []
            var mixed: [(BenchVoice, String, RecognizedCommand?)] = []
            let n = cmds.count + others.count
            var c = 0, o = 0
            for k in 0..<n {
                if o < others.count && (c >= cmds.count || (o + 1) * n <= (k + 1) * others.count) { mixed.append(others[o]); o += 1 }
                else { mixed.append(cmds[c]); c += 1 }
            }
            return mixed
        }
        while perVoice.contains(where: { !$0.isEmpty }) {
            for k in perVoice.indices where !perVoice[k].isEmpty { queue.append(perVoice[k].removeFirst()) }
        }
        var cut = false
        for (v, text, expected) in queue {
            if let budget = options.budget, (ContinuousClock.now - started).milliseconds / 1000 > budget {
                cut = true
                break
            }
            let speech = try cache.speech(text, v, names: names)
            for condition in conditions {
                let noise: [Float]? = switch condition.noise {
                case .ambience: ambience
                case .crowd: crowd(for: v, length: speech.count + 9_600)
                case nil: nil
                }
                let audio = VoiceCorpus.finish(speech, noise: noise, snr: condition.snr, rng: &rng)
                let state = expected.flatMap { Intent(rawValue: $0.intent) }.map(ListeningState.expected) ?? .awake
                let (taken, outcome, alone, latency, first, snap, logProbability, whisperMs, scores) = try decide(audio, state: state)
                outcomes.append(Outcome(voice: v, condition: condition, text: text, expected: expected, taken: taken,
                                        decision: outcome, firstAlone: alone, latency: latency,
                                        first: first, snap: snap, logProbability: logProbability, transcriberMilliseconds: whisperMs,
                                        scores: scores))
                let gap = scores.flatMap { s in s.first.map { String(format: "%.2f", s.gap($0)) } } ?? "-"
                let mean = scores.flatMap { s in s.first.map { String(format: "%.2f", $0.wordsMean) } } ?? "-"
                let frame = scores.flatMap { s in s.frame.map { String(format: "%.2f", $0.wordsMean) } } ?? "-"
                let choice = scores?.choice
                let choiceGap = scores.flatMap { s in s.choice.map { String(format: "%.2f", s.gap($0.sentence)) } } ?? "-"
                let margin = scores.flatMap { s in s.first.map { SentenceScores.margin($0, over: s.firstOpposites) } }
                    .map { $0.isFinite ? String(format: "%.1f", $0) : "inf" } ?? "-"
                printError("bench-asr-row\t\(v.label)\t\(condition.label)\t\(text)\t\(expected?.intent ?? "-")\t\(taken?.intent ?? "-")\t\(outcome?.rawValue ?? "-")\t\(alone?.intent ?? "-")\t\(Int(latency))"
                           + "\t\(first.text)\t\(snap.map { $0.heard.joined(separator: " ") } ?? "-")\t\(snap.map { String(format: "%.2f", $0.distance) } ?? "-")"
                           + "\t\(gap)\t\(margin)\t\(mean)\t\(frame)"
                           + "\t\(choice.map { $0.command.intent } ?? "-")\t\(choice.map { String(format: "%.1f", $0.margin) } ?? "-")"
                           + "\t\(choiceGap)")
                done += 1
                if done % 50 == 0 {
                    printError("bench: \(done)/\(total) utterances, \(Int((ContinuousClock.now - started).milliseconds / 1000)) s")
                }
            }
        }
        if cut { printError("bench: --asr-budget reached: \(done) of \(total) utterances measured") }
        if mismatches > 0 { printError("bench: the fit's re-decision differs from the second opinion's on \(mismatches) utterances") }
        var result = figures(outcomes, conditions: conditions, ambienceName: ambienceName, quick: options.quick, twoRecognizers: second.secondOpinion != nil)
        let limitMs = shippedLimit.milliseconds
        let over = outcomes.filter { ($0.transcriberMilliseconds ?? 0) > limitMs }.count
        result.append(BenchFigure("\(options.quick ? "ASR2 quick" : "ASR2") Whisper transcriptions over run's \(Int(limitMs / 1000)) s limit (PocketSphinx alone in run)",
                                  100 * Double(over) / Double(max(1, outcomes.count)), "%"))
        let (twoThreads, asked) = threadChoice.counts.withLock { $0 }
        result.append(BenchFigure("\(options.quick ? "ASR2 quick" : "ASR2") Whisper transcriptions on two threads (a core was free)",
                                  100 * Double(twoThreads) / Double(max(1, asked)), "%"))
        let whisperTimes = Percentiles(outcomes.compactMap(\.transcriberMilliseconds))
        result.append(BenchFigure("\(options.quick ? "ASR2 quick" : "ASR2") Whisper transcription p50", whisperTimes.at(50), "ms"))
        // How often Whisper's likeliest sentence of the whole grammar is the command said, decisive or not: what its
        // choice could give the decision at most.
        for synth in BenchVoice.Synthesizer.allCases {
            for condition in conditions {
                let cmds = outcomes.filter { $0.voice.synthesizer == synth && $0.condition == condition && $0.expected != nil }
                let chosen = cmds.filter { $0.scores?.choice != nil }
                guard !chosen.isEmpty else { continue }
                let right = chosen.filter { same($0.expected, $0.scores?.choice?.command) }.count
                result.append(BenchFigure("\(options.quick ? "ASR2 quick" : "ASR2") \(synth.rawValue) Whisper's likeliest sentence of the grammar is the command, \(condition.label)",
                                          100 * Double(right) / Double(cmds.count), "%"))
            }
        }
        if second.secondOpinion != nil { result += fit(outcomes, conditions: conditions, quick: options.quick) }
        return result
    }

    /// The decision made again from the same two opinions with other thresholds.
    /// `withScores` false: as the decision was before Whisper scored sentences (the transcript and its snap alone).
    static func redecide(_ o: Outcome, _ t: DecisionThresholds, withScores: Bool = true) -> RecognizedCommand? {
        guard o.snap != nil || o.first.noSpeech || o.first.text.isEmpty else { return o.taken }
        return RecognizerDecision.decide(first: o.first, second: o.snap, transcriptLogProbability: o.logProbability,
                                         scores: withScores ? o.scores : nil, thresholds: t).command
    }

    /// Chooses ``DecisionThresholds`` on the espeak-ng utterances alone (a grid; every command right counts one, every
    /// wrong command or everyday sentence taken costs three, a command taken with the opposite meaning a hundred), and
    /// reports festival and Piper with them, each on its own, beside the shipped thresholds.
    static func fit(_ outcomes: [Outcome], conditions: [Condition], quick: Bool) -> [BenchFigure] {
        let tuning = outcomes.filter { $0.voice.synthesizer == .espeak }
        guard !tuning.isEmpty else { return [] }
        func score(_ list: [Outcome], _ t: DecisionThresholds) -> Double {
            var s = 0.0
            for o in list {
                let taken = redecide(o, t)
                if let expected = o.expected {
                    if same(expected, taken) { s += 1 } else if taken != nil { s -= opposite(expected, taken) ? 100 : 3 }
                } else if taken != nil {
                    s -= 3
                }
            }
            return s
        }
        var best = DecisionThresholds.standard, bestScore = score(tuning, .standard)
        let shipped = bestScore
        // Coordinate descent over each threshold's values in turn, from the shipped ones, until a round changes
        // nothing (a full grid of nine thresholds would be hundreds of thousands of re-decisions of every utterance).
        let axes: [(WritableKeyPath<DecisionThresholds, Double>, [Double])] = [
            (\.outOfGrammar, [0.25, 0.3, 0.35, 0.4, 0.45, 0.5]), (\.strongSnap, [0.05, 0.08, 0.12, 0.16, 0.2]),
            (\.strongConfidence, [0.8, 0.9, 0.95]), (\.sureTranscript, [-0.3, -0.5, -0.8]), (\.looseAgreement, [0.4, 0.5, 0.6, 0.7]),
            (\.scoreGap, [0.5, 1, 1.5, 2, 2.5]), (\.oppositeMargin, [1, 2, 3, 4]), (\.scoreFloor, [-2, -2.5, -3, -4, -100]),
            (\.scoreVeto, [1.5, 2, 3, 4, 100]), (\.frameFloor, [-100, -5, -4, -3, -2.5, -2, -1.5]),
            (\.decisiveMargin, [1_000, 8, 10, 12, 15, 20]),
            (\.choiceMargin, [1_000, 0.5, 1, 2, 3, 5]), (\.choiceGap, [0.5, 1, 1.5, 2, 3, 100]),
        ]
        for _ in 0..<4 {
            var changed = false
            for (axis, values) in axes {
                for value in values where value != best[keyPath: axis] {
                    var t = best
                    t[keyPath: axis] = value
                    guard t.strongSnap < t.outOfGrammar else { continue }
                    let sc = score(tuning, t)
                    if sc > bestScore { best = t; bestScore = sc; changed = true }
                }
            }
            if !changed { break }
        }
        let tag = quick ? "ASR2 quick" : "ASR2"
        printError("bench: thresholds fitted on espeak-ng: outOfGrammar \(best.outOfGrammar), strongSnap \(best.strongSnap), strongConfidence \(best.strongConfidence), "
                   + "sureTranscript \(best.sureTranscript), looseAgreement \(best.looseAgreement), scoreGap \(best.scoreGap), oppositeMargin \(best.oppositeMargin), scoreFloor \(best.scoreFloor), scoreVeto \(best.scoreVeto), frameFloor \(best.frameFloor), decisiveMargin \(best.decisiveMargin), choiceMargin \(best.choiceMargin), choiceGap \(best.choiceGap) (score \(Int(bestScore)), shipped \(Int(shipped)))")
        var figures: [BenchFigure] = []
        func pct(_ n: Int, _ d: Int) -> Double { d == 0 ? .nan : 100 * Double(n) / Double(d) }
        for synth in BenchVoice.Synthesizer.allCases where synth != .espeak {
            let mine = outcomes.filter { $0.voice.synthesizer == synth }
            guard !mine.isEmpty else { continue }
            for condition in conditions {
                let cmds = mine.filter { $0.condition == condition && $0.expected != nil }
                let right = cmds.filter { same($0.expected, redecide($0, best)) }.count
                figures.append(BenchFigure("\(tag) \(synth.rawValue) with thresholds fitted on espeak-ng: commands right, \(condition.label)", pct(right, cmds.count), "%"))
            }
            let everyday = mine.filter { $0.expected == nil }
            figures.append(BenchFigure("\(tag) \(synth.rawValue) with thresholds fitted on espeak-ng: ordinary speech rejected",
                                       pct(everyday.filter { redecide($0, best) == nil }.count, everyday.count), "%"))
        }
        figures.append(BenchFigure("\(tag) with thresholds fitted on espeak-ng: opposite meaning, whole corpus",
                                   Double(outcomes.filter { opposite($0.expected, redecide($0, best)) }.count), ""))
        // Before Whisper scored sentences: the same utterances decided from the transcript's snap alone, with the
        // thresholds shipped then.
        let before = DecisionThresholds(outOfGrammar: 0.35, strongSnap: 0.12, strongConfidence: 0.9, sureTranscript: -0.5, looseAgreement: 0.6)
        for synth in BenchVoice.Synthesizer.allCases {
            let mine = outcomes.filter { $0.voice.synthesizer == synth }
            guard !mine.isEmpty else { continue }
            for condition in conditions {
                let cmds = mine.filter { $0.condition == condition && $0.expected != nil }
                let right = cmds.filter { same($0.expected, redecide($0, before, withScores: false)) }.count
                figures.append(BenchFigure("\(tag) \(synth.rawValue) without sentence scores: commands right, \(condition.label)", pct(right, cmds.count), "%"))
            }
            let everyday = mine.filter { $0.expected == nil }
            figures.append(BenchFigure("\(tag) \(synth.rawValue) without sentence scores: ordinary speech rejected",
                                       pct(everyday.filter { redecide($0, before, withScores: false) == nil }.count, everyday.count), "%"))
        }
        figures.append(BenchFigure("\(tag) without sentence scores: opposite meaning, whole corpus",
                                   Double(outcomes.filter { opposite($0.expected, redecide($0, before, withScores: false)) }.count), ""))
        for f in figures { printError("bench: \(f.name): \(String(format: "%.2f", f.value)) \(f.unit)") }
        return figures
    }

    static func figures(_ outcomes: [Outcome], conditions: [Condition], ambienceName: String, quick: Bool, twoRecognizers: Bool) -> [BenchFigure] {
        var figures: [BenchFigure] = []
        let tag = quick ? "ASR2 quick" : "ASR2"
        func pct(_ n: Int, _ d: Int) -> Double { d == 0 ? .nan : 100 * Double(n) / Double(d) }
        for synth in BenchVoice.Synthesizer.allCases {
            let mine = outcomes.filter { $0.voice.synthesizer == synth }
            guard !mine.isEmpty else { continue }
            let held = synth != .espeak
            let who = held ? "\(synth.rawValue) (held out)" : "\(synth.rawValue) (tuning)"
            for condition in conditions {
                let cmds = mine.filter { $0.condition == condition && $0.expected != nil }
                let right = cmds.filter { same($0.expected, $0.taken) }.count
                let name = "\(tag) \(who): commands right, \(condition.label) (\(cmds.count))"
                let target: Double? = switch (condition.noise, condition.snr) {
                case (nil, _): 98
                case (_, 10): 95
                case (_, 5): 90
                default: nil
                }
                if held, let target { figures.append(.atLeast(name, pct(right, cmds.count), "%", target)) } else { figures.append(BenchFigure(name, pct(right, cmds.count), "%")) }
            }
            let clean = mine.filter { $0.condition.noise == nil && $0.expected != nil }
            let refused = clean.filter { $0.taken == nil }.count
            let name = "\(tag) \(who): real commands refused, clean (\(clean.count))"
            figures.append(held ? .atMost(name, pct(refused, clean.count), "%", 2) : BenchFigure(name, pct(refused, clean.count), "%"))
            let everyday = mine.filter { $0.expected == nil }
            let rejected = everyday.filter { $0.taken == nil }.count
            let oname = "\(tag) \(who): ordinary speech rejected, all conditions (\(everyday.count))"
            figures.append(held ? .atLeast(oname, pct(rejected, everyday.count), "%", 97) : BenchFigure(oname, pct(rejected, everyday.count), "%"))
        }
        let opposites = outcomes.filter { Self.opposite($0.expected, $0.taken) }
        figures.append(.atMost("\(tag) commands taken with the opposite meaning, whole corpus (\(outcomes.count) utterances)", Double(opposites.count), "", 0))
        let aloneOpposite = outcomes.filter { opposite($0.expected, $0.firstAlone) }.count
        figures.append(BenchFigure("\(tag) … the same, PocketSphinx alone", Double(aloneOpposite), ""))
        let latency = Percentiles(outcomes.map(\.latency))
        let lname = "\(tag) release → intent (PocketSphinx final + \(twoRecognizers ? "Whisper + decision" : "nothing: no Whisper"))"
        figures.append(.atMost("\(lname) p50", latency.at(50), "ms", 150))
        figures.append(.atMost("\(lname) p95", latency.at(95), "ms", 400))

        // What went wrong, most frequent first, per synthesizer: the next step starts here.
        for synth in BenchVoice.Synthesizer.allCases {
            let wrong = outcomes.filter { $0.voice.synthesizer == synth && $0.expected != nil && !same($0.expected, $0.taken) }
            guard !wrong.isEmpty else { continue }
            var byKind: [String: Int] = [:], byVoice: [String: Int] = [:], byIntent: [String: Int] = [:]
            for o in wrong {
                let got = o.taken.map { "took \($0.intent)\($0.intent == o.expected!.intent ? " (other slot)" : "")" } ?? (o.decision?.rawValue ?? "rejected")
                byKind[got.hasPrefix("took") ? (got.hasSuffix("slot)") ? "wrong slot value" : "other command") : got, default: 0] += 1
                byVoice[o.voice.label, default: 0] += 1
                byIntent["\(o.expected!.intent) → \(o.taken?.intent ?? got)", default: 0] += 1
            }
            func top(_ d: [String: Int], _ n: Int) -> String {
                d.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(n).map { "\($0.key) × \($0.value)" }.joined(separator: ", ")
            }
            printError("bench: \(synth.rawValue): \(wrong.count) commands not right — by kind: \(top(byKind, 6))\n  by voice: \(top(byVoice, 8))\n  by command: \(top(byIntent, 14))")
            let byCondition = Dictionary(grouping: wrong, by: \.condition.label).mapValues(\.count)
            printError("  by condition: \(top(byCondition, 8))")
        }
        for o in opposites {
            printError("bench: OPPOSITE: \(o.voice.label), \(o.condition.label): \"\(o.text)\" → \(o.taken!.intent) (\(o.decision?.rawValue ?? ""))")
        }
        let accepted = outcomes.filter { $0.expected == nil && $0.taken != nil }
        var acceptedBy: [String: Int] = [:]
        for o in accepted { acceptedBy["\"\(o.text)\" → \(o.taken!.intent)", default: 0] += 1 }
        printError("bench: ordinary speech taken as a command (\(accepted.count)): "
                   + acceptedBy.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(15).map { "\($0.key) × \($0.value)" }.joined(separator: ", "))
        for f in figures { printError("bench: \(f.name): \(String(format: "%.2f", f.value)) \(f.unit)") }
        return figures
    }
}

/// `run`'s choice of Whisper's threads (``SpareCoreThreads``), counting how often it chose more than one.
final class CountedThreads: TranscriptionThreads {
    let choice = SpareCoreThreads()
    /// (more than one thread, asked).
    let counts = Mutex((0, 0))

    func threads() -> Int {
        let n = choice.threads()
        counts.withLock { $0.0 += n > 1 ? 1 : 0; $0.1 += 1 }
        return n
    }
}
