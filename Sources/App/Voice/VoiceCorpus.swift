import Audio
import Foundation
import Speech

/// A synthetic evaluation corpus for the command recognizer: every grammar phrasing spoken by espeak-ng
/// voices at several rates, optionally mixed with street noise at a set signal-to-noise ratio, and
/// out-of-grammar sentences that must be rejected. `soundscape-bench` measures on the full corpus,
/// the tests on a small slice.
public struct VoiceCorpus {
    public struct Variant: Sendable, Hashable {
        public var voice: String
        public var rate: Int
        public init(_ voice: String, _ rate: Int) { self.voice = voice; self.rate = rate }
        public var description: String { "\(voice)@\(rate)" }
    }

    public struct Utterance: Sendable {
        public var text: String
        /// The command it should give; nil for out-of-grammar speech and noise.
        public var expected: RecognizedCommand?
        public var variant: Variant
        /// 16 kHz mono, with 0.3 s of padding each side and a faint noise floor.
        public var samples: [Int16]
    }

    /// Six voice and rate variants (US, British and Scottish English; male and female; slow to fast).
    public static let variants: [Variant] = [
        Variant("en-us", 160), Variant("en-us+f4", 200), Variant("en+m3", 175),
        Variant("en+f2", 145), Variant("en-us-nyc", 185), Variant("en-gb-scotland", 170),
    ]

    /// The tuning split, on which PocketSphinx's confidence threshold (``AcousticConfidence/standard``) was chosen:
    /// voices 0, 2, 4 of ``variants`` and the even-numbered ``outOfGrammar`` sentences. Figures are reported on the
    /// rest (the held-out split): other voices and other sentences than the threshold was chosen on.
    public static func isTuning(variant index: Int) -> Bool { index % 2 == 0 }
    public static func isTuning(outOfGrammar index: Int) -> Bool { index % 2 == 0 }

    /// Real place names of central Helsinki (OpenStreetMap) used in the slots.
    public static let helsinkiNames = [
        "Stockmann", "Kauppatori", "Ateneum", "Lasipalatsi", "Forum", "Kaivopiha", "Rautatientori", "Sokos",
        "Keskuskatu", "Kaivokatu", "Mikonkatu", "Marimekko", "Vanha ylioppilastalo", "Hotelli Seurahuone",
        "Suomalainen kirjakauppa", "Fazer Café", "Yrjönkadun uimahalli", "Kalevankatu", "Pääposti",
        "Kluuvin Apteekki", "Espresso House", "Burger King", "Mannerheimintie", "Aleksanterinkatu",
        "Esplanadi", "Senaatintori", "Kiasma", "Oodi", "Kamppi", "Havis Amanda",
    ]
    public static let markerNames = ["Front Door", "Bench by the Fountain", "Bus Stop Home"]
    public static let routeNames = ["Morning Walk", "Way to Work"]

