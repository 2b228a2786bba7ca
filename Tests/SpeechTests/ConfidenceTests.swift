import Foundation
import Speech
import Testing

/// The rejection model on real espeak-ng audio through the real decoders (the recognizer of
/// ``RecognizerTests``, so one decoder serves both suites as live input would).
@Suite("Confidence and rejection", .serialized)
struct ConfidenceTests {
    @Test func inGrammarCommandIsAcceptedAndOutOfGrammarSentenceRejected() throws {
        let recognizer = RecognizerTests.recognizer
        // Warm the live cepstral mean on one utterance first, as a running listener would have.
        _ = try recognizer.recognize(RecognizerTests.speech("where am i"))
        let command = try recognizer.recognize(RecognizerTests.speech("mute the beacon"))
        #expect(command.command?.intent == "mute_beacon", "heard \(command.text), \(command.rejection ?? "accepted"), \(command.features)")
        let sentence = try recognizer.recognize(RecognizerTests.speech("the weather is nice today"))
        #expect(sentence.command == nil, "accepted \(sentence.text) with confidence \(sentence.confidence), \(sentence.features)")
    }

    @Test func theBestPathOfAClearCommandIsAheadOfEveryRivalMeaning() throws {
        let recognizer = RecognizerTests.recognizer
        recognizer.measuresMarginAlways = true
        defer { recognizer.measuresMarginAlways = false }
        let result = try recognizer.recognize(RecognizerTests.speech("set beacon on Stockmann"))
        #expect(result.heard?.intent == "set_beacon", "heard \(result.text)")
        // Another intent or place would have to be within the N-best; the margin is the score gap per frame.
        #expect(result.features.nbestMarginMeasured)
        #expect(result.features.nbestMargin > 0, "\(result.features)")
    }

