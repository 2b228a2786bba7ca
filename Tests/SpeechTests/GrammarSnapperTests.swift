import Foundation
import Speech
import Testing

/// The shipped grammar with Helsinki places, markers and routes, and the speech model's dictionary with espeak-ng's
/// pronunciations of the names, as the recognizer has them.
enum SnapperFixture {
    static let places = ["Kauppatori", "Kasarmitori", "Senaatintori", "Esplanadinpuisto", "Stockmann", "Ateneum",
                         "Rautatientori", "Tuomiokirkko", "Vanha kirkkopuisto", "Kaivopuisto", "Kamppi", "Aleksanterinkatu",
                         "Café Engel", "Hakaniemen kauppahalli", "Vanha kauppahalli", "Uspenskin katedraali", "Alko 24"]
    static let markers = ["home", "my dentist"]
    static let routes = ["morning walk"]

    static let dictionaryPath = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"
    /// Loaded once for all tests (it takes a fraction of a second).
    static let base: PhoneDictionary? = try? PhoneDictionary(contentsOf: dictionaryPath)

    static func snapper(places: [String] = places) throws -> GrammarSnapper {
        var grammar = try ShippedGrammar.load()
        let phrases = places.map(SlotPhrase.init(name:))
        grammar.setPhrases(phrases, for: "places")
        grammar.setPhrases(markers.map(SlotPhrase.init(name:)), for: "markers")
        grammar.setPhrases(routes.map(SlotPhrase.init(name:)), for: "routes")
        let base = try #require(base, "no pronunciation dictionary at \(dictionaryPath)")
        let unknown = Set(grammar.allWords).filter { base.pronunciations(of: $0).isEmpty }
        let made = EspeakPronouncer().pronunciations(for: Array(unknown))
        try #require(!made.isEmpty, "espeak-ng made no pronunciations")
        return GrammarSnapper(grammar: grammar, dictionary: base.adding(made))
    }
}

@Suite("Snapping a free transcript onto the grammar")
struct GrammarSnapperTests {
    @Test func anExactCommandStaysWhereItIsAtDistanceZero() throws {
        let snapper = try SnapperFixture.snapper()
        let snap = snapper.snap("Callouts off.")
        #expect(snap.command?.intent == "callouts_off")
        #expect(snap.sentence == ["callouts", "off"])
        #expect(snap.distance == 0)
        #expect(snap.wordDistance == 0)
    }

    @Test func aNearMissMovesToTheCommandItSoundsLike() throws {
        let snapper = try SnapperFixture.snapper()
        let off = snapper.snap("Callouts of")
        #expect(off.command?.intent == "callouts_off", "\(off)")
        #expect(off.distance > 0 && off.distance < 0.2, "\(off)")
        let split = snapper.snap("call outs off")
        #expect(split.command?.intent == "callouts_off", "\(split)")
        // Fixed words must be written alike as well as sound alike: "the lights" sounds much like "callouts".
        let lights = snapper.snap("Turn on the lights.")
        #expect(lights.distance > off.distance + 0.2, "\(lights)")
        let mute = snapper.snap("Unmute the beacon, please.")
        #expect(mute.command?.intent == "unmute_beacon", "\(mute)")
    }

    @Test func aMisspelledFinnishNameFillsThePlaceSlot() throws {
        let snapper = try SnapperFixture.snapper()
        let snap = snapper.snap("Set the beacon on Kaupa Tori.")
        #expect(snap.command?.intent == "set_beacon", "\(snap)")
        #expect(snap.command?.slots["place"] == "Kauppatori", "\(snap)")
        let other = snapper.snap("take me to senate in tori")
        #expect(other.command?.intent == "take_me_to", "\(other)")
        #expect(other.command?.slots["place"] == "Senaatintori", "\(other)")
        let esplanade = snapper.snap("guide me to Esplanadi puisto")
        #expect(esplanade.command?.slots["place"] == "Esplanadinpuisto", "\(esplanade)")
    }

