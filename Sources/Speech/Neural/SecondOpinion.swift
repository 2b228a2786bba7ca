import Foundation
import Synchronization

/// What both recognizers made of one utterance and what was decided: for the log and `soundscape listen --json`.
public struct TwoRecognizerReport: Sendable, Codable, Hashable {
    /// PocketSphinx's words (empty for none) and its confidence.
    public var firstText: String
    public var firstConfidence: Double
    /// The neural transcript as written, or nil when there was none (no second recognizer, not needed, or it failed).
    public var transcript: String?
    /// The sentence of the grammar it was moved to, and how far (``Snap/distance``).
    public var snapped: String?
    public var snapDistance: Double?
    /// Why there is no transcript although a second recognizer is there (it failed on this utterance).
    public var problem: String?
    /// Milliseconds the transcriber took.
    public var transcriberMilliseconds: Double?
    /// The transcript's mean token log probability (closer to 0 is surer).
    public var transcriptLogProbability: Double?
    /// Whisper's scores of the sentences weighed (``SentenceScores``), when it gave them.
    public var scores: SentenceScores?
    public var decision: RecognizerDecision
}

/// The second recognizer beside PocketSphinx: runs the transcriber on the same utterance, with the live vocabulary as
/// its prompt, snaps its transcript onto the grammar as listened for in the current state, and decides
/// (``RecognizerDecision``). Built by the App with the transcriber it loaded.
///
/// ``prepare(from:)`` runs on the recognizer's thread whenever its grammar changed; ``decide(samples:first:state:)``
/// may run on any thread (it blocks for the transcription), one utterance at a time.
public final class SecondOpinion: Sendable {
    public let transcriber: any Transcriber
    public let thresholds: DecisionThresholds
    /// Ask on every utterance; when false, only where the answer can change the outcome (``RecognizerDecision/wantsSecondOpinion(_:everyUtterance:thresholds:)``).
    public let everyUtterance: Bool
    /// About how many characters of prompt Whisper is given (``prompt(for:limit:namesLimit:)``): each of its tokens is
    /// decoded before every transcription, so a shorter prompt answers sooner.
    public let promptLimit: Int
    /// How many of the likeliest sentences of the grammar Whisper's search returns (0: no search); the decision needs
    /// the best and the best of another command, and one command has several phrasings.
    public let searchCount: Int
    /// No search: in the bench it added 59 ms to the median release → intent and 153 ms to the 95th percentile, and the
    /// thresholds fitted on espeak-ng left its choice unused (docs/measurements.md, "Whisper's choice among all the grammar's sentences").
    public static let standardSearchCount = 0
    /// 200 characters (about 50 tokens): on the tuning voices more often right than 350 or 700, and sooner
    /// (docs/measurements.md, "The first word's score").
    public static let standardPromptLimit = 200
    let dictionary: PhoneDictionary

    private struct Prepared: Sendable {
        var generation = -1
        var snappers: [ListeningState: GrammarSnapper] = [:]
        var prompt = ""
        /// One sentence of each intent, and the parser of the whole grammar: for the commands that undo another.
        var sentences: [String: [String]] = [:]
        var parser: IntentParser?
        /// The grammar's sentences the transcriber searches among, as words, in the order it was given them.
        var searchable: [[String]] = []
        /// Why the transcriber could not take them, when it could not.
        var searchProblem: String?
    }
    private let prepared = Mutex(Prepared())

    /// - Parameter dictionary: pronunciations of English words (the speech model's dictionary and Models/extra.dict);
    ///   the recognizer's generated pronunciations of names are added by ``prepare(from:)``.
    public init(transcriber: any Transcriber, dictionary: PhoneDictionary, thresholds: DecisionThresholds = .standard,
                everyUtterance: Bool = true, promptLimit: Int = standardPromptLimit, searchCount: Int = standardSearchCount) {
        self.transcriber = transcriber
        self.dictionary = dictionary
        self.thresholds = thresholds
        self.everyUtterance = everyUtterance
        self.promptLimit = promptLimit
        self.searchCount = searchCount
    }

