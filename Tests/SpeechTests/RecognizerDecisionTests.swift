import Foundation
import Speech
import Testing

@Suite("One decision from two recognizers")
struct RecognizerDecisionTests {
    static func command(_ intent: String, _ slots: [String: String] = [:]) -> RecognizedCommand {
        RecognizedCommand(intent: intent, slots: slots, confidence: 1, words: intent.replacingOccurrences(of: "_", with: " "))
    }

    /// PocketSphinx's opinion: `taken` when its confidence passed.
    static func first(_ intent: String?, confidence: Double, taken: Bool = true, slots: [String: String] = [:]) -> FirstOpinion {
        let heard = intent.map { command($0, slots) }
        return FirstOpinion(text: intent.map { $0.replacingOccurrences(of: "_", with: " ") } ?? "something", command: taken ? heard : nil,
                            heard: heard, confidence: confidence, rejection: taken ? nil : "low confidence")
    }

    static func snap(_ intent: String?, distance: Double, slots: [String: String] = [:]) -> Snap {
        Snap(heard: ["transcript"], sentence: intent.map { [$0] } ?? [], command: intent.map { command($0, slots) },
             distance: distance, wordDistance: distance)
    }

    @Test func whenBothHearTheSameCommandItIsTaken() {
        let d = RecognizerDecision.decide(first: Self.first("callouts_off", confidence: 0.8), second: Self.snap("callouts_off", distance: 0.05))
        #expect(d.outcome == .agreed)
        #expect(d.command?.intent == "callouts_off")
        // Agreement also rescues a command PocketSphinx heard but was not sure of.
        let unsure = RecognizerDecision.decide(first: Self.first("where_am_i", confidence: 0.2, taken: false),
                                               second: Self.snap("where_am_i", distance: 0.1))
        #expect(unsure.outcome == .agreed)
        #expect(unsure.command?.intent == "where_am_i")
    }

    @Test func theOppositeOfWhatWasSaidIsNeverTakenOnOneRecognizersWord() {
        // The case: "callouts off" heard by PocketSphinx as callouts_on, with near-certain confidence.
        let d = RecognizerDecision.decide(first: Self.first("callouts_on", confidence: 0.99), second: Self.snap("callouts_off", distance: 0))
        #expect(d.outcome == .askAgain)
        #expect(d.command == nil)
        // PocketSphinx sure, the transcript further off: still not taken, since callouts_on undoes callouts_off.
        let weak = RecognizerDecision.decide(first: Self.first("mute_beacon", confidence: 0.99), second: Self.snap("unmute_beacon", distance: 0.3))
        #expect(weak.outcome == .askAgain)
        // The transcript sure, PocketSphinx heard nothing it could parse: a command that undoes another needs both.
        let alone = RecognizerDecision.decide(first: Self.first(nil, confidence: 0, taken: false), second: Self.snap("speak_faster", distance: 0))
        #expect(alone.outcome == .askAgain)
        #expect(alone.command == nil)
    }

    @Test func onDisagreementTheStrongerEvidenceWinsOrItAsksAgain() {
        let second = RecognizerDecision.decide(first: Self.first("repeat", confidence: 0.6), second: Self.snap("where_am_i", distance: 0.05))
        #expect(second.outcome == .secondRecognizer)
        #expect(second.command?.intent == "where_am_i")
        let first = RecognizerDecision.decide(first: Self.first("where_am_i", confidence: 0.97), second: Self.snap("around_me", distance: 0.25))
        #expect(first.outcome == .firstRecognizer)
        #expect(first.command?.intent == "where_am_i")
        let both = RecognizerDecision.decide(first: Self.first("where_am_i", confidence: 0.97), second: Self.snap("around_me", distance: 0.05))
        #expect(both.outcome == .askAgain)
        let neither = RecognizerDecision.decide(first: Self.first("where_am_i", confidence: 0.6), second: Self.snap("around_me", distance: 0.25))
        #expect(neither.outcome == .askAgain)
        // Same intent, another place: a disagreement too.
        let place = RecognizerDecision.decide(first: Self.first("set_beacon", confidence: 0.7, slots: ["place": "Kasarmitori"]),
                                              second: Self.snap("set_beacon", distance: 0.08, slots: ["place": "Kauppatori"]))
        #expect(place.outcome == .secondRecognizer)
        #expect(place.command?.slots["place"] == "Kauppatori")
    }