    @Test func numbersMarkersAndTwoSlotsInOneCommand() throws {
        let snapper = try SnapperFixture.snapper()
        let volume = snapper.snap("Beacon volume 50%.")
        #expect(volume.command?.intent == "beacon_volume", "\(volume)")
        #expect(volume.command?.slots["number"] == "50", "\(volume)")
        let rename = snapper.snap("Rename marker my dentist to work.")
        #expect(rename.command?.intent == "rename_marker", "\(rename)")
        #expect(rename.command?.slots["name"] == "my dentist", "\(rename)")
        #expect(rename.command?.slots["new_name"] == "work", "\(rename)")
        let route = snapper.snap("Start route morning walk")
        #expect(route.command?.slots["name"] == "morning walk", "\(route)")
    }

    @Test func aMadeUpMarkerNameComesFromTheTranscriptAsWritten() throws {
        let snapper = try SnapperFixture.snapper()
        let snap = snapper.snap("Mark this place as My Dentist.")
        #expect(snap.command?.intent == "save_marker", "\(snap)")
        #expect(snap.written["name"] == "My Dentist", "\(snap)")
        let first = FirstOpinion(text: "mark this place as my bench", command: nil, heard: snap.command, confidence: 0.4)
        let decision = RecognizerDecision.decide(first: first, second: snap)
        #expect(decision.command?.slots["text"] == "My Dentist", "\(decision)")
        // A command without a made-up name gets no free text.
        let beacon = snapper.snap("set beacon on Kauppatori")
        let taken = RecognizerDecision.decide(first: FirstOpinion(text: "set beacon on kauppatori", command: nil, heard: beacon.command,
                                                                  confidence: 0.4), second: beacon)
        #expect(taken.command?.intent == "set_beacon")
        #expect(taken.command?.slots["text"] == nil)
    }

    @Test func ordinarySpeechIsFarFromEveryCommand() throws {
        let snapper = try SnapperFixture.snapper()
        let exact = snapper.snap("what's around me")
        for sentence in ["What a lovely day it is today.", "Can you pass me the salt?", "I think the bus is late again."] {
            let snap = snapper.snap(sentence)
            #expect(snap.distance > 0.35, "\(sentence) → \(snap)")
            #expect(snap.distance > exact.distance)
        }
        #expect(snapper.snap("").sentence.isEmpty)
        #expect(snapper.snap("").distance == 1)
        let long = Array(repeating: "word", count: GrammarSnapper.longestTranscript + 1).joined(separator: " ")
        #expect(snapper.snap(long).distance == 1)
    }

    @Test func whileAsleepOnlyWakingUpIsNear() throws {
        var grammar = try ShippedGrammar.load()
        grammar = try #require(grammar.restricted(to: ListeningState.asleep.admits))
        let base = try #require(SnapperFixture.base)
        let snapper = GrammarSnapper(grammar: grammar, dictionary: base)
        #expect(snapper.snap("Wake up!").command?.intent == "wake")
        let other = snapper.snap("where am i")
        #expect(other.command == nil || other.command?.intent == "wake", "\(other)")
        #expect(other.distance > 0.35, "\(other)")
    }

    @Test func aSlotWithNoValuesDropsItsPhrasingsOnly() throws {
        var grammar = try ShippedGrammar.load()
        grammar.setPhrases([], for: "routes")
        let base = try #require(SnapperFixture.base)
        let snapper = GrammarSnapper(grammar: grammar, dictionary: base)
        let snap = snapper.snap("start route morning walk")
        #expect(snap.command?.intent != "start_route", "\(snap)")
        #expect(snapper.snap("stop route").command?.intent == "stop_route")
    }

    @Test func spelledPhonesReadAFinnishSpelling() {
        #expect(PhoneDictionary.spelledPhones("kauppatori") == ["K", "AA", "UW", "P", "AA", "T", "OW", "R", "IY"])
        #expect(PhoneDictionary.spelledPhones("Hakaniemi") == ["HH", "AA", "K", "AA", "N", "IY", "EH", "M", "IY"])
        #expect(PhoneDictionary.spelledPhones("xing") == ["K", "S", "IY", "NG"])
    }
}