    /// Follows the recognizer's grammar and slot phrases when they changed since the last call (call on the
    /// recognizer's thread, between utterances). Returns whether anything was rebuilt.
    @discardableResult
    public func prepare(from recognizer: VoiceRecognizer) -> Bool {
        let generation = recognizer.grammarGeneration
        guard prepared.withLock({ $0.generation }) != generation else { return false }
        let grammar = recognizer.grammar
        let words = dictionary.adding(recognizer.generatedPronunciations)
        var snappers: [ListeningState: GrammarSnapper] = [:]
        for state in ListeningState.allCases {
            snappers[state] = GrammarSnapper(grammar: grammar.restricted(to: state.admits) ?? grammar, dictionary: words)
        }
        let prompt = Self.prompt(for: grammar, limit: promptLimit)
        let parser = IntentParser(grammar: grammar)
        var sentences: [String: [String]] = [:]
        var sampler = GrammarSampler(grammar: grammar, seed: 1)
        for words in sampler.phrasings() {
            if let intent = parser.parse(words: words)?.intent, sentences[intent] == nil { sentences[intent] = words }
        }
        // Every sentence of the whole grammar, written as Whisper writes, for its search; the listening state's own
        // commands are picked from its answer.
        var searchable: [[String]] = []
        var searchProblem: String?
        if searchCount > 0 {
            var display: [[String]: String] = [:]
            for list in grammar.phrases.values { for phrase in list where display[phrase.words] == nil { display[phrase.words] = phrase.value } }
            let all = GrammarSnapper(grammar: grammar, dictionary: words).sentences()
            searchable = all.map(\.words)
            do {
                try transcriber.setSentences(all.map { Self.written($0.words, names: $0.values.compactMap { display[$0] }) })
            } catch {
                searchable = []
                searchProblem = "the grammar's sentences could not be searched: \(error)"
            }
        }
        prepared.withLock {
            $0 = Prepared(generation: generation, snappers: snappers, prompt: prompt, sentences: sentences, parser: parser,
                          searchable: searchable, searchProblem: searchProblem)
        }
        return true
    }

    /// Words as Whisper writes them: the first letter capital, names as they are spelled (`names`: the command's slot
    /// values, "Kauppatori" for "kauppatori"), a question mark after a question, else a full stop. A name in lower case
    /// costs Whisper's score dearly, and the score must measure the words, not their spelling. Without the end mark when
    /// `ending` is false (the first words of a sentence, scored as such).
    public static func written(_ words: [String], names: [String] = [], ending: Bool = true) -> String {
        guard let head = words.first else { return "" }
        var sentence = " " + words.map { $0 == "i" ? "I" : $0 }.joined(separator: " ") + " "
        for name in names.sorted(by: { $0.count > $1.count }) {
            let lowered = " " + IntentParser.tokens(name).map(\.word).joined(separator: " ") + " "
            if lowered.count > 2, let range = sentence.range(of: lowered) { sentence.replaceSubrange(range, with: " \(name) ") }
        }
        sentence = sentence.trimmingCharacters(in: .whitespaces)
        return sentence.prefix(1).uppercased() + sentence.dropFirst()
            + (!ending ? "" : ["where", "what", "what's", "how", "which", "who"].contains(head) ? "?" : ".")
    }

    /// The words of `command` (heard as `words`) before the name in its open slot ("set beacon on" of "set beacon on
    /// senaatintori"); nil when it has no such name, or nothing comes before it.
    public static func frame(of command: RecognizedCommand, words: [String]) -> [String]? {
        guard let intent = command.knownIntent, let slot = RecognizerDecision.openSlots[intent],
              let value = command.slots[slot], !value.isEmpty else { return nil }
        let name = IntentParser.tokens(value).map(\.word)
        guard !name.isEmpty, name.count < words.count else { return nil }
        for start in stride(from: words.count - name.count, through: 1, by: -1) where Array(words[start..<start + name.count]) == name {
            return Array(words[..<start])
        }
        return nil
    }