    static func scored(_ text: String, _ logProbability: Double, tokens: Int = 5) -> ScoredText {
        ScoredText(text: text, logProbability: logProbability, tokens: tokens)
    }

    @Test func whisperScoringPocketSphinxsWordsAsLikelyAsItsOwnTakesTheCommandOverAGarbledTranscript() {
        // Measured with espeak-ng en+f3: Whisper wrote "Calopsof," (far from every command) but scores "Callouts off."
        // above its own words and 6.9 above "Callouts on.".
        let first = Self.first("callouts_off", confidence: 0.76)
        let garbled = Self.snap(nil, distance: 1)
        let scores = SentenceScores(transcript: Self.scored("Calopsof,", -16.04), first: Self.scored("Callouts off.", -13.56),
                                    firstOpposites: [Self.scored("Callouts on.", -20.46)])
        #expect(RecognizerDecision.decide(first: first, second: garbled).outcome == .outOfGrammar, "without scores: vetoed")
        let d = RecognizerDecision.decide(first: first, second: garbled, scores: scores)
        #expect(d.outcome == .agreed, "\(d)")
        #expect(d.command?.intent == "callouts_off")

        // The opposite scored about as high: Whisper cannot tell them apart, so it is not taken, even where both
        // recognizers wrote the same words (in a 5 dB crowd both heard "beacon distance on" for "beacon distance off").
        var close = scores
        close.firstOpposites = [Self.scored("Callouts on.", -14.5)]
        #expect(RecognizerDecision.decide(first: first, second: garbled, scores: close).outcome == .askAgain)
        let bothWrong = RecognizerDecision.decide(first: first, second: Self.snap("callouts_off", distance: 0.2), scores: close)
        #expect(bothWrong.outcome == .askAgain, "\(bothWrong)")
        #expect(bothWrong.command == nil)
        // The opposite clearly likelier: never taken, whatever else agrees.
        var opposite = scores
        opposite.firstOpposites = [Self.scored("Callouts on.", -9)]
        let asked = RecognizerDecision.decide(first: first, second: Self.snap("callouts_off", distance: 0.3), scores: opposite)
        #expect(asked.outcome == .askAgain, "\(asked)")
        #expect(asked.command == nil)
    }

    @Test func whisperScoringPocketSphinxsWordsFarBelowItsOwnLeavesTheTranscriptToDecide() {
        // "turn on the lights", which PocketSphinx took for callouts_on: Whisper's words are far likelier than the command's.
        let first = Self.first("callouts_on", confidence: 0.9)
        let scores = SentenceScores(transcript: Self.scored("Turn on the lights.", -3.4, tokens: 6),
                                    first: Self.scored("Turn on callouts.", -20.4, tokens: 6),
                                    firstOpposites: [Self.scored("Turn off callouts.", -25.9, tokens: 6)])
        let d = RecognizerDecision.decide(first: first, second: Self.snap(nil, distance: 1), transcriptLogProbability: -0.06, scores: scores)
        #expect(d.outcome == .outOfGrammar, "\(d)")
        #expect(d.command == nil)
        // A command that undoes nothing, scored as likely as the transcript: taken although the transcript snapped elsewhere.
        let whereAmI = RecognizerDecision.decide(first: Self.first("where_am_i", confidence: 0.5), second: Self.snap("around_me", distance: 0.3),
                                                 scores: SentenceScores(transcript: Self.scored("When am I?", -2.6),
                                                                        first: Self.scored("Where am I?", -3.5)))
        #expect(whereAmI.outcome == .agreed, "\(whereAmI)")
        #expect(whereAmI.command?.intent == "where_am_i")
        #expect(SentenceScores.margin(Self.scored("x", -1), over: []) == .infinity)

        // PocketSphinx took another command in a crowd; Whisper's nearest sentence scores far above it: that one.
        let crowd = RecognizerDecision.decide(first: Self.first("repeat", confidence: 0.95), second: Self.snap("where_am_i", distance: 0.3),
                                              scores: SentenceScores(transcript: Self.scored("Where am I", -4),
                                                                     first: Self.scored("What was that?", -30),
                                                                     snapped: Self.scored("Where am I?", -4.5)))
        #expect(crowd.outcome == .secondRecognizer, "\(crowd)")

        // A Finnish name's tokens are improbable to Whisper whatever was said: the score does not veto a command naming
        // a place (measured: "set beacon on Kauppatori" written "Set we can uncover that or it.", 17.5 below).
        let place = RecognizerDecision.decide(first: Self.first("set_beacon", confidence: 0.97, slots: ["place": "Kauppatori"]),
                                              second: Self.snap("set_beacon", distance: 0.53, slots: ["place": "Toilet"]),
                                              transcriptLogProbability: -1.04,
                                              scores: SentenceScores(transcript: Self.scored("Set we can uncover that or it.", -9.16, tokens: 9),
                                                                     first: Self.scored("Set beacon on Kauppatori.", -26.62, tokens: 8)))
        #expect(place.command?.slots["place"] == "Kauppatori", "\(place)")
        #expect(crowd.command?.intent == "where_am_i")
    }

