import Foundation

extension Intent {
    /// Word pairs whose swap in an intent's name turns it into the intent that undoes it.
    static let undoingWords: [(String, String)] = [("on", "off"), ("mute", "unmute"), ("louder", "quieter"), ("faster", "slower"),
                                                   ("metric", "imperial"), ("start", "stop"), ("save", "delete")]
    /// Intents that undo each other although their names do not say so.
    static let undoingIntents: [(Intent, Intent)] = [(.sleep, .wake), (.snooze, .wake), (.cancel, .redo)]

    /// The intents that undo this one: callouts on and off, mute and unmute, louder and quieter, faster and slower,
    /// metric and imperial, sleep (or snooze) and wake, undo and redo, save and delete. Derived from the intents' names,
    /// so a new "…_on" intent gets its "…_off" without a list to keep up to date.
    public var opposites: Set<Intent> {
        var found = Set<Intent>()
        let parts = rawValue.split(separator: "_").map(String.init)
        for (a, b) in Self.undoingWords {
            for (i, part) in parts.enumerated() where part == a || part == b {
                var swapped = parts
                swapped[i] = part == a ? b : a
                if let other = Intent(rawValue: swapped.joined(separator: "_")) { found.insert(other) }
            }
        }
        for (a, b) in Self.undoingIntents {
            if self == a { found.insert(b) }
            if self == b { found.insert(a) }
        }
        return found
    }
}

/// When the two recognizers' evidence counts as strong, and when a transcript is too far from every command.
/// Chosen by measuring on espeak-ng voices (docs/measurements.md, "Two recognizers").
public struct DecisionThresholds: Sendable, Hashable, Codable {
    /// A transcript snapped further than this is no command at all (out of grammar).
    public var outOfGrammar: Double
    /// A transcript snapped this close or closer is strong evidence for its command.
    public var strongSnap: Double
    /// PocketSphinx's confidence at or above which its command is strong evidence.
    public var strongConfidence: Double
    /// The transcript's mean token log probability at or above which the model heard its words clearly: only such a
    /// transcript can overrule, as no command at all, a command PocketSphinx took that undoes nothing (Whisper tiny
    /// garbles some names and voices into nonsense, and nonsense must not veto a command it merely failed to hear).
    public var sureTranscript: Double

    /// A transcript whose nearest sentence is the command PocketSphinx took, this close or closer, agrees with it
    /// when it is unsure ("Kälopsof" for "callouts off") or the command undoes nothing ("Wear my." for "where am i"):
    /// a garbled hearing of the same words, not another command.
    public var looseAgreement: Double

    /// A command's sentence is about as likely as the transcript itself when Whisper scores it at most this much lower
    /// per token (natural log): Whisper heard those words, however it chose to write them ("Nute beacon." for "mute
    /// beacon"). Such a command is taken without the snapped transcript's say.
    public var scoreGap: Double
    /// A command that undoes another is taken on Whisper's scores only when its sentence beats every opposite's
    /// ("Callouts off." against "Callouts on.") by at least this much (natural log, whole sentence); when an opposite
    /// beats it by as much, it is never taken.
    public var oppositeMargin: Double
    /// A command's sentence is taken on Whisper's scores only when its words are themselves this likely or more (mean
    /// natural log per token, the end of the text left out: Whisper often expects the command to be said again): beside a transcript of nonsense (a crowd, a voice it cannot follow) any sentence is "about as
    /// likely", and that says nothing.
    public var scoreFloor: Double
    /// PocketSphinx's command whose sentence Whisper scores more than this (natural log per token) below its own
    /// transcript was not what was said: it is not taken on PocketSphinx's word ("the library has a new book" heard as
    /// "preview library"). Not for a command naming a place (see ``RecognizerDecision/namesAPlace(_:)``).
    public var scoreVeto: Double
    /// A command naming a place is spared the score veto and the out-of-grammar rule only when Whisper finds the
    /// words before the name this likely or more (mean natural log per token): the name's own tokens may be
    /// improbable (Whisper cannot spell Finnish names), but "Set beacon on" must have been heard, or the sentence was
    /// something else ("the music is too loud" heard by PocketSphinx as "new route evening walk").
    public var frameFloor: Double
    /// A command that undoes another, which PocketSphinx took with strong confidence, is taken when Whisper scores its
    /// sentence at least this far above every opposite's (natural log, whole sentence), even where Whisper's own
    /// transcript went elsewhere: Whisper tiny writes espeak-ng's "mute beacon" as "You'll be gone." but scores "Mute
    /// beacon." 15 above "Unmute beacon.". Both recognizers then still agree on which of the two was said. 1,000: never.
    public var decisiveMargin: Double
    /// Whisper's choice among all the grammar's sentences (``GrammarChoice``) settles the utterance when it beats the
    /// likeliest sentence of every other command, and PocketSphinx's words, by at least this much (natural log, whole
    /// sentence). In a crowd both recognizers' own words are often another talker's, while the sentence of the grammar
    /// Whisper finds likeliest is still the one said. 1,000: never.
    public var choiceMargin: Double
    /// …and when it is at most this much less likely per token than Whisper's own transcript: an ordinary sentence is
    /// far likelier as Whisper wrote it than as any command.
    public var choiceGap: Double

