import Foundation
import Speech
import Testing

/// espeak-ng speech through the real recognizer: a small slice of the benchmark corpus.
@Suite("Command recognizer on espeak-ng speech", .serialized)
struct RecognizerTests {
    static let places = ["Stockmann", "Kauppatori", "Ateneum", "Lasipalatsi", "Fazer Café", "Mannerheimintie", "Kaivopiha", "Sokos"]

    /// One recognizer for the suite, like the one long-lived decoder of live input.
    nonisolated(unsafe) static let recognizer: VoiceRecognizer = makeRecognizer()

    /// A recognizer as the program makes one: the shipped grammar and Models/extra.dict, with ``places``.
    static func makeRecognizer() -> VoiceRecognizer {
        let extra = try! String(contentsOfFile: ShippedGrammar.directory + "/../Models/extra.dict", encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains(" ") }
            .map { line -> (word: String, phones: String) in
                let p = line.split(separator: " ", maxSplits: 1)
                return (String(p[0]), String(p[1]))
            }
        let r = try! VoiceRecognizer(grammar: ShippedGrammar.load(), extraWords: extra, configuration: configuration())
        try! r.setPhrases(places.map(SlotPhrase.init(name:)), for: "places")
        return r
    }

    /// The recognizer's configuration as the program passes it: RNNoise where scripts/setup put it (the Makefile
    /// sets `SOUNDSCAPE_DATA`).
    static func configuration() -> VoiceRecognizer.Configuration {
        VoiceRecognizer.Configuration(neuralDenoiser: ProcessInfo.processInfo.environment["SOUNDSCAPE_DATA"].map { $0 + "/rnnoise/librnnoise.so" })
    }