    @Test func aCommandNamingAPlaceStandsOnlyWhenWhisperHeardTheWordsBeforeTheName() {
        // Measured (espeak-ng en-us, clean): "set beacon on Senaatintori" written "Set the conlon set the art authority.",
        // the whole sentence 3.35 a token below the transcript, but "Set beacon on" at −2.19 a token.
        func scores(_ transcript: String, _ frame: Double) -> SentenceScores {
            SentenceScores(transcript: Self.scored(transcript, -6, tokens: 8), first: Self.scored("Set beacon on Senaatintori.", -33, tokens: 8),
                           frame: ScoredText(text: "Set beacon on", logProbability: 3 * frame - 2, endLogProbability: -2, tokens: 4))
        }
        let far = Snap(heard: ["set", "the", "conlon", "set", "the", "art", "authority"], sentence: [], command: nil, distance: 1, wordDistance: 1)
        let first = Self.first("set_beacon", confidence: 0.95, slots: ["place": "Senaatintori"])
        let heard = RecognizerDecision.decide(first: first, second: far, transcriptLogProbability: -0.6,
                                              scores: scores("Set the conlon set the art authority.", -2.19))
        #expect(heard.outcome == .firstRecognizer && heard.command?.slots["place"] == "Senaatintori", "\(heard)")
        // "the music is too loud", which PocketSphinx took for "new route evening walk": "New route" scored −9.49 a token.
        let music = Snap(heard: ["the", "music", "is", "too", "loud"], sentence: [], command: nil, distance: 1, wordDistance: 1)
        let notHeard = RecognizerDecision.decide(first: Self.first("new_route", confidence: 0.95, slots: ["name": "Evening Walk"]), second: music,
                                                 transcriptLogProbability: -0.3, scores: scores("The music is too loud.", -9.49))
        #expect(notHeard.outcome == .outOfGrammar && notHeard.command == nil, "\(notHeard)")
        // The frame is the words before the name, as PocketSphinx heard them.
        let command = Self.command("set_beacon", ["place": "Hotelli Seurahuone"])
        #expect(SecondOpinion.frame(of: command, words: ["set", "a", "beacon", "on", "hotelli", "seurahuone"]) == ["set", "a", "beacon", "on"])
        #expect(SecondOpinion.frame(of: Self.command("where_am_i"), words: ["where", "am", "i"]) == nil)
        #expect(SecondOpinion.frame(of: command, words: ["hotelli", "seurahuone"]) == nil)
        #expect(SecondOpinion.written(["set", "beacon", "on"], ending: false) == "Set beacon on")
    }

