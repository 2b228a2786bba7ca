import Foundation
import Speech
import Testing

/// The shipped grammar folder.
enum ShippedGrammar {
    static var directory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Grammars").path
    }
    static func load() throws -> CommandGrammar { try CommandGrammar(directory: directory) }
}

@Suite("JSGF grammars with intent tags")
struct GrammarTests {
    @Test func theShippedGrammarsLoadAndCoverEveryIntent() throws {
        let grammar = try ShippedGrammar.load()
        #expect(grammar.files.count >= 9)
        #expect(grammar.dynamicSources == ["places", "markers", "routes", "kinds", "kinds_singular", "landmarks", "text"])
        var tags = Set<String>()
        func collect(_ e: GrammarExpression) {
            switch e {
            case .tagged(let x, let t): tags.insert(t); collect(x)
            case .sequence(let items): items.forEach(collect)
            case .alternatives(let alts): alts.forEach { collect($0.expression) }
            case .optional(let x), .repetition(let x, _): collect(x)
            default: break
            }
        }
        for name in grammar.commandRules { collect(grammar.rules[name]!.expression) }
        for intent in Intent.allCases {
            #expect(tags.contains(intent.rawValue), "no phrasing for \(intent.rawValue)")
        }
    }

    @Test func aSyntaxErrorNamesFileLineAndColumn() {
        let text = "#JSGF V1.0;\ngrammar x;\npublic <a> = where am i {where_am_i}\n    | around me {around_me};\n<b> = (one | two;\n"
        do {
            _ = try CommandGrammar(sources: [("x.gram", text)])
            Issue.record("a grammar with an unclosed group must not load")
        } catch let error as GrammarError {
            #expect(error.location.file == "x.gram")
            #expect(error.location.line == 5)
            #expect(error.description.hasPrefix("x.gram:5:"), "\(error)")
            #expect(error.message.contains("')'"))
        } catch { Issue.record("unexpected \(error)") }
    }

    @Test func undefinedRulesUnknownIntentsAndUntaggedPhrasingsAreReported() {
        func failure(_ body: String) -> GrammarError? {
            do { _ = try CommandGrammar(sources: [("t.gram", "#JSGF V1.0;\ngrammar t;\n" + body)]); return nil } catch let e as GrammarError { return e } catch { return nil }
        }
        let undefined = failure("public <a> =\n  go to <nowhere> {take_me_to};\n")
        #expect(undefined?.location.line == 4)
        #expect(undefined?.message.contains("<nowhere>") == true)
        let unknown = failure("public <a> = fly away {fly};\n")
        #expect(unknown?.location.line == 3)
        #expect(unknown?.message.contains("unknown intent {fly}") == true)
        let untagged = failure("public <a> = where am i {where_am_i} | around me;\n")
        #expect(untagged?.message.contains("no {intent} tag") == true)
        let duplicate = failure("public <a> = stop {stop};\n<a> = x;\n")
        #expect(duplicate?.location.line == 4)
        let recursive = failure("public <a> = stop <b> {stop};\n<b> = again <b>;\n")
        #expect(recursive?.message.contains("recursive") == true)
    }

    @Test func theDecoderGrammarHasNoTagsAndOnePublicRule() throws {
        var grammar = try ShippedGrammar.load()
        grammar.setPhrases([SlotPhrase(name: "Stockmann"), SlotPhrase(name: "Café Engel")], for: "places")
        let jsgf = grammar.decoderJSGF()
        #expect(!jsgf.contains("{"))
        #expect(jsgf.components(separatedBy: "public ").count == 2)
        #expect(jsgf.contains("stockmann | cafe engel"))
        #expect(!jsgf.contains("<marker_name_>"))
        #expect(!jsgf.contains("VOID"))
    }