    public init(outOfGrammar: Double, strongSnap: Double, strongConfidence: Double, sureTranscript: Double = -0.5,
                looseAgreement: Double = 0.6, scoreGap: Double = 1.5, oppositeMargin: Double = 2, scoreFloor: Double = -3,
                scoreVeto: Double = 3, frameFloor: Double = -3, decisiveMargin: Double = 1_000, choiceMargin: Double = 1_000,
                choiceGap: Double = 1) {
        self.outOfGrammar = outOfGrammar
        self.strongSnap = strongSnap
        self.strongConfidence = strongConfidence
        self.sureTranscript = sureTranscript
        self.looseAgreement = looseAgreement
        self.scoreGap = scoreGap
        self.oppositeMargin = oppositeMargin
        self.scoreFloor = scoreFloor
        self.scoreVeto = scoreVeto
        self.frameFloor = frameFloor
        self.decisiveMargin = decisiveMargin
        self.choiceMargin = choiceMargin
        self.choiceGap = choiceGap
    }

    /// Fitted on espeak-ng voices alone (`soundscape-bench --only asr --quick`), festival and Piper held out, with the
    /// shipped prompt (docs/measurements.md, "Whisper scores the sentences in question" and "The first word's score").
    public static let standard = DecisionThresholds(outOfGrammar: 0.45, strongSnap: 0.16, strongConfidence: 0.9, sureTranscript: -0.8,
                                                    looseAgreement: 0.6, scoreGap: 1.5, oppositeMargin: 1,
                                                    scoreFloor: -4, scoreVeto: 1.5, frameFloor: -5,
                                                    decisiveMargin: 10)
}

/// What PocketSphinx made of an utterance, as far as the decision needs it.
public struct FirstOpinion: Sendable, Hashable {
    /// The words it heard (empty for none).
    public var text: String
    /// The command it took, when its confidence passed.
    public var command: RecognizedCommand?
    /// The command its words parse to, taken or not.
    public var heard: RecognizedCommand?
    public var confidence: Double
    /// Why it rejected the utterance, when it did.
    public var rejection: String?
    /// It heard no speech, only noise.
    public var noSpeech: Bool

    public init(text: String, command: RecognizedCommand?, heard: RecognizedCommand?, confidence: Double,
                rejection: String? = nil, noSpeech: Bool = false) {
        self.text = text
        self.command = command
        self.heard = heard
        self.confidence = confidence
        self.rejection = rejection
        self.noSpeech = noSpeech
    }

    public init(_ result: VoiceResult) {
        self.init(text: result.text, command: result.command, heard: result.heard ?? result.command, confidence: result.confidence,
                  rejection: result.rejection, noSpeech: result.noSpeech)
    }
}