    /// Sentences that are not commands (everyday speech, near misses, questions); at least 60.
    public static let outOfGrammar = [
        "the weather is nice today", "where is the bus stop", "i would like a cup of coffee",
        "can you tell me the time", "my phone battery is almost empty", "let's meet at the library tomorrow",
        "how much does this cost", "i need to buy some bread", "please close the door", "the train is late again",
        "what a beautiful morning", "do you know where the toilet is", "i am going home now", "call my sister",
        "this street is very busy", "turn up the music", "i forgot my keys", "the shop closes at eight",
        "where did i park the car", "it is raining outside", "good morning everyone", "thank you very much",
        "i think we are lost", "the dog is barking", "how are you doing today", "set the table for dinner",
        "stop the bus please", "repeat after me", "what is the meaning of life", "remind me to call mom",
        "send a message to john", "play some jazz", "is this seat taken", "the meeting starts at ten",
        "i like walking in the park", "my friend lives near the station", "open the window", "it's too cold",
        "how far is the airport", "which way is the harbour", "i'll have the soup", "the elevator is broken",
        "can you help me cross the street", "what day is it", "the children are playing outside",
        "we should take a taxi", "my shoes are wet", "the concert was amazing", "i lost my wallet",
        "there is a car coming", "turn left at the corner", "the coffee is too hot", "read me the news",
        "where can i buy a ticket", "my appointment is at noon", "the tram is coming", "it smells like rain",
        "i need a new umbrella", "who is speaking", "the bakery sells fresh bread", "please speak louder",
        "wait for me here", "how do i get to the museum", "the light is green", "excuse me sir",
        "have a nice weekend", "the printer is out of paper", "my name is anna", "i have a question",
        "could you say that more slowly",
        // Then a hundred more, so that fitting and measuring rejection rest on more than 35
        // sentences each; they alternate between the splits like the first seventy.
        "what time does the pharmacy open", "i can't find my glasses", "the bus was full this morning",
        "let me think about it", "we are almost there", "is it going to snow tomorrow", "i don't understand the question",
        "the soup needs more salt", "how old is your brother", "my train leaves at six", "this bag is too heavy",
        "can we sit down for a moment", "the park is closed on mondays", "i heard a loud noise", "where are my gloves",
        "she is waiting at the entrance", "the street lights are off", "did you lock the door", "my coat is in the car",
        "we need more milk", "the library has a new book", "how long does the walk take", "the river is frozen",
        "i'm looking for a present", "the market is very crowded", "please hold my hand", "that was a long day",
        "the cafe has good cake", "what is your favourite colour", "my sister lives in tampere", "turn the radio off",
        "let's go to the beach", "the wind is very strong", "i have a headache", "do you want some tea",
        "the meeting was cancelled", "where does this road go", "we missed the last tram", "the ice is slippery",
        "i can hear birds singing", "what did the doctor say", "my feet are tired", "the shop has a new owner",
        "it is almost midnight", "can i pay by card", "the stairs are steep here", "how many people are coming",
        "the building is being repaired", "i left my phone at home", "we will be late for dinner",
        "the music is too loud", "how was your holiday", "the taxi is waiting outside", "there is a dog on the path",
        "i want to learn finnish", "the museum is free today", "my bag is open", "the ferry leaves every hour",
        "where is the nearest cash machine", "we walked for two hours", "the flowers smell lovely",
        "can you carry this for me", "the sun is very bright", "i need to charge my phone", "the pavement is wet",
        "who wants ice cream", "the cinema is around the corner", "let's take the long way", "my hands are cold",
        "the post office is closed", "is there a toilet nearby", "i met an old friend today", "the bread is fresh",
        "we should ask someone", "the cyclist almost hit me", "i like this song", "where is the exit",
        "the door is stuck", "how do you spell that", "the queue is very long", "it is quiet here",
        "my dog needs a walk", "the station has a new lift", "i'll call you later", "the traffic is terrible",
        "we can meet after work", "what are you reading", "there are roadworks ahead", "the bench is wet",
        "i need a coffee first", "the church bells are ringing", "did you see that", "the window is open",
        "how much is a single ticket", "the children are singing", "it is starting to rain", "my watch has stopped",
        "we are going to the sauna", "the lake is beautiful", "the paint is still wet",
        // Last, short remarks, which a walker says to people around far more often than long
        // sentences, and which carry the least evidence against the grammar.
        "thank you", "okay", "yes", "no", "hello", "excuse me", "sorry", "no thanks", "good morning", "wait",
        "really", "hi there", "goodbye", "maybe", "of course", "all right", "see you", "cheers", "nice one", "oh no",
    ]

    public let grammar: CommandGrammar
    public let synthesizer: EspeakSynthesizer
    private let toSixteen: Resampler

    public init(grammar: CommandGrammar, synthesizer: EspeakSynthesizer) {
        var g = grammar
        g.setPhrases(Self.helsinkiNames.map(SlotPhrase.init(name:)), for: "places")
        g.setPhrases(Self.markerNames.map(SlotPhrase.init(name:)), for: "markers")
        g.setPhrases(Self.routeNames.map(SlotPhrase.init(name:)), for: "routes")
        self.grammar = g
        self.synthesizer = synthesizer
        toSixteen = Resampler(from: synthesizer.sampleRate, to: 16_000)
    }