    @Test func commandsEndingInTheSameSlotAfterTheSameWordShareOneCopyOfIt() throws {
        var grammar = try ShippedGrammar.load()
        grammar.setPhrases(["Stockmann", "Kiasma", "Café Engel"].map(SlotPhrase.init(name:)), for: "places")
        grammar.setPhrases(["Front Door"].map(SlotPhrase.init(name:)), for: "markers")
        let shared = grammar.decoderJSGF(), asWritten = grammar.decoderJSGF(sharingEndings: false)
        let top = try #require(shared.split(separator: "\n").first { $0.hasPrefix("public ") })
        // The commands that end in a place: one copy after "on", "at", "to", "marker" and "preview" each, and one after
        // "search" or "find" (find.gram).
        #expect(top.components(separatedBy: "<place_>").count == 7, "\(top)")
        #expect(top.contains("(search [for] | find) <place_>"), "\(top)")
        #expect(top.contains("(set beacon on | set a beacon on) <place_>"), "\(top)")
        #expect(top.contains("(guide me to | take me to | walk me to | navigate to) <place_>"), "\(top)")
        #expect(top.contains("(set beacon at | preview at | start preview at) <place_>"), "\(top)")
        #expect(top.contains("| set beacon on marker <place_> |") && top.contains("| preview <place_> |"), "\(top)")
        // Rules that only name another count as that one: <name_label> and <new_name> are <marker_label>.
        #expect(top.contains("(save marker as | mark this place as | save this place as | save the beacon as) <marker_label_>"), "\(top)")
        #expect(top.contains("rename marker <name_marker_> to <marker_label_>"), "\(top)")
        #expect(asWritten.contains("public <soundscape_command> = <beacon_> | <exploration_> |"), "\(asWritten)")
        #expect(!top.contains("/"), "no weights were written, so none may appear")
    }

    /// The grammar with shared endings is a smaller graph for the same sentences with the same scores: the same
    /// audio through two decoders, one per form, gives the same words and the same path score, in and out of
    /// the grammar. (Sharing a slot after different words, "on" and "to", changed the scores of some commands:
    /// see ``CommandGrammar/sharedEndings(of:in:)``.)
    @Test func sharedEndingsChangeNeitherTheWordsNorTheScores() throws {
        func decoder(sharingEndings: Bool) throws -> PocketSphinxDecoder {
            let recognizer = try VoiceRecognizer(grammar: ShippedGrammar.load())
            try recognizer.setPhrases(["Stockmann", "Kiasma", "Kauppatori", "Café Engel"].map(SlotPhrase.init(name:)), for: "places")
            try recognizer.setPhrases(["Front Door"].map(SlotPhrase.init(name:)), for: "markers")
            try recognizer.decoder.useGrammar(jsgf: recognizer.grammar.decoderJSGF(sharingEndings: sharingEndings), name: "compared")
            return recognizer.decoder
        }
        let shared = try decoder(sharingEndings: true), asWritten = try decoder(sharingEndings: false)
        var sameScores = 0
        for text in ["set beacon on kiasma", "take me to stockmann", "save marker as home", "rename marker front door to work",
                     "beacon volume fifty percent", "where am i", "the weather is lovely today"] {
            let audio = try RecognizerTests.speech(text)
            let a = try shared.decode(audio), b = try asWritten.decode(audio)
            #expect(a.text == b.text, "\(text): \(a.text) against \(b.text)")
            #expect(a.score == b.score, "\(text): \(a.score) against \(b.score)")
            if a.score == b.score && a.score != 0 { sameScores += 1 }
        }
        #expect(sameScores == 7)
    }
}

@Suite("Intent parser: text → intent and slots through the grammar")
struct IntentParserTests {
    static let parser: IntentParser = {
        var g = try! ShippedGrammar.load()
        g.setPhrases(["Stockmann", "Kauppatori", "Café Engel", "Mannerheimintie"].map(SlotPhrase.init(name:)), for: "places")
        g.setPhrases(["Home Door", "Bench"].map(SlotPhrase.init(name:)), for: "markers")
        g.setPhrases(["Morning Walk"].map(SlotPhrase.init(name:)), for: "routes")
        return IntentParser(grammar: g)
    }()