/// How likely Whisper finds, for the same audio, the sentences the decision weighs: its own transcript (as kept,
/// repeats collapsed), PocketSphinx's words, the sentences of the commands that undo them, and the transcript's
/// nearest sentence. Scoring a few given sentences asks the model a narrower question than its free transcript answers:
/// it tells "mute beacon" from "unmute beacon" where its transcript was "Nute beacon.".
public struct SentenceScores: Sendable, Hashable, Codable {
    public var transcript: ScoredText
    /// PocketSphinx's words, when it heard any.
    public var first: ScoredText?
    /// A sentence of each command that undoes the one PocketSphinx heard.
    public var firstOpposites: [ScoredText]
    /// The transcript's nearest sentence, when it differs from PocketSphinx's words.
    public var snapped: ScoredText?
    /// PocketSphinx's words before the name in its command's open slot ("Set beacon on" of "set beacon on
    /// Senaatintori"), when it has one: whether the command's own words were heard, whatever became of the name.
    public var frame: ScoredText?
    /// Whisper's own choice among every sentence of the grammar, when it searched them.
    public var choice: GrammarChoice?

    public init(transcript: ScoredText, first: ScoredText? = nil, firstOpposites: [ScoredText] = [], snapped: ScoredText? = nil,
                frame: ScoredText? = nil, choice: GrammarChoice? = nil) {
        self.transcript = transcript
        self.first = first
        self.firstOpposites = firstOpposites
        self.snapped = snapped
        self.frame = frame
        self.choice = choice
    }

    /// How much less likely than the transcript `sentence` is, per token of it (0 or less: as likely or more).
    public func gap(_ sentence: ScoredText) -> Double {
        (transcript.logProbability - sentence.logProbability) / Double(max(1, sentence.tokens))
    }

    /// How much more likely `sentence` is than the likeliest of `opposites` (infinity when there are none).
    public static func margin(_ sentence: ScoredText, over opposites: [ScoredText]) -> Double {
        guard let best = opposites.map(\.logProbability).max() else { return .infinity }
        return sentence.logProbability - best
    }
}

/// The sentence of the grammar Whisper finds likeliest for an utterance (searched among all of them, not only those
/// the recognizers wrote), its command, and the likeliest sentence of any other command.
public struct GrammarChoice: Sendable, Hashable, Codable {
    public var command: RecognizedCommand
    public var sentence: ScoredText
    /// The likeliest sentence of another command among those the search returned; nil when it returned none.
    public var rival: ScoredText?

    public init(command: RecognizedCommand, sentence: ScoredText, rival: ScoredText?) {
        self.command = command
        self.sentence = sentence
        self.rival = rival
    }

    /// How much likelier the chosen sentence is than the rival (natural log; infinity without a rival).
    public var margin: Double { rival.map { sentence.logProbability - $0.logProbability } ?? .infinity }
}