    /// A sentence of each command that undoes `command`, heard as `words`: the same words with the undoing word
    /// swapped when that is a sentence of the grammar ("turn off callouts" for "turn on callouts"), else the grammar's
    /// own sentence of the opposite intent.
    public static func opposites(of command: RecognizedCommand?, words: [String], sentences: [String: [String]], parser: IntentParser?) -> [[String]] {
        guard let intent = command?.knownIntent else { return [] }
        var found: [[String]] = []
        for opposite in intent.opposites.sorted(by: { $0.rawValue < $1.rawValue }) {
            var chosen: [String]?
            for (i, word) in words.enumerated() {
                for (a, b) in Intent.undoingWords where word == a || word == b {
                    var swapped = words
                    swapped[i] = word == a ? b : a
                    if chosen == nil, parser?.parse(words: swapped)?.intent == opposite.rawValue { chosen = swapped }
                }
            }
            if let sentence = chosen ?? sentences[opposite.rawValue] { found.append(sentence) }
        }
        return found
    }

    /// The words to bias the transcriber toward, as sentences it might have written before: one command of each
    /// intent ("Callouts off. Where am I? …"), then the names of markers, routes and places nearby as written
    /// ("Kauppatori, Café Engel"). Whisper keeps the end of a long prompt, so the names come last, and the whole is
    /// kept to about `limit` characters (Whisper reads at most 224 tokens of it), of which the names take at most
    /// `namesLimit` (three sevenths unless given). A list of bare words instead of sentences made it write nonsense for
    /// a clean "callouts off" ("kel up the soft").
    public static func prompt(for grammar: CommandGrammar, limit: Int = standardPromptLimit, namesLimit: Int? = nil) -> String {
        let namesLimit = namesLimit ?? limit * 3 / 7
        var names: [String] = []
        var seen = Set<String>()
        var length = 0
        for source in ["markers", "routes", "places"] {
            for phrase in grammar.phrases[source] ?? [] where length + phrase.value.count + 2 <= namesLimit
                && seen.insert(phrase.value.lowercased()).inserted {
                names.append(phrase.value)
                length += phrase.value.count + 2
            }
        }
        var sampler = GrammarSampler(grammar: grammar, seed: 1)
        let parser = IntentParser(grammar: grammar)
        var intents = Set<String>()
        var sentences: [String] = []
        for words in sampler.phrasings() {
            guard let intent = parser.parse(words: words)?.intent, intents.insert(intent).inserted else { continue }
            var sentence = words.joined(separator: " ")
            sentence = sentence.prefix(1).uppercased() + sentence.dropFirst()
            sentences.append(sentence + (["where", "what", "what's", "how"].contains(words.first ?? "") ? "?" : "."))
        }
        let tail = names.isEmpty ? "" : " " + names.joined(separator: ", ") + "."
        var head = sentences.joined(separator: " ")
        if head.count + tail.count > limit { head = String(head.suffix(max(0, limit - tail.count))) }
        if let space = head.firstIndex(of: " "), head.count + tail.count >= limit { head = String(head[head.index(after: space)...]) }
        return head + tail
    }

    /// Whisper's choice among the grammar's sentences: the likeliest whose command the listening state takes, and the
    /// likeliest of another command.
    static func choice(_ searched: [SearchedSentence], searchable: [[String]], parser: IntentParser?, state: ListeningState) -> GrammarChoice? {
        guard let parser else { return nil }
        var chosen: (RecognizedCommand, ScoredText)?
        for found in searched where searchable.indices.contains(found.index) {
            guard let command = parser.parse(words: searchable[found.index]), let intent = command.knownIntent, state.admits(intent) else { continue }
            if let (best, sentence) = chosen {
                if !RecognizerDecision.same(best, command) { return GrammarChoice(command: best, sentence: sentence, rival: found.scored) }
            } else {
                chosen = (command, found.scored)
            }
        }
        return chosen.map { GrammarChoice(command: $0.0, sentence: $0.1, rival: nil) }
    }

    /// The prompt in use (for the log and tests).
    public var prompt: String { prepared.withLock { $0.prompt } }