    @Test(arguments: [
        ("where am i", "where_am_i", [String: String]()),
        ("Where am I?", "where_am_i", [:]),
        ("what's ahead", "ahead_of_me", [:]),
        ("what is around me", "around_me", [:]),
        ("set beacon on Stockmann", "set_beacon", ["place": "Stockmann"]),
        ("set a beacon on coffee shop", "set_beacon", ["place": "coffee shop"]),
        ("guide me to cafe engel", "set_beacon", ["place": "Café Engel"]),
        ("take me to Kauppatori", "take_me_to", ["place": "Kauppatori"]),
        ("beacon angle 15 degrees", "beacon_angle", ["number": "15"]),
        ("beacon mute distance twenty five meters", "beacon_off_distance", ["number": "25"]),
        ("beacon style marimba", "beacon_style", ["style": "Marimba"]),
        ("i am facing north east", "facing", ["direction": "northeast"]),
        ("rename marker bench to home", "rename_marker", ["name": "Bench", "new_name": "home"]),
        ("delete marker home door", "delete_marker", ["name": "Home Door"]),
        ("start route morning walk", "start_route", ["name": "Morning Walk"]),
        ("language finnish", "language", ["language": "fi"]),
        ("undo", "cancel", [:]),
        ("mute the beacon", "mute_beacon", [:]),
        ("what can i say", "help", [:]),
        // settings by voice
        ("speak faster", "speak_faster", [:]),
        ("talk slower", "speak_slower", [:]),
        ("speak louder", "speech_louder", [:]),
        ("speak quieter", "speech_quieter", [:]),
        ("talk faster", "speak_faster", [:]),
        ("speech volume 60 percent", "speech_volume", ["number": "60"]),
        ("speech volume sixty", "speech_volume", ["number": "60"]),
        ("sounds louder", "sounds_louder", [:]),
        ("sounds quieter", "sounds_quieter", [:]),
        ("sound volume forty percent", "sound_volume", ["number": "40"]),
        ("beacon louder", "beacon_louder", [:]),
        ("beacon quieter", "beacon_quieter", [:]),
        ("beacon volume 80", "beacon_volume", ["number": "80"]),
        ("change beacon style to classic", "beacon_style", ["style": "Classic"]),
        ("beacon style chime", "beacon_style", ["style": "Chime"]),
        ("beacon angle ten degrees", "beacon_angle", ["number": "10"]),
        ("places on", "places_on", [:]),
        ("places and landmarks off", "places_off", [:]),
        ("mobility on", "mobility_on", [:]),
        ("mobility off", "mobility_off", [:]),
        ("beacon distance on", "beacon_distance_on", [:]),
        ("beacon distance off", "beacon_distance_off", [:]),
        ("beacon distance", "where_is_beacon", [:]),
        ("callouts off", "callouts_off", [:]),
        ("turn on callouts", "callouts_on", [:]),
        ("use imperial units", "use_imperial", [:]),
        ("metric units", "use_metric", [:]),
        ("change language to german", "language", ["language": "de"]),
        ("change language to english", "language", ["language": "en"]),
        ("cancel that", "cancel", [:]),
        ("i'm facing south west", "facing", ["direction": "southwest"]),
        ("i am facing west", "facing", ["direction": "west"]),
    ])
    func parses(_ text: String, _ intent: String, _ slots: [String: String]) throws {
        let command = try #require(Self.parser.parse(text))
        #expect(command.intent == intent)
        #expect(command.slots == slots)
        #expect(command.confidence == 1)
    }

    @Test func typedPlaceNamesNeedNotBeNearby() throws {
        let command = try #require(Self.parser.parse("set beacon on Helsinki Cathedral"))
        #expect(command.intent == "set_beacon")
        #expect(command.slots["place"] == "Helsinki Cathedral")
        // The recognizer's own words only match the phrases it listened for.
        #expect(Self.parser.parse("set beacon on helsinki cathedral", openSlots: false) == nil)
        #expect(Self.parser.parse("set beacon on stockmann", openSlots: false)?.slots["place"] == "Stockmann")
    }

    @Test func awakeTheSearchHasEveryCommandButWakingAsleepOnlyWaking() throws {
        let grammar = try ShippedGrammar.load()
        // The decoder's search is the public rule: the other rules are only defined beside it.
        func searched(_ g: CommandGrammar?) throws -> String {
            let jsgf = try #require(g).decoderJSGF()
            return try #require(jsgf.split(separator: "\n").first { $0.hasPrefix("public ") }.map(String.init))
        }
        let awake = try searched(grammar.restricted(to: ListeningState.awake.admits))
        let asleep = try searched(grammar.restricted(to: ListeningState.asleep.admits))
        #expect(!awake.contains("wake up"))
        #expect(awake.contains("go to sleep") && awake.contains("where am i") && awake.contains("quit soundscape"))
        #expect(asleep.contains("wake up"))
        #expect(!asleep.contains("where am i") && !asleep.contains("go to sleep") && !asleep.contains("quit soundscape"))
        // The parser still knows every phrasing, whatever the search listens for.
        #expect(IntentParser(grammar: grammar).parse("wake up")?.intent == "wake")
        #expect(ListeningState.expected(for: .wake) == .asleep)
        #expect(ListeningState.expected(for: .whereAmI) == .awake)
    }