/// What one utterance comes to once both recognizers have been heard, and why.
public struct RecognizerDecision: Sendable, Hashable, Codable {
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// Both recognizers heard the same command: taken.
        case agreed
        /// They disagreed and PocketSphinx's command had the stronger evidence: taken.
        case firstRecognizer = "first_recognizer"
        /// They disagreed and the transcript's command had the stronger evidence: taken.
        case secondRecognizer = "second_recognizer"
        /// No second opinion (none available, or not needed): PocketSphinx decided alone, taken.
        case firstAlone = "first_alone"
        /// They disagreed and neither could be taken: ask "Say that again?".
        case askAgain = "ask_again"
        /// The transcript is far from every command: not a command.
        case outOfGrammar = "out_of_grammar"
        /// PocketSphinx rejected it and no second opinion changed that.
        case rejected
    }

    public var outcome: Outcome
    /// The command taken, when one is.
    public var command: RecognizedCommand?
    /// Why, in words, for `listen --json` and the log.
    public var reason: String

    public init(outcome: Outcome, command: RecognizedCommand?, reason: String) {
        self.outcome = outcome
        self.command = command
        self.reason = reason
    }

    /// Whether the same command: the same intent with the same slot values.
    static func same(_ a: RecognizedCommand?, _ b: RecognizedCommand?) -> Bool {
        guard let a, let b else { return false }
        return a.intent == b.intent && a.slots == b.slots
    }

    /// Slots whose value is a new name the user makes up, which no list can hold: the transcript's own words for
    /// them go into the "text" slot (to be read back before they are saved).
    static let freeTextSlots: [Intent: String] = [.saveMarker: "name", .renameMarker: "new_name"]

    /// `command` with the transcript's words for its made-up name in the "text" slot, when it has one and the
    /// transcript meant the same intent.
    static func withFreeText(_ command: RecognizedCommand, from snap: Snap) -> RecognizedCommand {
        guard let intent = command.knownIntent, let slot = freeTextSlots[intent], snap.command?.intent == command.intent,
              let text = snap.written[slot], !text.isEmpty else { return command }
        var with = command
        with.slots["text"] = text
        return with
    }

    /// Slots whose value may be any name at all: a place anywhere in the map (the live vocabulary holds only the names
    /// nearby and the landmarks) or a name the user makes up. When both recognizers heard the same command around it,
    /// the transcript's own words for it go into the "text" slot, however far they are from every listed value.
    public static let openSlots: [Intent: String] = [.takeMeTo: "place", .setBeacon: "place", .saveMarker: "name",
                                                     .saveBeaconMarker: "name", .renameMarker: "new_name", .newRoute: "name"]

    /// The command PocketSphinx heard, with the transcript's words for its open slot, when the transcript's nearest
    /// sentence is the same command and their words around the slot are the same (one word in four may differ: "set the beacon on"), but the slot's value differs (a name
    /// outside the vocabulary, which PocketSphinx could only hear as the nearest name it knew). Nil otherwise.
    static func openName(first: FirstOpinion, second: Snap) -> RecognizerDecision? {
        guard let heard = first.command ?? first.heard, let intent = heard.knownIntent, let slot = openSlots[intent],
              let snapped = second.command, snapped.intent == heard.intent,
              let written = second.written[slot]?.trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters)),
              !written.isEmpty else { return nil }
        let writtenWords = IntentParser.tokens(written).map(\.word)
        let value = snapped.slots[slot].map { IntentParser.tokens($0).map(\.word) } ?? []
        // Agreeing on the listed value is the ordinary agreement, decided below: the same words, or the transcript
        // snapped, with hardly a change, onto the very name PocketSphinx heard ("Keskus katu 3a" for the marker
        // "Marker at Keskuskatu 3a").
        let sameListed = snapped.slots[slot] != nil && snapped.slots[slot] == heard.slots[slot] && second.distance < 0.2
        guard writtenWords != value, !sameListed, let frameHeard = removing(writtenWords, from: second.heard),
              let frameSentence = removing(value, from: second.sentence), !frameSentence.isEmpty,
              GrammarSnapper.wordDistance(frameHeard, frameSentence) <= 0.25 else { return nil }
        var command = heard
        command.slots["text"] = written
        return RecognizerDecision(outcome: .agreed, command: command,
                                  reason: "both heard \(intent.rawValue); the name is the transcript's \"\(written)\"")
    }

    /// PocketSphinx took a command with an open slot, but the transcript's words for the rest of it were garbled, so
    /// it snapped to another command ("same listly as my dentist" for "save this place as my dentist"). When the
    /// transcript has the word that leads into the slot ("as", "to", "on", "route") with one to five words after it,
    /// and about as many words before it as PocketSphinx heard, those words are the name. What it names is read back
    /// before anything is saved or a route starts.
    static func anchoredName(first: FirstOpinion, second: Snap) -> RecognizerDecision? {
        guard let command = first.command, let intent = command.knownIntent, let slot = openSlots[intent],
              second.command?.intent != command.intent, let value = command.slots[slot] else { return nil }
        let words = IntentParser.tokens(command.words).map(\.word)
        let valueWords = IntentParser.tokens(value).map(\.word)
        guard let frame = removing(valueWords, from: words), frame.count >= 2, let lead = frame.last,
              let at = second.heard.lastIndex(of: lead) else { return nil }
        let name = Array(second.heard[(at + 1)...])
        guard (1...5).contains(name.count), abs(at - (frame.count - 1)) <= 2, name != valueWords else { return nil }
        var taken = command
        taken.slots["text"] = name.joined(separator: " ")
        return RecognizerDecision(outcome: .agreed, command: taken,
                                  reason: "PocketSphinx heard \(intent.rawValue); the name is the transcript's \"\(name.joined(separator: " "))\" after \"\(lead)\"")
    }

    /// The transcript's command when its words, but for an open slot's name, are exactly a sentence of the grammar
    /// ("save this place as the dentist" against "save this place as meeting point"): the name may be any words, so
    /// only the rest measures how sure the snap is. Nil for other commands, or when the rest differs.
    static func exactFrame(_ second: Snap) -> RecognizedCommand? {
        guard let snapped = second.command, let intent = snapped.knownIntent, let slot = openSlots[intent],
              let written = second.written[slot]?.trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters)),
              !written.isEmpty else { return nil }
        let value = snapped.slots[slot].map { IntentParser.tokens($0).map(\.word) } ?? []
        guard let frameHeard = removing(IntentParser.tokens(written).map(\.word), from: second.heard),
              let frameSentence = removing(value, from: second.sentence), !frameSentence.isEmpty,
              frameHeard == frameSentence else { return nil }
        var command = snapped
        command.slots["text"] = written
        return command
    }

    /// `words` without the last run of `part` in it; nil when `part` is not there.
    private static func removing(_ part: [String], from words: [String]) -> [String]? {
        guard !part.isEmpty else { return words }
        guard part.count <= words.count else { return nil }
        for start in stride(from: words.count - part.count, through: 0, by: -1) where Array(words[start..<start + part.count]) == part {
            return Array(words[..<start] + words[(start + part.count)...])
        }
        return nil
    }

    /// Whether the command carries a name in an open slot ("set beacon on Kauppatori"): Whisper tiny.en gives the
    /// tokens of a Finnish name so little probability that its score says more about the spelling than about what
    /// was heard, so the score veto leaves such a command to the snapped transcript's rules.
    static func namesAPlace(_ c: RecognizedCommand) -> Bool {
        guard let intent = c.knownIntent, let slot = openSlots[intent] else { return false }
        return !(c.slots[slot] ?? "").isEmpty
    }

    /// A command naming a place whose words before the name Whisper heard (``SentenceScores/frame``, at or above
    /// ``DecisionThresholds/frameFloor``; taken as heard when there is no such score): spared the score veto and the
    /// out-of-grammar rule, as its name alone may be what Whisper could not follow.
    static func namesAPlaceHeard(_ c: RecognizedCommand, scores: SentenceScores?, thresholds: DecisionThresholds) -> Bool {
        guard namesAPlace(c) else { return false }
        guard let frame = scores?.frame else { return true }
        return frame.wordsMean >= thresholds.frameFloor
    }

    static func undoesAnother(_ c: RecognizedCommand) -> Bool {
        guard let intent = c.knownIntent else { return true }   // unknown: be as careful as with the worst
        return !intent.opposites.isEmpty
    }

    /// One decision from PocketSphinx's result and the snapped transcript of the same utterance (nil when there is no
    /// second recognizer, or it failed on this utterance).
    ///
    /// - They agree (same intent and slots, whether or not PocketSphinx's confidence passed): taken. An unsure
    ///   transcript, or any transcript of a command that undoes nothing, agrees when its nearest sentence, within
    ///   ``DecisionThresholds/looseAgreement``, is the command PocketSphinx took.
    /// - The transcript is further than ``DecisionThresholds/outOfGrammar`` from every command: not a command, unless
    ///   PocketSphinx took a command that undoes nothing and the transcript is not sure of its words
    ///   (``DecisionThresholds/sureTranscript``) or the command names a place (Whisper tiny writes Finnish names as
    ///   confident nonsense: "Set we can uncover that or it." for "set beacon on Kauppatori") and Whisper heard its
    ///   words before the name (``DecisionThresholds/frameFloor``): then PocketSphinx's command stands.
    /// - They disagree: the one with strong evidence when the other's is not strong, unless its command undoes
    ///   another (on/off, mute/unmute, …): those are taken only when both agree. Otherwise "Say that again?", never
    ///   a guess.
    /// - PocketSphinx heard no speech: nothing, whatever the transcript says (a neural model writes words into noise).
    ///
    /// With Whisper's `scores` of the sentences in question, they come first (``byScores(first:second:scores:thresholds:)``):
    /// PocketSphinx's command scored about as likely as the transcript is taken, and one scored far below it
    /// (``DecisionThresholds/scoreVeto``) no longer stands on PocketSphinx's word.
    public static func decide(first: FirstOpinion, second: Snap?, transcriptLogProbability: Double? = nil, scores: SentenceScores? = nil,
                              thresholds: DecisionThresholds = .standard) -> RecognizerDecision {
        guard let second else {
            if let command = first.command {
                return RecognizerDecision(outcome: .firstAlone, command: command, reason: "PocketSphinx alone")
            }
            return RecognizerDecision(outcome: .rejected, command: nil, reason: first.rejection ?? "rejected")
        }
        if first.noSpeech || first.text.isEmpty {
            return RecognizerDecision(outcome: .rejected, command: nil, reason: first.rejection ?? "nothing heard")
        }
        if let opened = openName(first: first, second: second) ?? anchoredName(first: first, second: second) { return opened }
        if let scores, let scored = byScores(first: first, second: second, scores: scores, thresholds: thresholds) { return scored }
        var first = first
        if let scores, let sentence = scores.first, let command = first.command, scores.gap(sentence) > thresholds.scoreVeto,
           !namesAPlaceHeard(command, scores: scores, thresholds: thresholds) {
            first.command = nil   // heard, but not taken on PocketSphinx's word: the transcript may still agree with it
        }
        let transcript = "\"\(second.heard.joined(separator: " "))\""
        let distance = String(format: "%.2f", second.distance)
        let unsure = (transcriptLogProbability ?? -.infinity) < thresholds.sureTranscript
        if let command = first.command, unsure || !undoesAnother(command), same(command, second.command),
           second.distance <= thresholds.looseAgreement {
            return RecognizerDecision(outcome: .agreed, command: command,
                                      reason: "the transcript \(transcript) is nearest to \(command.intent) too (distance \(distance))")
        }
        guard let snapped = second.command, second.distance <= thresholds.outOfGrammar else {
            if let command = first.command, unsure || namesAPlaceHeard(command, scores: scores, thresholds: thresholds), !undoesAnother(command) {
                let why = unsure ? "its words are unsure" : "Whisper garbles the names of places"
                return RecognizerDecision(outcome: .firstRecognizer, command: command,
                                          reason: "the transcript \(transcript) matches no command (distance \(distance)) but \(why); "
                                              + "PocketSphinx's \(command.intent) undoes nothing and stands")
            }
            return RecognizerDecision(outcome: .outOfGrammar, command: nil,
                                      reason: "the transcript \(transcript) is far from every command (distance \(distance))")
        }
        let heard = first.command ?? first.heard
        if same(heard, snapped) {
            var command = withFreeText(heard!, from: second)
            command.confidence = max(first.confidence, 1 - second.distance)
            return RecognizerDecision(outcome: .agreed, command: command, reason: "both heard \(snapped.intent) (distance \(distance))")
        }
        let secondStrong = second.distance <= thresholds.strongSnap
        let firstCommand = first.command
        let firstStrong = firstCommand != nil && first.confidence >= thresholds.strongConfidence
        let rivals = "PocketSphinx heard \(heard?.intent ?? "no command") (\(String(format: "%.2f", first.confidence))), "
            + "the transcript \(transcript) is \(snapped.intent) (distance \(distance))"
        // A sure transcript whose words are a command's but for a name the user chose: taken even for "save", which
        // undoes "delete", because a name from the transcript is read back and saved only after "yes, save it".
        if !firstStrong, !unsure, let named = exactFrame(second) {
            return RecognizerDecision(outcome: .secondRecognizer, command: named,
                                      reason: rivals + "; the transcript is that command's words exactly, with the name \"\(named.slots["text"] ?? "")\"")
        }
        if secondStrong && !firstStrong && !undoesAnother(snapped) {
            var command = withFreeText(snapped, from: second)
            command.confidence = 1 - second.distance
            return RecognizerDecision(outcome: .secondRecognizer, command: command, reason: rivals + "; the transcript is surer")
        }
        if let firstCommand, firstStrong && !secondStrong && !undoesAnother(firstCommand) {
            return RecognizerDecision(outcome: .firstRecognizer, command: firstCommand, reason: rivals + "; PocketSphinx is surer")
        }
        let why = (secondStrong && undoesAnother(snapped)) || (firstStrong && firstCommand.map(undoesAnother) == true)
            ? "; a command that undoes another needs both to agree" : "; neither is sure enough"
        return RecognizerDecision(outcome: .askAgain, command: nil, reason: rivals + why)
    }

    /// The decision from Whisper's scores of PocketSphinx's words, when they settle it; nil to decide from the snapped
    /// transcript.
    /// - A command that undoes another, which PocketSphinx took (or heard, and the transcript is that command or its
    ///   opposite), is taken only when Whisper scores its sentence clearly above every opposite's
    ///   (``DecisionThresholds/oppositeMargin``); otherwise "Say that again?", even when both recognizers wrote the
    ///   same words — in a crowd both have heard "beacon distance on" for "beacon distance off".
    /// - The transcript's nearest command is taken instead, when it undoes nothing and Whisper scores its sentence about
    ///   as likely as its own transcript and clearly above PocketSphinx's words.
    /// - PocketSphinx's command is taken when Whisper finds its sentence about as likely as its own transcript
    ///   (``DecisionThresholds/scoreGap``) and likely in itself (``DecisionThresholds/scoreFloor``).
    static func byScores(first: FirstOpinion, second: Snap, scores: SentenceScores, thresholds: DecisionThresholds) -> RecognizerDecision? {
        guard let sentence = scores.first, let heard = first.command ?? first.heard else { return nil }
        let gap = scores.gap(sentence)
        let margin = SentenceScores.margin(sentence, over: scores.firstOpposites)
        let related = second.command.map { $0.intent == heard.intent || (heard.knownIntent?.opposites.map(\.rawValue).contains($0.intent) ?? false) } ?? false
        if undoesAnother(heard), margin < thresholds.oppositeMargin, first.command != nil || related {
            return RecognizerDecision(outcome: .askAgain, command: nil,
                                      reason: "PocketSphinx heard \(heard.intent), which undoes another command, and Whisper scores it only "
                                          + String(format: "%.1f", margin) + " above its opposite; both must be sure")
        }
        if let chosen = byChoice(first: first, heard: heard, sentence: sentence, scores: scores, thresholds: thresholds) { return chosen }
        // The transcript's nearest command instead of PocketSphinx's, when Whisper scores its sentence about as likely
        // as its own words and clearly above PocketSphinx's, and it undoes nothing.
        if let snapped = second.command, let rival = scores.snapped, !same(snapped, first.command ?? heard), !undoesAnother(snapped),
           scores.gap(rival) <= thresholds.scoreGap, rival.wordsMean >= thresholds.scoreFloor,
           rival.logProbability - sentence.logProbability >= thresholds.oppositeMargin {
            var command = snapped
            command.confidence = 1 - second.distance
            return RecognizerDecision(outcome: .secondRecognizer, command: command,
                                      reason: "Whisper scores \"\(rival.text)\" " + String(format: "%.1f", rival.logProbability - sentence.logProbability)
                                          + " above PocketSphinx's \"\(sentence.text)\"")
        }
        guard let command = first.command else { return nil }
        let otherCommandSure = second.command.map { !same($0, command) && second.distance <= thresholds.strongSnap } ?? false
        if undoesAnother(command), !scores.firstOpposites.isEmpty, margin >= thresholds.decisiveMargin,
           first.confidence >= thresholds.strongConfidence, !otherCommandSure {
            return RecognizerDecision(outcome: .agreed, command: command,
                                      reason: "Whisper scores PocketSphinx's \"\(sentence.text)\" " + String(format: "%.1f", margin)
                                          + " above its opposite, though it wrote \"\(scores.transcript.text)\"")
        }
        let figures = gap <= 0 ? "at least as likely as its transcript \"\(scores.transcript.text)\""
            : String(format: "%.2f a token below its transcript \"%@\"", gap, scores.transcript.text)
        guard gap <= thresholds.scoreGap, sentence.wordsMean >= thresholds.scoreFloor else { return nil }
        let over = margin.isFinite ? String(format: ", %.1f above its opposite", margin) : ""
        return RecognizerDecision(outcome: .agreed, command: command,
                                  reason: "Whisper scores PocketSphinx's \"\(sentence.text)\" \(figures)\(over)")
    }

    /// The decision from Whisper's choice among all the grammar's sentences, when it is decisive
    /// (``DecisionThresholds/choiceMargin``, ``DecisionThresholds/choiceGap``):
    /// - the same command as PocketSphinx's: taken (one that undoes another only when PocketSphinx took it and Whisper
    ///   scores its words above every opposite's by ``DecisionThresholds/oppositeMargin``);
    /// - another command that undoes nothing: taken instead of PocketSphinx's. One that undoes another is never taken
    ///   on Whisper's word alone.
    static func byChoice(first: FirstOpinion, heard: RecognizedCommand, sentence: ScoredText, scores: SentenceScores,
                         thresholds: DecisionThresholds) -> RecognizerDecision? {
        // Without a rival among the sentences returned, how decisive the choice is cannot be told.
        guard let choice = scores.choice, choice.rival != nil, choice.margin >= thresholds.choiceMargin,
              scores.gap(choice.sentence) <= thresholds.choiceGap else { return nil }
        let figures = String(format: "%.1f above the likeliest sentence of another command", choice.margin)
        if same(choice.command, heard) {
            if undoesAnother(choice.command) {
                guard first.command != nil,
                      SentenceScores.margin(sentence, over: scores.firstOpposites) >= thresholds.oppositeMargin else { return nil }
            }
            var command = first.command ?? heard
            command.confidence = max(command.confidence, first.confidence)
            return RecognizerDecision(outcome: .agreed, command: command,
                                      reason: "Whisper's likeliest sentence of the grammar is PocketSphinx's \(heard.intent) too (\"\(choice.sentence.text)\", \(figures))")
        }
        guard !undoesAnother(choice.command),
              choice.sentence.logProbability - sentence.logProbability >= thresholds.choiceMargin else { return nil }
        return RecognizerDecision(outcome: .secondRecognizer, command: choice.command,
                                  reason: "Whisper's likeliest sentence of the grammar is \"\(choice.sentence.text)\" (\(figures)); "
                                      + "PocketSphinx heard \(heard.intent)")
    }

    /// Whether a second opinion can change what PocketSphinx decided: always, unless `everyUtterance` is false and
    /// PocketSphinx took a command that undoes nothing with strong confidence. Never when PocketSphinx heard no speech.
    public static func wantsSecondOpinion(_ first: FirstOpinion, everyUtterance: Bool, thresholds: DecisionThresholds = .standard) -> Bool {
        if first.noSpeech || first.text.isEmpty { return false }
        if everyUtterance { return true }
        guard let command = first.command else { return true }
        return undoesAnother(command) || first.confidence < thresholds.strongConfidence
    }
}