    /// Transcribes `samples` (the utterance PocketSphinx decided on), snaps and decides. Blocking.
    public func decide(samples: [Int16], first: VoiceResult, state: ListeningState) -> TwoRecognizerReport {
        let opinion = FirstOpinion(first)
        let (snapper, prompt) = prepared.withLock { ($0.snappers[state], $0.prompt) }
        var report = TwoRecognizerReport(firstText: first.text, firstConfidence: first.confidence,
                                         decision: RecognizerDecision.decide(first: opinion, second: nil, thresholds: thresholds))
        guard RecognizerDecision.wantsSecondOpinion(opinion, everyUtterance: everyUtterance, thresholds: thresholds) else { return report }
        guard let snapper else {
            report.problem = "the second recognizer has no grammar yet"
            return report
        }
        let floats = samples.map { Float($0) / 32_768 }
        let (sentences, parser, searchable, searchProblem) = prepared.withLock { ($0.sentences, $0.parser, $0.searchable, $0.searchProblem) }
        let firstWords = IntentParser.tokens(first.text).map(\.word)
        do {
            // The sentences to score, chosen once the transcript is there: the transcript, PocketSphinx's words and
            // their opposites, and the transcript's nearest sentence; `roles` says which is which.
            var snap: Snap?
            var roles: [(role: Int, words: [String])] = []
            let transcript = try transcriber.transcribe(floats, prompt: prompt, searching: searchable.isEmpty ? 0 : searchCount) { transcript in
                let snapped = snapper.snap(transcript.text)
                snap = snapped
                guard !firstWords.isEmpty else { return [] }
                roles = [(1, firstWords)]
                roles += Self.opposites(of: opinion.command ?? opinion.heard, words: firstWords, sentences: sentences, parser: parser).map { (2, $0) }
                if !snapped.sentence.isEmpty, snapped.sentence != firstWords { roles.append((3, snapped.sentence)) }
                let names = Array((opinion.command ?? opinion.heard)?.slots.values ?? [:].values) + Array(snapped.command?.slots.values ?? [:].values)
                var texts = [transcript.text] + roles.map { Self.written($0.words, names: names) }
                if let command = opinion.command, let frame = Self.frame(of: command, words: firstWords) {
                    roles.append((4, frame))
                    texts.append(Self.written(frame, names: names, ending: false))
                }
                return texts
            }
            let snapped = snap ?? snapper.snap(transcript.text)
            report.transcript = transcript.text
            report.transcriberMilliseconds = transcript.milliseconds
            report.transcriptLogProbability = transcript.meanLogProbability
            report.snapped = snapped.sentence.joined(separator: " ")
            report.snapDistance = (snapped.distance * 1000).rounded() / 1000
            if transcript.scored.count == roles.count + 1, let own = transcript.scored.first {
                var scores = SentenceScores(transcript: own)
                for (role, scored) in zip(roles.map(\.role), transcript.scored.dropFirst()) {
                    switch role {
                    case 1: scores.first = scored
                    case 2: scores.firstOpposites.append(scored)
                    case 3: scores.snapped = scored
                    default: scores.frame = scored
                    }
                }
                scores.choice = Self.choice(transcript.searched, searchable: searchable, parser: parser, state: state)
                report.scores = scores
            } else if let problem = transcript.scoringProblem {
                report.problem = problem
            }
            if let problem = transcript.searchProblem ?? searchProblem {
                report.problem = [report.problem, problem].compactMap { $0 }.joined(separator: "; ")
            }
            report.decision = RecognizerDecision.decide(first: opinion, second: snapped, transcriptLogProbability: transcript.meanLogProbability,
                                                        scores: report.scores, thresholds: thresholds)
        } catch {
            // PocketSphinx alone, as without a second recognizer, except that a command that undoes another is never
            // taken unchecked; the reason is in the report.
            report.problem = "the second recognizer failed: \(error)"
            if let command = report.decision.command, RecognizerDecision.undoesAnother(command) {
                report.decision = RecognizerDecision(outcome: .askAgain, command: nil,
                                                     reason: "PocketSphinx heard \(command.intent), which undoes another command, and the second recognizer could not check it")
            }
        }
        return report
    }
}