    @Test func aPhrasingIsKeptWhenARuleItNamesLeadsToAnAdmittedIntent() throws {
        let text = """
            #JSGF V1.0;
            grammar t;
            public <a> = <wakeful> | where am i {where_am_i};
            <wakeful> = wake up {wake} | rise and shine {wake};
            public <b> = around me {around_me};
            """
        let grammar = try CommandGrammar(sources: [("t.gram", text)])
        let asleep = try #require(grammar.restricted(to: ListeningState.asleep.admits))
        #expect(asleep.commandRules == ["a"])
        let searched = try #require(asleep.decoderJSGF().split(separator: "\n").first { $0.hasPrefix("public ") })
        #expect(searched.contains("<wakeful_>") && !searched.contains("where am i") && !searched.contains("around me"))
        #expect(grammar.restricted(to: { _ in false }) == nil)
    }

    @Test func outOfGrammarTextIsNotACommand() {
        for text in ["the weather is nice today", "where is the bus stop", "", "stop stop", "set beacon"] {
            #expect(Self.parser.parse(text) == nil, "\(text)")
        }
    }

    @Test func anEditedPhrasingWorksWithoutCodeChanges() throws {
        let text = "#JSGF V1.0;\ngrammar mine;\npublic <mine> = tell me where i am {where_am_i} | beacon to <place> {set_beacon};\n<place> = the shop;\n"
        let parser = IntentParser(grammar: try CommandGrammar(sources: [("mine.gram", text)]))
        #expect(parser.parse("tell me where i am")?.intent == "where_am_i")
        #expect(parser.parse("beacon to the shop")?.slots == ["place": "the shop"])
    }
}

@Suite("Number words and spoken names")
struct WordTests {
    @Test func numbers() {
        #expect(NumberWords.value(of: ["twenty", "five"]) == 25)
        #expect(NumberWords.value(of: ["one", "hundred", "and", "five"]) == 105)
        #expect(NumberWords.value(of: ["fifteen"]) == 15)
        #expect(NumberWords.value(of: ["blue"]) == nil)
        #expect(NumberWords.words(for: 342) == ["three", "hundred", "forty", "two"])
    }

    @Test func spokenWordsOfNames() {
        #expect(SlotPhrase.spokenWords("Café Engel") == ["cafe", "engel"])
        #expect(SlotPhrase.spokenWords("Töölönlahti") == ["toolonlahti"])
        #expect(SlotPhrase.spokenWords("R-kioski") == ["r", "kioski"])
        #expect(SlotPhrase.spokenWords("Alko 24") == ["alko", "twenty", "four"])
        #expect(SlotPhrase.spokenWords("McDonald's") == ["mcdonalds"])
    }

    @Test func ipaMapsOntoCMUPhones() {
        #expect(IPAToCMU.phones("sˈaʊndskeɪp") == ["S", "AW", "N", "D", "S", "K", "EY", "P"])
        #expect(IPAToCMU.phones("stˈɑːkmən") == ["S", "T", "AA", "K", "M", "AH", "N"])
        #expect(IPAToCMU.phones("kˈaupːatˌorɪ") == ["K", "AW", "P", "AA", "T", "OW", "R", "IH"])
        #expect(IPAToCMU.phones("tʃˈɜːtʃ") == ["CH", "ER", "CH"])
    }

    @Test func espeakPronouncesUnknownNames() throws {
        let pronouncer = EspeakPronouncer()
        try #require(pronouncer.isAvailable, "espeak-ng is not installed")
        let prons = pronouncer.pronunciations(for: ["kauppatori", "stockmann"])
        #expect(prons["kauppatori"]?.isEmpty == false)
        #expect(prons["stockmann"]?.first == "S T AA K M AH N")
    }
}