    @Test func aCommandWhisperScoresFarAboveItsOppositeIsTakenThoughItsTranscriptWentElsewhere() {
        var thresholds = DecisionThresholds.standard
        thresholds.decisiveMargin = 10
        // Measured (espeak-ng en-us, clean): "mute beacon" written "You'll be gone.", yet "Mute beacon." scored 15.2 above
        // "Unmute beacon.".
        let far = Snap(heard: ["you'll", "be", "gone"], sentence: [], command: nil, distance: 1, wordDistance: 1)
        let scores = SentenceScores(transcript: Self.scored("You'll be gone.", -4, tokens: 5), first: Self.scored("Mute beacon.", -17.5, tokens: 5),
                                    firstOpposites: [Self.scored("Unmute beacon.", -32.7, tokens: 5)])
        let taken = RecognizerDecision.decide(first: Self.first("mute_beacon", confidence: 0.95), second: far, transcriptLogProbability: -0.5,
                                              scores: scores, thresholds: thresholds)
        #expect(taken.outcome == .agreed && taken.command?.intent == "mute_beacon", "\(taken)")
        // Not on PocketSphinx's weak word, not by a smaller margin, not without an opposite scored, not when the rule is off.
        #expect(RecognizerDecision.decide(first: Self.first("mute_beacon", confidence: 0.6), second: far, transcriptLogProbability: -0.5,
                                          scores: scores, thresholds: thresholds).command == nil)
        var narrow = scores
        narrow.firstOpposites = [Self.scored("Unmute beacon.", -25, tokens: 5)]
        #expect(RecognizerDecision.decide(first: Self.first("mute_beacon", confidence: 0.95), second: far, transcriptLogProbability: -0.5,
                                          scores: narrow, thresholds: thresholds).command == nil)
        var alone = scores
        alone.firstOpposites = []
        #expect(RecognizerDecision.decide(first: Self.first("mute_beacon", confidence: 0.95), second: far, transcriptLogProbability: -0.5,
                                          scores: alone, thresholds: thresholds).command == nil)
        thresholds.decisiveMargin = 1_000
        #expect(RecognizerDecision.decide(first: Self.first("mute_beacon", confidence: 0.95), second: far, transcriptLogProbability: -0.5,
                                          scores: scores, thresholds: thresholds).command == nil)
        // Nor when the transcript is surely another command.
        thresholds.decisiveMargin = 10
        #expect(RecognizerDecision.decide(first: Self.first("mute_beacon", confidence: 0.95), second: Self.snap("where_am_i", distance: 0.05),
                                          transcriptLogProbability: -0.5, scores: scores, thresholds: thresholds).command?.intent != "mute_beacon")
    }

    @Test func aTranscriptFarFromEveryCommandIsNoCommandWhateverPocketSphinxSays() {
        let thresholds = DecisionThresholds.standard
        let d = RecognizerDecision.decide(first: Self.first("callouts_on", confidence: 0.99),
                                          second: Self.snap("callouts_on", distance: thresholds.outOfGrammar + 0.01), transcriptLogProbability: -0.2)
        #expect(d.outcome == .outOfGrammar)
        #expect(d.command == nil)
        // A sure transcript far from every command overrules a command that undoes nothing, too.
        let sure = RecognizerDecision.decide(first: Self.first("where_am_i", confidence: 0.99),
                                             second: Snap(heard: ["where", "are", "my", "gloves"], sentence: [], command: nil, distance: 1, wordDistance: 1),
                                             transcriptLogProbability: -0.2)
        #expect(sure.outcome == .outOfGrammar)
    }

    @Test func anUnsureTranscriptNeitherVetoesNorOverrulesACommandItMerelyGarbled() {
        // Whisper wrote nonsense for "set beacon on Stockmann": PocketSphinx's command, which undoes nothing, stands.
        let nonsense = Snap(heard: ["satsby", "konstogman"], sentence: [], command: nil, distance: 1, wordDistance: 1)
        let stands = RecognizerDecision.decide(first: Self.first("set_beacon", confidence: 0.62, slots: ["place": "Stockmann"]),
                                               second: nonsense, transcriptLogProbability: -1.2)
        #expect(stands.outcome == .firstRecognizer)
        #expect(stands.command?.slots["place"] == "Stockmann")
        // A sure transcript far from every command overrules a command that names no place, but not one that does:
        // "Set we can uncover that or it." for "set beacon on Kauppatori" (the full test run's espeak-ng voice).
        let confident = Snap(heard: ["set", "we", "can", "uncover", "that", "or", "it"], sentence: [], command: nil, distance: 1, wordDistance: 1)
        let placed = RecognizerDecision.decide(first: Self.first("set_beacon", confidence: 0.966, slots: ["place": "Kauppatori"]),
                                               second: confident, transcriptLogProbability: -0.72)
        #expect(placed.outcome == .firstRecognizer && placed.command?.slots["place"] == "Kauppatori", "\(placed)")
        let unplaced = RecognizerDecision.decide(first: Self.first("where_am_i", confidence: 0.966), second: confident,
                                                 transcriptLogProbability: -0.72)
        #expect(unplaced.outcome == .outOfGrammar && unplaced.command == nil, "\(unplaced)")
        // ... but one that undoes another is not taken on PocketSphinx's word alone.
        let undoing = RecognizerDecision.decide(first: Self.first("callouts_on", confidence: 0.99), second: nonsense, transcriptLogProbability: -1.2)
        #expect(undoing.command == nil)
        // "Kälopsof" for "callouts off": unclear, but nearest to the very command PocketSphinx took.
        let garbled = RecognizerDecision.decide(first: Self.first("callouts_off", confidence: 0.99), second: Self.snap("callouts_off", distance: 0.57),
                                                transcriptLogProbability: -1.1)
        #expect(garbled.outcome == .agreed)
        #expect(garbled.command?.intent == "callouts_off")
        // "Wear my." for "where am i", written with confidence: nearest to a command that undoes nothing, so it agrees.
        let misspelt = RecognizerDecision.decide(first: Self.first("where_am_i", confidence: 0.88), second: Self.snap("where_am_i", distance: 0.58),
                                                 transcriptLogProbability: -0.22)
        #expect(misspelt.outcome == .agreed)
        // The same distance from a clearly written transcript is another sentence when the command undoes another.
        let clear = RecognizerDecision.decide(first: Self.first("callouts_on", confidence: 0.99), second: Self.snap("callouts_on", distance: 0.5),
                                              transcriptLogProbability: -0.2)
        #expect(clear.outcome == .outOfGrammar)
        // Loose agreement needs PocketSphinx to have taken the command, and the opposite never agrees.
        #expect(RecognizerDecision.decide(first: Self.first("callouts_off", confidence: 0.3, taken: false),
                                          second: Self.snap("callouts_off", distance: 0.57), transcriptLogProbability: -1.1).command == nil)
        #expect(RecognizerDecision.decide(first: Self.first("callouts_on", confidence: 0.99),
                                          second: Self.snap("callouts_off", distance: 0.57), transcriptLogProbability: -1.1).command == nil)
    }

    @Test func withoutASecondOpinionPocketSphinxDecidesAlone() {
        let d = RecognizerDecision.decide(first: Self.first("callouts_on", confidence: 0.99), second: nil)
        #expect(d.outcome == .firstAlone)
        #expect(d.command?.intent == "callouts_on")
        let rejected = RecognizerDecision.decide(first: Self.first("callouts_on", confidence: 0.2, taken: false), second: nil)
        #expect(rejected.outcome == .rejected)
        // Noise alone: whatever the transcript says.
        var noise = Self.first("stop", confidence: 0.9, taken: false)
        noise.noSpeech = true
        #expect(RecognizerDecision.decide(first: noise, second: Self.snap("stop", distance: 0)).outcome == .rejected)
        #expect(!RecognizerDecision.wantsSecondOpinion(noise, everyUtterance: true))
    }

    @Test func aSecondOpinionIsSkippedOnlyWhereItCannotChangeTheOutcome() {
        #expect(RecognizerDecision.wantsSecondOpinion(Self.first("where_am_i", confidence: 0.99), everyUtterance: true))
        #expect(!RecognizerDecision.wantsSecondOpinion(Self.first("where_am_i", confidence: 0.99), everyUtterance: false))
        #expect(RecognizerDecision.wantsSecondOpinion(Self.first("where_am_i", confidence: 0.5), everyUtterance: false))
        #expect(RecognizerDecision.wantsSecondOpinion(Self.first("callouts_on", confidence: 0.99), everyUtterance: false))
        #expect(RecognizerDecision.wantsSecondOpinion(Self.first("where_am_i", confidence: 0.3, taken: false), everyUtterance: false))
    }

    @Test func commandsThatUndoEachOtherArePairedFromTheirNames() {
        let pairs: [(Intent, Intent)] = [(.calloutsOn, .calloutsOff), (.muteBeacon, .unmuteBeacon), (.speechLouder, .speechQuieter),
                                         (.beaconLouder, .beaconQuieter), (.soundsLouder, .soundsQuieter), (.speakFaster, .speakSlower),
                                         (.useMetric, .useImperial), (.sleep, .wake), (.snooze, .wake), (.placesOn, .placesOff),
                                         (.mobilityOn, .mobilityOff), (.beaconDistanceOn, .beaconDistanceOff), (.cancel, .redo),
                                         (.startRoute, .stopRoute), (.saveMarker, .deleteMarker)]
        for (a, b) in pairs {
            #expect(a.opposites.contains(b), "\(a) should undo \(b)")
            #expect(b.opposites.contains(a), "\(b) should undo \(a)")
        }
        for intent in [Intent.whereAmI, .aroundMe, .setBeacon, .help, .repeatLast, .beaconVolume] {
            #expect(intent.opposites.isEmpty, "\(intent) undoes nothing")
        }
        // Every intent whose name ends in an undoing word has its pair (a new "x_on" without "x_off" would show here).
        for intent in Intent.allCases where ["on", "off", "louder", "quieter"].contains(where: { intent.rawValue.hasSuffix("_" + $0) }) {
            #expect(!intent.opposites.isEmpty, "\(intent) has no opposite")
        }
    }

    /// A name outside the vocabulary: PocketSphinx hears the nearest name it knows, the transcript the real one. When
    /// both heard the same command around it, the command stands with the transcript's name in "text".
    @Test func aNameOutsideTheVocabularyComesFromTheTranscriptWhenTheCommandAroundItAgrees() {
        let heard = RecognizedCommand(intent: "take_me_to", slots: ["place": "Kiasma"], confidence: 0.95, words: "take me to kiasma")
        let first = FirstOpinion(text: "take me to kiasma", command: heard, heard: heard, confidence: 0.95)
        let snapped = RecognizedCommand(intent: "take_me_to", slots: ["place": "Kaisaniemi"], confidence: 1, words: "take me to kaisaniemi")
        let transcript = Snap(heard: ["take", "me", "to", "american", "bar"], sentence: ["take", "me", "to", "kaisaniemi"], command: snapped,
                              distance: 0.45, wordDistance: 0.4, written: ["place": "American Bar."])
        let d = RecognizerDecision.decide(first: first, second: transcript)
        #expect(d.outcome == .agreed, "\(d.reason)")
        #expect(d.command?.intent == "take_me_to" && d.command?.slots["text"] == "American Bar")
        #expect(d.command?.slots["place"] == "Kiasma")

        // Another command around the name: the ordinary decision (far from every command).
        let other = Snap(heard: ["turn", "me", "off", "american", "bar"], sentence: ["take", "me", "to", "kaisaniemi"], command: snapped,
                         distance: 0.5, wordDistance: 0.6, written: ["place": "American Bar"])
        #expect(RecognizerDecision.decide(first: first, second: other, transcriptLogProbability: -0.1).command?.slots["text"] == nil)
        // The same listed name in both: the ordinary agreement, nothing from the transcript.
        let same = Snap(heard: ["take", "me", "to", "kiasma"], sentence: ["take", "me", "to", "kiasma"], command: heard,
                        distance: 0, wordDistance: 0, written: ["place": "Kiasma"])
        let agreed = RecognizerDecision.decide(first: first, second: same)
        #expect(agreed.outcome == .agreed && agreed.command?.slots["text"] == nil)
        // The listed name written another way ("Keskus katu 3a"), snapped onto it with hardly a change: also the
        // ordinary agreement.
        let marker = RecognizedCommand(intent: "take_me_to", slots: ["place": "Marker at Keskuskatu 3a"], confidence: 0.99,
                                       words: "take me to marker at keskuskatu three a")
        let spelled = Snap(heard: ["take", "me", "to", "marker", "at", "keskus", "katu", "three", "a"],
                           sentence: ["take", "me", "to", "marker", "at", "keskuskatu", "three", "a"], command: marker,
                           distance: 0.05, wordDistance: 0.2, written: ["place": "Marker at Keskus katu 3a,"])
        let markerFirst = FirstOpinion(text: marker.words, command: marker, heard: marker, confidence: 0.99)
        let kept = RecognizerDecision.decide(first: markerFirst, second: spelled)
        #expect(kept.outcome == .agreed && kept.command?.slots["text"] == nil, "\(kept.reason)")
    }

    /// The transcript garbled the words before the name and snapped to another command, but it has the word that
    /// leads into the name: the name after it is taken; without that word, or with a sentence much longer than the
    /// command, it is not.
    @Test func aNameAfterTheLeadingWordComesFromAGarbledTranscript() {
        let heard = RecognizedCommand(intent: "save_marker", slots: ["name": "my bench"], confidence: 0.64,
                                      words: "save this place as my bench")
        let first = FirstOpinion(text: heard.words, command: heard, heard: heard, confidence: 0.64)
        let elsewhere = RecognizedCommand(intent: "take_me_to", slots: ["place": "dentist"], confidence: 1, words: "take me to an dentist")
        func transcript(_ words: [String]) -> Snap {
            Snap(heard: words, sentence: ["take", "me", "to", "an", "dentist"], command: elsewhere, distance: 0.57, wordDistance: 0.6)
        }
        let d = RecognizerDecision.decide(first: first, second: transcript(["same", "listly", "as", "my", "dentist"]))
        #expect(d.outcome == .agreed, "\(d.reason)")
        #expect(d.command?.intent == "save_marker" && d.command?.slots["text"] == "my dentist")
        // No "as" in it: the ordinary decision, no name from the transcript.
        #expect(RecognizerDecision.decide(first: first, second: transcript(["same", "listly", "my", "dentist"])).command?.slots["text"] == nil)
        // A long sentence before "as": not this command's words.
        let long = transcript(["i", "would", "like", "it", "the", "same", "way", "as", "my", "dentist"])
        #expect(RecognizerDecision.decide(first: first, second: long).command?.slots["text"] == nil)
    }

    /// PocketSphinx heard no command; the transcript, sure of its words, is a command's words exactly but for a name
    /// the user chose: taken with that name. Unsure, or with other words around the name, it is not.
    @Test func aSureTranscriptWithACommandsWordsAndANewNameIsTaken() {
        let first = FirstOpinion(text: "take me to place to eat", command: nil, heard: nil, confidence: 0)
        let listed = RecognizedCommand(intent: "save_marker", slots: ["name": "meeting point"], confidence: 1,
                                       words: "save this place as meeting point")
        func transcript(_ words: [String]) -> Snap {
            Snap(heard: words, sentence: ["save", "this", "place", "as", "meeting", "point"], command: listed,
                 distance: 0.23, wordDistance: 0.3, written: ["name": "the dentist."])
        }
        let exact = transcript(["save", "this", "place", "as", "the", "dentist"])
        let d = RecognizerDecision.decide(first: first, second: exact, transcriptLogProbability: -0.3)
        #expect(d.outcome == .secondRecognizer, "\(d.reason)")
        #expect(d.command?.intent == "save_marker" && d.command?.slots["text"] == "the dentist")
        #expect(RecognizerDecision.decide(first: first, second: exact, transcriptLogProbability: -2).command == nil)
        let other = transcript(["save", "that", "place", "as", "the", "dentist"])
        #expect(RecognizerDecision.decide(first: first, second: other, transcriptLogProbability: -0.3).command == nil)
    }

    /// In a crowd both recognizers' own words may be another talker's, while the sentence of the grammar Whisper finds
    /// likeliest is still the one said: that choice, when decisive, is taken, but never for a command that undoes
    /// another on Whisper's word alone, and not for a sentence far less likely than Whisper's own transcript.
    @Test func whispersDecisiveChoiceAmongTheGrammarsSentencesSettlesACrowdedUtterance() {
        var thresholds = DecisionThresholds.standard
        thresholds.choiceMargin = 2
        thresholds.choiceGap = 1.5
        let far = Snap(heard: ["i'm", "not", "going"], sentence: [], command: nil, distance: 1, wordDistance: 1)
        func scores(_ choice: GrammarChoice) -> SentenceScores {
            SentenceScores(transcript: Self.scored("I'm not going to be afraid of it.", -9, tokens: 10),
                           first: Self.scored("Help.", -14, tokens: 3), choice: choice)
        }
        let around = GrammarChoice(command: Self.command("around_me"), sentence: Self.scored("What's around me?", -7, tokens: 5),
                                   rival: Self.scored("Where am I?", -10, tokens: 5))
        let taken = RecognizerDecision.decide(first: Self.first("help", confidence: 0.7), second: far, transcriptLogProbability: -1.2,
                                              scores: scores(around), thresholds: thresholds)
        #expect(taken.outcome == .secondRecognizer && taken.command?.intent == "around_me", "\(taken)")
        // Not by a smaller margin over the rival, nor when the rule is off.
        var close = around
        close.rival = Self.scored("Where am I?", -8, tokens: 5)
        #expect(RecognizerDecision.decide(first: Self.first("help", confidence: 0.7), second: far, transcriptLogProbability: -1.2,
                                          scores: scores(close), thresholds: thresholds).command?.intent != "around_me")
        var off = thresholds
        off.choiceMargin = 1_000
        #expect(RecognizerDecision.decide(first: Self.first("help", confidence: 0.7), second: far, transcriptLogProbability: -1.2,
                                          scores: scores(around), thresholds: off).command?.intent != "around_me")
        // Not when the sentence is far less likely per token than the transcript (ordinary speech, clearly heard).
        var unlikely = around
        unlikely.sentence = Self.scored("What's around me?", -20, tokens: 5)
        unlikely.rival = Self.scored("Where am I?", -25, tokens: 5)
        #expect(RecognizerDecision.decide(first: Self.first("help", confidence: 0.7), second: far, transcriptLogProbability: -1.2,
                                          scores: scores(unlikely), thresholds: thresholds).command?.intent != "around_me")
        // A command that undoes another is not taken on Whisper's choice alone.
        let off2 = GrammarChoice(command: Self.command("callouts_off"), sentence: Self.scored("Callouts off.", -6, tokens: 5),
                                 rival: Self.scored("Callouts on.", -12, tokens: 4))
        let refused = RecognizerDecision.decide(first: Self.first("help", confidence: 0.7), second: far, transcriptLogProbability: -1.2,
                                                scores: scores(off2), thresholds: thresholds)
        #expect(refused.command?.intent != "callouts_off", "\(refused)")
        // The same command as PocketSphinx's is taken although the transcript matched nothing.
        let agreed = RecognizerDecision.decide(first: Self.first("around_me", confidence: 0.7), second: far, transcriptLogProbability: -0.3,
                                               scores: SentenceScores(transcript: Self.scored("I'm not going to be afraid of it.", -9, tokens: 10),
                                                                      first: Self.scored("What's around me?", -7, tokens: 5), choice: around),
                                               thresholds: thresholds)
        #expect(agreed.outcome == .agreed && agreed.command?.intent == "around_me", "\(agreed)")
    }
}