    /// Every phrasing as a sentence with its expected command; each call with another seed picks other
    /// slot values and optional words. The place names are the real names the text was written with.
    public func phrasings(seed: UInt64) -> [(words: [String], text: String, expected: RecognizedCommand)] {
        var sampler = GrammarSampler(grammar: grammar, seed: seed)
        let parser = IntentParser(grammar: grammar)
        var out: [(words: [String], text: String, expected: RecognizedCommand)] = []
        var byWords: [[String]: String] = [:]
        for p in grammar.phrases.values.joined() { byWords[p.words] = p.value }
        for words in sampler.phrasings() {
            guard let expected = parser.parse(words: words, openSlots: false) else { continue }
            // Speak names as they are written ("Fazer Café"), the rest as the grammar's words.
            var text = words.joined(separator: " ")
            for (slot, value) in expected.slots where byWords.values.contains(value) {
                let spoken = SlotPhrase.spokenWords(value).joined(separator: " ")
                if slot == "place" || slot == "name" || slot == "new_name" { text = text.replacingOccurrences(of: spoken, with: value) }
            }
            out.append((words, text, expected))
        }
        return out
    }

    /// espeak-ng speech of `text` at 16 kHz as floats (−1…1), without padding.
    public func speech(_ text: String, variant: Variant) throws -> [Float] {
        let pcm = try synthesizer.synthesize(text, voice: VoiceSettings(voice: variant.voice, rate: variant.rate))
        return toSixteen.process(pcm.map { Float($0) / 32768 * 0.9 })
    }

    /// Pads with 0.3 s each side, mixes in `noise` (when given) at `snr` dB relative to the speech, adds a
    /// −50 dBFS noise floor (exact digital silence derails PocketSphinx) and converts to 16-bit.
    public static func finish(_ speech: [Float], noise: [Float]?, snr: Double?, rng: inout SplitMix64) -> [Int16] {
        let pad = 4_800
        var out = [Float](repeating: 0, count: pad) + speech + [Float](repeating: 0, count: pad)
        if let noise, let snr, !noise.isEmpty {
            let speechPower = speech.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(1, speech.count))
            let offset = Int(rng.next() % UInt64(max(1, noise.count - out.count)))
            var segment = [Float](repeating: 0, count: out.count)
            for i in 0..<out.count { segment[i] = noise[(offset + i) % noise.count] }
            let noisePower = segment.reduce(0) { $0 + Double($1) * Double($1) } / Double(segment.count)
            let gain = noisePower > 0 ? Float((speechPower / noisePower / pow(10, snr / 10)).squareRoot()) : 0
            for i in 0..<out.count { out[i] += gain * segment[i] }
        }
        for i in 0..<out.count { out[i] += Float(rng.gaussian() * 0.003) }
        return out.map { Int16(max(-32768, min(32767, ($0 * 32767).rounded()))) }
    }

    /// Street noise at 16 kHz mono: the city ambience when its file is there, else pink noise.
    public static func streetNoise(file: String?, seconds: Double = 60, rng: inout SplitMix64) -> (samples: [Float], name: String) {
        if let file, FileManager.default.fileExists(atPath: file), let pcm = decodeWithSox(file) {
            return (pcm, "city ambience")
        }
        // Pink noise (Paul Kellet's filter) when the recording is missing.
        var b = [Double](repeating: 0, count: 7)
        var out = [Float](repeating: 0, count: Int(seconds * 16_000))
        for i in out.indices {
            let white = rng.gaussian() * 0.1
            b[0] = 0.99886 * b[0] + white * 0.0555179; b[1] = 0.99332 * b[1] + white * 0.0750759
            b[2] = 0.96900 * b[2] + white * 0.1538520; b[3] = 0.86650 * b[3] + white * 0.3104856
            b[4] = 0.55000 * b[4] + white * 0.5329522; b[5] = -0.7616 * b[5] - white * 0.0168980
            out[i] = Float(b[0] + b[1] + b[2] + b[3] + b[4] + b[5] + b[6] + white * 0.5362)
            b[6] = white * 0.115926
        }
        return (out, "pink noise")
    }

    /// Any audio file sox reads (the city ambience is Ogg Vorbis) as 16 kHz mono floats.
    static func decodeWithSox(_ path: String) -> [Float]? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sox", path, "-t", "raw", "-r", "16000", "-c", "1", "-b", "16", "-e", "signed", "-"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, data.count > 32_000 else { return nil }
        return data.withUnsafeBytes { raw in raw.bindMemory(to: Int16.self).map { Float(Int16(littleEndian: $0)) / 32768 } }
    }
}

/// A small deterministic random generator (SplitMix64) for repeatable corpora.
public struct SplitMix64: Sendable {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    public mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
    public mutating func gaussian() -> Double {
        let u1 = max(uniform(), 1e-12), u2 = uniform()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