    /// 16 kHz speech with 0.3 s padding and a faint noise floor, from the espeak-ng and sox programs.
    static func speech(_ text: String, voice: String = "en-us", rate: Int = 165) throws -> [Int16] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("speechtests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw = dir.appendingPathComponent("raw.wav").path, out = dir.appendingPathComponent("out.raw").path
        try shell("espeak-ng", "-v", voice, "-s", "\(rate)", "-w", raw, text)
        try shell("sox", raw, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed", "-t", "raw", out, "gain", "-1", "pad", "0.3", "0.3")
        let data = try Data(contentsOf: URL(fileURLWithPath: out))
        var seed: UInt64 = 42
        return data.withUnsafeBytes { raw in
            raw.bindMemory(to: Int16.self).map { s in
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                let noise = Int32(Int64(seed >> 33) % 199) - 99   // about −50 dBFS
                return Int16(clamping: Int32(s) + noise)
            }
        }
    }

    static func shell(_ args: String...) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw RecognitionError(message: "\(args.joined(separator: " ")) failed") }
    }

    /// A new recognizer decodes its first utterance twice, so that it decides with decoders adapted to the
    /// audio: the same as a recognizer that heard the utterance once already and then hears it again.
    @Test func theFirstUtteranceIsDecidedByDecodersAdaptedToIt() throws {
        let samples = try Self.speech("where am i", voice: "en-gb-scotland", rate: 170)
        func fresh(redecoding: Bool) throws -> VoiceRecognizer {
            var configuration = Self.configuration()
            configuration.redecodesColdStart = redecoding
            return try VoiceRecognizer(grammar: ShippedGrammar.load(), configuration: configuration)
        }
        let redecoding = try fresh(redecoding: true)
        #expect(redecoding.decodesFirstUtteranceTwice)
        let twice = try redecoding.recognize(samples)
        #expect(!redecoding.decodesFirstUtteranceTwice, "only the first utterance")
        // The bench's switch (first command after a restart) gives the same decision as the configuration.
        let switched = try fresh(redecoding: false)
        #expect(!switched.decodesFirstUtteranceTwice)
        switched.decodesFirstUtteranceTwice = true
        let switchedResult = try switched.recognize(samples)
        #expect(switchedResult.text == twice.text && switchedResult.features == twice.features)
        let once = try fresh(redecoding: false)
        let cold = try once.recognize(samples)
        let warm = try once.recognize(samples)
        #expect(twice.text == warm.text && twice.features == warm.features, "twice: \(twice.text) \(twice.features); warm: \(warm.text) \(warm.features)")
        // The cold pass is not the same decision: the stock cepstral mean does not fit this audio.
        #expect(cold.features != warm.features)
        #expect(twice.command?.intent == "where_am_i", "heard \(twice.text), \(twice.rejection ?? "accepted")")
        #expect(abs(twice.duration - Double(samples.count) / 16_000) < 1e-9)
    }

    @Test func aCepstralMeanKeptFromAnEarlierRunStartsTheDecodersWarm() throws {
        let first = try Self.speech("where am i", voice: "en-gb-scotland", rate: 170)
        let second = try Self.speech("mute the beacon", voice: "en-gb-scotland", rate: 170)
        var configuration = VoiceRecognizer.Configuration()
        configuration.noiseSuppression = nil   // its noise estimate would differ between the two recognizers
        configuration.neuralDenoiser = nil     // and so would RNNoise's state
        let earlier = try VoiceRecognizer(grammar: ShippedGrammar.load(), configuration: configuration)
        _ = try earlier.recognize(first)
        let kept = earlier.cepstralMean
        #expect(kept.count == 13)
        let next = try VoiceRecognizer(grammar: ShippedGrammar.load(), configuration: configuration)
        #expect(next.cepstralMean != kept, "a new recognizer starts at the model's stock mean")
        #expect(next.decodesFirstUtteranceTwice)
        try next.adapt(cepstralMean: kept)
        #expect(!next.decodesFirstUtteranceTwice, "adapted, and no RNNoise to warm up")
        #expect(next.cepstralMean == kept)
        // Its first utterance is decoded once, about as the earlier recognizer decodes its next one (the
        // front end's noise estimate is not carried over), and far from how a cold decoder hears it.
        let continued = try earlier.recognize(second)
        let started = try next.recognize(second)
        configuration.redecodesColdStart = false
        let cold = try VoiceRecognizer(grammar: ShippedGrammar.load(), configuration: configuration).recognize(second)
        // (Cold, the speech is spread over more frames with much of it in fillers, and its words fit worse.)
        func distance(_ a: ConfidenceFeatures) -> Double { abs(a.meanWord - continued.features.meanWord) }
        #expect(started.text == continued.text)
        #expect(started.features.speechFrames == continued.features.speechFrames && cold.features.speechFrames != continued.features.speechFrames,
                "speech frames: started \(started.features.speechFrames), continued \(continued.features.speechFrames), cold \(cold.features.speechFrames)")
        #expect(distance(started.features) < distance(cold.features) / 3,
                "started: \(started.features); continued: \(continued.features); cold: \(cold.features)")
        #expect(started.command?.intent == "mute_beacon", "heard \(started.text), \(started.rejection ?? "accepted")")
        #expect(throws: RecognitionError.self) { try next.adapt(cepstralMean: [40, 1]) }
        #expect(throws: RecognitionError.self) { try next.adapt(cepstralMean: [Float](repeating: .nan, count: 13)) }
    }

    @Test func commandsWithHelsinkiPlaceNamesAreRecognizedExactly() throws {
        let cases: [(String, String, [String: String])] = [
            ("where am i", "where_am_i", [:]),
            ("set beacon on Stockmann", "set_beacon", ["place": "Stockmann"]),
            ("take me to Kauppatori", "take_me_to", ["place": "Kauppatori"]),
            ("what's around me", "around_me", [:]),
            ("mute the beacon", "mute_beacon", [:]),
            ("guide me to Lasipalatsi", "set_beacon", ["place": "Lasipalatsi"]),
            ("beacon angle fifteen degrees", "beacon_angle", ["number": "15"]),
            ("undo", "cancel", [:]),
            ("what can i say", "help", [:]),
            ("i am facing north east", "facing", ["direction": "northeast"]),
        ]
        var correct = 0
        for (text, intent, slots) in cases {
            let result = try Self.recognizer.recognize(Self.speech(text))
            let ok = result.command?.intent == intent && result.command?.slots == slots
            if ok { correct += 1 } else { print("recognizer: \"\(text)\" → \(result.text) (\(result.rejection ?? "accepted"))") }
        }
        #expect(correct >= 9, "\(correct)/\(cases.count) commands exact")
    }

    /// A lone "help" with CMUdict's pronunciation alone was mostly heard as "undo" (or "cancel"): espeak-ng's
    /// dark L sounds like a vowel. Models/extra.dict gives it a second form with the L vocalized.
    @Test(arguments: ["en-us", "en+m3", "en-us+f4"])
    func aLoneHelpIsHeardAsHelpNotUndo(voice: String) throws {
        let result = try Self.recognizer.recognize(Self.speech("help", voice: voice))
        #expect(result.command?.intent == "help", "heard \(result.text) (\(result.rejection ?? "accepted"))")
    }

    /// Accents CMUdict leaves out: the Scottish "turn" (its R said, after a vowel like "but"; CMUdict has only the
    /// American R-coloured vowel) and the British "faster" (the vowel of "father"). Without the forms in
    /// Models/extra.dict these were heard as "set a beacon on school", "what can i say" or "what was that".
    @Test(arguments: [("turn callouts on", "en-gb-scotland", 170), ("turn callouts off", "en-gb-scotland", 170),
                      ("turn callouts on", "en-us-nyc", 185), ("talk faster", "en-gb-scotland", 170),
                      ("talk faster", "en+m3", 175)])
    func accentsTheDictionaryLacksAreHeard(text: String, voice: String, rate: Int) throws {
        // A recognizer of its own that has heard this speaker before (two commands), as live input has: its
        // cepstral mean is the voice's, whatever the other tests said to the suite's recognizer.
        let recognizer = Self.makeRecognizer()
        for warmUp in ["where am i", "what's ahead"] { _ = try recognizer.recognize(Self.speech(warmUp, voice: voice, rate: rate)) }
        let result = try recognizer.recognize(Self.speech(text, voice: voice, rate: rate))
        // The words heard: whether a command is then accepted is the rejection model's business (ConfidenceTests).
        #expect(result.text == text, "heard \(result.text) (\(result.rejection ?? "accepted"), \(result.confidence))")
    }

    /// PocketSphinx alone refuses most ordinary sentences by its own confidence; what it takes, the second
    /// recognizer's transcript, far from every command, refuses (the decision of both, as the program makes it).
    @Test func outOfGrammarSpeechMostlyDoesNotFireCommands() throws {
        let sentences = ["the weather is nice today", "i would like a cup of coffee", "my phone battery is almost empty",
                         "please close the door", "the train is late again", "i forgot my keys"]
        let transcriber = try WhisperTranscriberTests.shared.get()
        let dictionary = try #require(SnapperFixture.base)
        let both = SecondOpinion(transcriber: transcriber, dictionary: dictionary)
        both.prepare(from: Self.recognizer)
        var fired: [String] = [], firedWithBoth: [String] = []
        for s in sentences {
            let samples = try Self.speech(s)
            let result = try Self.recognizer.recognize(samples)
            guard let c = result.command else { continue }
            fired.append("\(s) → \(c.words)")
            let report = both.decide(samples: samples, first: result, state: .awake)
            if let taken = report.decision.command { firedWithBoth.append("\(s) → \(taken.words) (\(report.decision.reason))") }
        }
        #expect(fired.count <= 2, "PocketSphinx alone: \(fired)")
        #expect(firedWithBoth.isEmpty, "with both recognizers: \(firedWithBoth)")
    }

    @Test func unknownNamesGetPronunciationsAndAreReportedAsTheirName() throws {
        #expect(Self.recognizer.generatedPronunciations["kauppatori"]?.isEmpty == false)
        #expect(Self.recognizer.generatedPronunciations["lasipalatsi"]?.isEmpty == false)
        let result = try Self.recognizer.recognize(Self.speech("set beacon on Fazer Café"))
        #expect(result.command?.slots["place"] == "Fazer Café", "heard \(result.text)")
    }
}