    @Test func skippingTheMarginWhenTheOtherFeaturesDecideGivesTheSameDecisions() throws {
        let recognizer = RecognizerTests.recognizer
        let texts = ["mute the beacon", "set beacon on Kauppatori", "where am i", "the weather is nice today",
                     "I would like a cup of coffee please"]
        var skipped = 0
        // Wait for every margin however long it takes: this test compares the decisions, not the time.
        recognizer.marginBudget = nil
        defer { recognizer.marginBudget = .milliseconds(35) }
        for text in texts {
            let samples = try RecognizerTests.speech(text)
            recognizer.measuresMarginAlways = true
            let full = try recognizer.recognize(samples)
            recognizer.measuresMarginAlways = false
            let gated = try recognizer.recognize(samples)
            #expect(full.features.nbestMarginMeasured || full.heard == nil, "\(text): \(full.features)")
            #expect(gated.command?.words == full.command?.words,
                    "\(text): always measured → \(full.command?.words ?? "rejected") (\(full.confidence)), only when needed → \(gated.command?.words ?? "rejected") (\(gated.confidence)), \(gated.features)")
            if !gated.features.nbestMarginMeasured { skipped += 1 }
        }
        // A clearly spoken command is accepted by the other features alone, so some searches are skipped.
        #expect(skipped > 0, "the N-best search ran for all \(texts.count) utterances")
    }

    @Test func aMarginSearchPastItsBudgetIsStoppedAndTheDecisionMadeWithoutIt() throws {
        let recognizer = RecognizerTests.recognizer
        defer { recognizer.marginBudget = .milliseconds(35) }
        // Sentences whose other features left the decision to the margin in the bench corpus (en-us voice), under
        // this fit or an earlier one (each refit moves some in or out of the margin's span).
        let texts = ["what is the meaning of life", "please speak louder", "what time does the pharmacy open",
                     "this bag is too heavy", "where is the nearest cash machine", "is there a toilet nearby",
                     "the station has a new lift", "my watch has stopped", "what is your favourite colour", "thank you",
                     "really"]
        var needed = 0
        for text in texts {
            let samples = try RecognizerTests.speech(text)
            recognizer.marginBudget = nil
            let patient = try recognizer.recognize(samples)
            guard patient.features.nbestMarginMeasured else { continue }
            // No time: the search is forked and stopped at once (a budget of 1 ns is over before the fork
            // returns), and the decision is made without it.
            recognizer.marginBudget = .nanoseconds(1)
            let hurried = try recognizer.recognize(samples)
            #expect(!hurried.features.nbestMarginMeasured, "\(text): \(hurried.features)")
            // The same audio decoded again is not quite the same features (the live cepstral mean has moved on):
            // when the margin could no longer change the decision, the tuned model decided without searching.
            guard hurried.heard != nil, ConfidenceModel.tuned.marginCanChange(hurried.features) else {
                #expect(abs(hurried.confidence - (hurried.heard == nil ? 0 : ConfidenceModel.tuned.confidence(hurried.features))) < 1e-9,
                        "\(text): \(hurried.confidence), \(hurried.features)")
                continue
            }
            needed += 1
            // …by the model fitted without the margin.
            let alone = ConfidenceModel.tunedWithoutMargin.confidence(hurried.features)
            #expect(abs(hurried.confidence - alone) < 1e-9, "\(text): \(hurried.confidence) vs \(alone)")
            #expect((hurried.command != nil) == (alone >= ConfidenceModel.tunedWithoutMargin.threshold), "\(text): \(alone)")
            if hurried.command == nil {
                #expect(hurried.rejection?.contains("no time to weigh the rivals") == true, "\(text): \(hurried.rejection ?? "accepted")")
            }
            // The stopped search leaves no process behind, and the next utterance decodes normally.
            #expect(Self.forkedCopiesAreGone(), "\(text): \(Self.forkedCopies())")
            recognizer.marginBudget = .milliseconds(35)
            let next = try recognizer.recognize(RecognizerTests.speech("where am i"))
            #expect(next.command?.intent == "where_am_i", "after \(text): heard \(next.text), \(next.rejection ?? "accepted")")
        }
        #expect(needed > 0, "none of the sentences needed the N-best margin when hurried")
    }

    @Test func theMarginSearchedInAChildProcessIsTheOneSearchedHere() throws {
        let recognizer = RecognizerTests.recognizer
        let decoder = recognizer.decoder
        var compared = 0
        for text in ["set beacon on Stockmann", "what is the meaning of life", "where is the nearest cash machine", "mute the beacon"] {
            recognizer.marginBudget = .zero   // the recognizer's own search is not wanted here
            defer { recognizer.marginBudget = .milliseconds(35) }
            let result = try recognizer.recognize(RecognizerTests.speech(text))
            guard !result.text.isEmpty else { continue }
            // The decoder still holds the utterance: its lattice built and searched in a forked copy, then here
            // (in that order, so that the child does not find the lattice already built).
            let search = try #require(decoder.startMarginSearch(limit: 30))
            let (there, timedOut) = search.wait(for: nil)
            let here = decoder.nbestMargin(limit: 30)
            #expect(!timedOut)
            #expect(there == here, "\(text) (heard \(result.text)): \(String(describing: there)) in the child, \(String(describing: here)) here")
            if here != nil { compared += 1 }
            // A search that is not given the time is stopped, and its child reaped.
            let hurried = try #require(decoder.startMarginSearch(limit: 30))
            #expect(hurried.wait(for: .zero) == (nil, true))
            #expect(Self.forkedCopiesAreGone(), "\(Self.forkedCopies())")
        }
        #expect(compared > 0, "no utterance had a lattice")
    }

    /// Whether the forked copies are gone within 5 s: they are killed at once and reaped in the background.
    static func forkedCopiesAreGone() -> Bool {
        for _ in 0..<500 {
            if forkedCopies().isEmpty { return true }
            usleep(10_000)
        }
        return false
    }

    /// Child processes of this one that are copies of it (a forked margin search still running or not reaped).
    static func forkedCopies() -> [Int] {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        let children = tasks.flatMap { task in
            ((try? String(contentsOfFile: "/proc/self/task/\(task)/children", encoding: .utf8)) ?? "").split(separator: " ").compactMap { Int($0) }
        }
        return children.filter { pid in
            // A zombie no longer shows its executable; one of ours would be a zombie only if nobody reaped it.
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            let state = stat.split(separator: ")").last?.split(separator: " ").first
            let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? ""
            return exe == me || (state == "Z" && stat.contains("(") && stat.contains(ProcessInfo.processInfo.processName.prefix(15)))
        }
    }

    @Test func theMarginMattersOnlyWithinItsSpanBelowTheThreshold() {
        // z without the margin = 1 + 100 × meanWord; the margin adds 0…log(1 + 26) / log 3 = 0…3.
        let model = ConfidenceModel(bias: 1, meanWordWeight: 100, nbestMarginWeight: 1 / log(3), nbestMarginCap: 26, threshold: 0.5)
        var f = ConfidenceFeatures(worstWord: 0, meanWord: 0, speechInFillers: 0, wordCount: 2, speechFrames: 80)
        f.nbestMargin = 1000   // ignored by marginCanChange, capped at 26 by z
        #expect(!model.marginCanChange(f))   // z0 = 1: accepted anyway
        #expect(abs(model.z(f) - 4) < 1e-9)
        f.meanWord = -0.02     // z0 = −1: a margin of 2 or more would accept
        #expect(model.marginCanChange(f))
        f.meanWord = -0.0399   // z0 = −2.99
        #expect(model.marginCanChange(f))
        f.meanWord = -0.0401   // z0 = −3.01: even the capped margin cannot reach 0
        #expect(!model.marginCanChange(f))
        #expect(model.confidence(f) < 0.5)
        #expect(!ConfidenceModel(bias: -5, meanWordWeight: 100).marginCanChange(f))   // no margin weight
    }

    /// Asleep, a command needs 0.8, and that floor is the threshold the margin is weighed against: a command the
    /// model accepts awake without its rivals (0.62) is, asleep, one whose margin decides, and a wide enough margin
    /// lifts it over the floor.
    @Test func asleepTheFloorIsTheThresholdTheMarginIsWeighedAgainst() {
        // z without the margin = 0.5 (confidence 0.62); the margin adds 0…log(1 + 26) / log 3 = 0…3.
        let model = ConfidenceModel(bias: 0.5, nbestMarginWeight: 1 / log(3), nbestMarginCap: 26, threshold: 0.5)
        var f = ConfidenceFeatures(worstWord: 0, meanWord: 0, speechInFillers: 0, wordCount: 2, speechFrames: 80)
        let awake = ListeningState.awake.deciding(model), asleep = ListeningState.asleep.deciding(model)
        #expect(awake.threshold == 0.5 && asleep.threshold == 0.8)
        #expect(!awake.marginCanChange(f), "awake, it is accepted whatever the rivals")
        #expect(asleep.marginCanChange(f), "asleep, the margin decides")
        #expect(asleep.confidence(f) < asleep.threshold, "no rival margin: refused asleep")
        f.nbestMargin = 2      // z = 0.5 + 1 = 1.5: confidence 0.82
        #expect(asleep.confidence(f) >= asleep.threshold, "a clear margin lifts it over the floor")
        // A model with a higher threshold of its own keeps it.
        var strict = model
        strict.threshold = 0.9
        #expect(ListeningState.asleep.deciding(strict).threshold == 0.9)
    }

    @Test func speechTheEverydayLoopFitsBetterLowersTheConfidence() {
        let model = ConfidenceModel(bias: 1, everydayMarginWeight: 1000)
        var f = ConfidenceFeatures(worstWord: 0, meanWord: 0, speechInFillers: 0, wordCount: 1, speechFrames: 50)
        f.everydayMargin = 0.001    // the grammar path fits better: z = 2
        #expect(abs(model.z(f) - 2) < 1e-12)
        f.everydayMargin = -0.002   // the everyday loop fits better: z = −1, rejected
        #expect(abs(model.z(f) + 1) < 1e-12)
        #expect(model.confidence(f) < model.threshold)
    }

    @Test func theEverydayEvidenceAddsUpOverTheSpeech() {
        // The same per-frame lead of the everyday loop weighs more over a long sentence than over one word.
        let model = ConfidenceModel(bias: 1, everydayEvidenceWeight: 20)
        var short = ConfidenceFeatures(worstWord: 0, meanWord: 0, speechInFillers: 0, wordCount: 1, speechFrames: 40)
        short.everydayMargin = -0.001
        var long = short
        long.speechFrames = 200
        #expect(abs(short.everydayEvidence + 0.04) < 1e-12)
        #expect(abs(model.z(short) - 0.2) < 1e-9)     // 1 + 20 × (−0.04): accepted
        #expect(abs(model.z(long) + 3) < 1e-9)        // 1 + 20 × (−0.2): rejected
        #expect(model.confidence(short) >= model.threshold)
        #expect(model.confidence(long) < model.threshold)
    }

    @Test func confidenceIsTheLogisticOfTheWeightedFeatures() {
        // The N-best margin enters as log(1 + margin).
        let model = ConfidenceModel(bias: 1, meanWordWeight: 100, nbestMarginWeight: 1 / log(3), threshold: 0.5)
        var f = ConfidenceFeatures(worstWord: -0.01, meanWord: -0.02, speechInFillers: 0, wordCount: 2, speechFrames: 80)
        f.nbestMargin = 2
        // z = 1 + 100 × (−0.02) + log(1 + 2) / log(3) = 0
        #expect(abs(model.z(f)) < 1e-12)
        #expect(abs(model.confidence(f) - 0.5) < 1e-12)
        f.nbestMargin = 26   // z = −1 + log 27 / log 3 = 2
        #expect(abs(model.confidence(f) - 1 / (1 + exp(-2))) < 1e-12)
        f.nbestMargin = -5   // a negative margin counts as none: z = −1
        #expect(abs(model.confidence(f) - 1 / (1 + exp(1))) < 1e-12)
    }
}
