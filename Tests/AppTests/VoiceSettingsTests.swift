@testable import App
import Audio
import Behaviors
import Callouts
import Clocks
import ClockTestSupport
import Foundation
import Geo
import Guidance
import Location
import Speech
import Synchronization
import Testing

/// Settings, "undo" and "I am facing …" through the real assistant: the real grammar, the real pipeline, a real
/// settings file in a temporary folder and a real user database; only the sound is recorded instead of played.
@Suite("Voice commands that change things, and undo")
struct VoiceSettingsTests {
    /// What the assistant played, in order.
    final class RecordingOutput: ReplyOutput {
        let played = Mutex<[String]>([])
        var texts: [String] { played.withLock { $0.filter { !$0.isEmpty } } }
        func say(_ replies: [Reply], interrupt: Bool) async { played.withLock { $0 += replies.map(\.text) } }
        func problem(_ text: String) async { played.withLock { $0.append("Problem: \(text)") } }
        func moveListener(to location: Coordinate?, heading: Double?) async {}
        func finish() async {}
        func play(_ reply: Reply) async -> Bool { played.withLock { $0.append(reply.text) }; return true }
        func stop(hush: Bool) async {}
    }

    /// Stands in for the audio engine: remembers the voice and levels it was given.
    final class RecordingAudio: LiveAudioSettings {
        let voices = Mutex<[VoiceSettings]>([])
        let levels = Mutex<[AudioLevels]>([])
        func setVoice(_ voice: VoiceSettings) { voices.withLock { $0.append(voice) } }
        func setLevels(_ levels: AudioLevels) { self.levels.withLock { $0.append(levels) } }
    }

    /// Stands in for the location stage's heading sources.
    final class RecordingHeading: HeadingControl {
        let calls = Mutex<[Double?]>([])
        func setManualHeading(_ degrees: Double) async { calls.withLock { $0.append(degrees) } }
        func clearManualHeading() async { calls.withLock { $0.append(nil) } }
    }

    static let grammars: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Grammars").path
    static let here = Coordinate(latitude: 60.1699, longitude: 24.9410)

    struct Harness {
        let assistant: Assistant
        let output: RecordingOutput
        let audio: RecordingAudio
        let heading: RecordingHeading
        let settingsPath: String
        let guidance: GuidanceSetup

        /// Says `command` and returns what was played for it.
        @discardableResult
        func say(_ command: String) async -> [String] {
            let before = output.texts.count
            _ = await assistant.handle(command: command)
            await assistant.settle()
            return Array(output.texts.dropFirst(before))
        }

        /// The settings file as a fresh program would read it.
        var saved: Settings {
            let loaded = SettingsStore(path: settingsPath).load()
            #expect(loaded.problems.isEmpty, "\(loaded.problems)")
            return loaded.settings
        }
    }

    static func folder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("voice-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func harness(settingsPath: String? = nil, heading: Bool = true, located: Bool = true,
                        waitClock: any Clock<Duration> = ContinuousClock()) async throws -> Harness {
        let dir = try folder()
        let path = settingsPath ?? dir.appendingPathComponent("config.toml").path
        let output = RecordingOutput()
        let audio = RecordingAudio()
        let headingControl = RecordingHeading()
        let guidance = await GuidanceSetup(map: nil, mapPath: nil, language: "en", settings: Settings(),
                                           userDatabase: dir.appendingPathComponent("user.sqlite").path, engine: nil,
                                           restoreBeacon: false, kinds: .empty, problem: { Issue.record("\($0)") })
        let (parser, problem) = Assistant.intentParser(grammars: grammars)
        #expect(problem == nil)
        let assistant = Assistant(map: nil, phrasing: Phrasing(table: try StringTable(language: "en")), output: output,
                                  followFixTimes: true, format: .none, guidance: guidance, intents: parser,
                                  settings: LiveSettings(store: SettingsStore(path: path), settings: Settings(), audio: audio),
                                  headingControl: heading ? headingControl : nil, waitClock: waitClock)
        if located {
            await assistant.locate(LocationFix(coordinate: here, timestamp: Date(), horizontalAccuracy: 5))
            await assistant.settle()
        }
        return Harness(assistant: assistant, output: output, audio: audio, heading: headingControl, settingsPath: path,
                       guidance: guidance)
    }

    // MARK: each setting

    @Test func speakingFasterAndSlowerStepsTheRateAppliesItToTheVoiceAndSavesIt() async throws {
        let h = try await Self.harness()
        #expect(await h.say("speak faster") == ["Speech rate 200 words a minute"])
        #expect(h.saved.speechRate == 200)
        #expect(h.audio.voices.withLock { $0.last?.rate } == 200)
        #expect(await h.say("talk slower") == ["Speech rate 175 words a minute"])
        #expect(h.saved.speechRate == 175)
        #expect(h.audio.voices.withLock { $0.map(\.rate) } == [200, 175])
    }

    @Test func theRateStopsAtTheAllowedLimitAndSaysSo() async throws {
        let h = try await Self.harness()
        var last: [String] = []
        for _ in 0..<20 { last = await h.say("speak faster") }
        #expect(h.saved.speechRate == 450)
        #expect(last == ["Already at the limit. Speech rate 450 words a minute"])
    }

    @Test(arguments: [
        ("speak louder", "Speech volume 85 percent", "speech_volume", 85),
        ("speak quieter", "Speech volume 65 percent", "speech_volume", 65),
        ("beacon louder", "Beacon volume 85 percent", "beacon_volume", 85),
        ("beacon quieter", "Beacon volume 65 percent", "beacon_volume", 65),
        ("sounds louder", "Sound volume 85 percent", "sound_volume", 85),
        ("sound volume 30 percent", "Sound volume 30 percent", "sound_volume", 30),
        ("beacon volume fifty", "Beacon volume 50 percent", "beacon_volume", 50),
        ("speech volume 100", "Speech volume 100 percent", "speech_volume", 100),
    ])
    func volumesChangeLiveAndAreSaved(_ command: String, _ readBack: String, _ key: String, _ value: Int) async throws {
        let h = try await Self.harness()
        #expect(await h.say(command) == [readBack])
        let setting = try #require(Settings.key(named: key))
        #expect(h.saved.value(of: setting) == .integer(value))
        let levels = try #require(h.audio.levels.withLock { $0.last })
        let live: Float = key == "speech_volume" ? levels.speech : key == "beacon_volume" ? levels.beacon : levels.earcons
        #expect(abs(live - Float(value) / 100) < 0.001)
    }

    @Test(arguments: [
        ("beacon style marimba", "Beacon style Marimba"),
        ("change beacon style to classic", "Beacon style Classic"),
    ])
    func beaconStyleByName(_ command: String, _ readBack: String) async throws {
        let h = try await Self.harness()
        #expect(await h.say(command) == [readBack])
        #expect(h.saved.beaconStyle == readBack.split(separator: " ").last.map(String.init))
    }

    @Test func beaconAngleInRangeIsSavedAndOutOfRangeIsRefused() async throws {
        let h = try await Self.harness()
        #expect(await h.say("beacon angle 10 degrees") == ["Beacon angle 10 degrees"])
        #expect(h.saved.beaconRingingAngle == 10)
        #expect(await h.say("beacon angle thirty degrees") == ["The beacon angle can be 5 to 20 degrees"])
        #expect(h.saved.beaconRingingAngle == 10)
    }

    @Test func beaconOffDistanceGoesToTheBeaconAndTheFile() async throws {
        let h = try await Self.harness()
        #expect(await h.say("beacon mute distance twenty five meters") == ["Beacon off distance 25 meters"])
        #expect(h.saved.beaconOffDistance == 25)
        #expect(await h.guidance.manager.settings.beaconOffDistance == 25)
    }

    @Test func unitsAreSavedAndUsedForDistances() async throws {
        let h = try await Self.harness()
        #expect(await h.say("use imperial") == ["Distances in feet and miles"])
        #expect(h.saved.units == .imperial)
        #expect(await h.say("beacon mute distance 10 meters") == ["Beacon off distance 35 feet"])
        #expect(await h.say("use metric units") == ["Distances in meters"])
        #expect(h.saved.units == .metric)
    }

    @Test func languageSwitchesThePhrasesAndTheVoiceAndAnUnavailableOneNamesTheAvailable() async throws {
        let h = try await Self.harness()
        #expect(await h.say("language finnish") == ["Finnish is not available. The languages are German and English"])
        #expect(h.saved.language == "en")
        #expect(await h.say("language german") == ["Sprache: Deutsch"])
        #expect(h.saved.language == "de")
        #expect(h.saved.voice == "de")
        #expect(h.audio.voices.withLock { $0.last?.voice } == "de")
        #expect(await h.say("speak faster") == ["Sprechtempo 200 Wörter pro Minute"])
    }

    @Test(arguments: [
        ("places off", "Place and landmark callouts off", "places_and_landmarks"),
        ("mobility off", "Mobility callouts off", "mobility"),
        ("beacon distance off", "Beacon distance updates off", "beacon_distance"),
        ("callouts off", "Callouts off", "callouts"),
    ])
    func calloutCategoriesGoOffAndOnAndAreSaved(_ command: String, _ readBack: String, _ key: String) async throws {
        let h = try await Self.harness()
        let setting = try #require(Settings.key(named: key))
        #expect(await h.say(command) == [readBack])
        #expect(h.saved.value(of: setting) == .boolean(false))
        let on = command.replacingOccurrences(of: " off", with: " on")
        #expect(await h.say(on) == [readBack.replacingOccurrences(of: " off", with: " on")])
        #expect(h.saved.value(of: setting) == .boolean(true))
        // The same again changes nothing, and says so: an "off" misheard as "on" must not sound like a change.
        #expect(await h.say(on) == ["No change. " + readBack.replacingOccurrences(of: " off", with: " on")])
        #expect(h.saved.value(of: setting) == .boolean(true))
        // Undo takes back the last real change (on), not the repetition.
        #expect(await h.say("undo").first?.hasPrefix("Undone") == true)
        #expect(h.saved.value(of: setting) == .boolean(false))
    }

    @Test func theMasterSwitchReachesThePipeline() async throws {
        let h = try await Self.harness()
        await h.say("callouts off")
        #expect(await h.assistant.processor.automaticCalloutsEnabled == false)
        await h.say("undo")
        #expect(await h.assistant.processor.automaticCalloutsEnabled == true)
        #expect(h.saved.callouts == true)
    }

    @Test func aSettingsFileThatCannotBeWrittenIsReportedAndTheChangeStillApplies() async throws {
        // A folder that cannot be created (its parent is a file) fails for every user, root included.
        let blocker = try Self.folder().appendingPathComponent("not-a-folder")
        try "x".write(to: blocker, atomically: true, encoding: .utf8)
        let path = blocker.appendingPathComponent("config.toml").path
        let h = try await Self.harness(settingsPath: path)
        let said = await h.say("speak faster")
        #expect(said.first == "Speech rate 200 words a minute")
        let problem = try #require(said.dropFirst().first)
        #expect(problem.hasPrefix("Problem: \(path): cannot save the settings"), "\(said)")
        #expect(await h.assistant.settings.current().speechRate == 200)
        #expect(h.audio.voices.withLock { $0.last?.rate } == 200)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    // MARK: undo

    @Test func nothingToUndo() async throws {
        let h = try await Self.harness()
        #expect(await h.say("undo") == ["Nothing to undo"])
    }

    @Test func undoingASettingRestoresItLiveAndInTheFile() async throws {
        let h = try await Self.harness()
        await h.say("beacon style marimba")
        #expect(h.saved.beaconStyle == "Marimba")
        #expect(await h.say("cancel that") == ["Undone: beacon style. Beacon style Chime"])
        #expect(h.saved.beaconStyle == "Chime")
        #expect(await h.assistant.settings.current().beaconStyle == "Chime")
    }

    @Test func undoingUnitsSwitchesBack() async throws {
        let h = try await Self.harness()
        await h.say("use imperial")
        #expect(await h.say("undo") == ["Undone: units. Distances in meters"])
        #expect(h.saved.units == .metric)
        #expect(await h.say("beacon mute distance 10 meters") == ["Beacon off distance 10 meters"])
    }

    @Test func twoUndosTakeBackTwoChangesNewestFirst() async throws {
        let h = try await Self.harness()
        await h.say("speak faster")
        await h.say("beacon louder")
        #expect(h.saved.speechRate == 200)
        #expect(h.saved.beaconVolume == 85)
        #expect(await h.say("undo") == ["Undone: beacon volume. Beacon volume 75 percent"])
        #expect(h.saved.beaconVolume == 75)
        #expect(h.saved.speechRate == 200)
        #expect(await h.say("undo") == ["Undone: speech rate. Speech rate 175 words a minute"])
        #expect(h.saved.speechRate == 175)
        #expect(await h.say("undo") == ["Nothing to undo"])
    }

    @Test func theHistoryKeepsTheLastTen() {
        var history = UndoHistory(limit: 10)
        for i in 0..<13 { history.push(.facing("\(i)", degrees: Double(i))) }
        #expect(history.entries.count == 10)
        #expect(history.pop() == .facing("12", degrees: 12))
        #expect(history.entries.first == .facing("3", degrees: 3))
        for i in 0..<12 { history.pushUndone(.init(description: "\(i)", entry: .facingCleared("\(i)", degrees: 0))) }
        #expect(history.undone.count == 10)
        #expect(history.popUndone()?.description == "11")
        history.pushRedone(.facing("11", degrees: 11))
        #expect(history.undone.count == 9, "a redo keeps the older undone changes")
        history.push(.facing("new", degrees: 0))
        #expect(history.undone.isEmpty, "a new change forgets what can be redone")
    }

    // MARK: redo

    @Test func nothingToRedo() async throws {
        let h = try await Self.harness()
        #expect(await h.say("redo") == ["Nothing to redo"])
        await h.say("speak faster")
        await h.say("undo")
        await h.say("beacon louder")
        #expect(await h.say("redo that") == ["Nothing to redo"], "a new change after the undo")
    }

    @Test func redoPutsBackSettingsAndCanBeUndoneAgain() async throws {
        let h = try await Self.harness()
        await h.say("speak faster")
        await h.say("beacon louder")
        await h.say("undo")
        await h.say("undo")
        #expect(h.saved.speechRate == 175)
        #expect(h.saved.beaconVolume == 75)
        #expect(await h.say("redo") == ["Redone: speech rate. Speech rate 200 words a minute"])
        #expect(h.saved.speechRate == 200)
        #expect(await h.assistant.settings.current().speechRate == 200)
        #expect(await h.say("redo") == ["Redone: beacon volume. Beacon volume 85 percent"])
        #expect(h.saved.beaconVolume == 85)
        #expect(await h.say("redo") == ["Nothing to redo"])
        #expect(await h.say("undo") == ["Undone: beacon volume. Beacon volume 75 percent"])
        #expect(await h.say("undo") == ["Undone: speech rate. Speech rate 175 words a minute"])
        #expect(h.saved.speechRate == 175)
    }

    @Test func aMisheardUndoOfABeaconIsRedone() async throws {
        let h = try await Self.harness()
        let set = await h.say("beacon here")
        #expect(set.first?.hasPrefix("Beacon set on") == true, "\(set)")
        let name = try #require(h.guidance.manager.snapshot.current?.beacon.name)
        #expect(await h.say("mute the beacon") == ["Beacon muted"])
        #expect(await h.say("undo") == ["Undone: muting the beacon. Beacon unmuted"])
        #expect(await h.say("undo") == ["Undone: beacon on \(name). Beacon removed"])
        #expect(h.guidance.manager.snapshot.current == nil)
        let back = await h.say("redo")
        #expect(back.first?.hasPrefix("Redone: beacon on \(name). Beacon set on \(name)") == true, "\(back)")
        #expect(h.guidance.manager.snapshot.current?.beacon.name == name)
        #expect(await h.say("redo") == ["Redone: muting the beacon. Beacon muted"])
        #expect(await h.guidance.manager.state.userMuted)
        #expect(await h.say("undo") == ["Undone: muting the beacon. Beacon unmuted"])
    }

    @Test func redoingMarkerChanges() async throws {
        let h = try await Self.harness()
        let markers = try #require(h.guidance.store?.markers)
        await h.say("save marker as work")
        let original = try #require(try markers.find(named: "work"))
        await h.say("rename marker work to gym")
        #expect(await h.say("delete marker gym") == ["Marker gym deleted"])
        await h.say("undo")
        await h.say("undo")
        #expect(try markers.marker(id: original.id)?.name == "work")
        #expect(await h.say("redo") == ["Redone: renaming marker work. Marker work renamed to gym"])
        #expect(try markers.marker(id: original.id)?.name == "gym")
        #expect(await h.say("redo") == ["Redone: deleting marker gym. Marker gym deleted"])
        #expect(try markers.marker(id: original.id) == nil)
        #expect(await h.say("undo") == ["Undone: deleting marker gym. Marker created, gym"])
        #expect(try markers.marker(id: original.id)?.coordinate == original.coordinate)
    }

    @Test func undoingABeaconRemovesItAndUndoingTheRemovalBringsItBack() async throws {
        let h = try await Self.harness()
        let set = await h.say("beacon here")
        #expect(set.first?.hasPrefix("Beacon set on") == true, "\(set)")
        let name = try #require(h.guidance.manager.snapshot.current?.beacon.name)
        #expect(await h.say("undo") == ["Undone: beacon on \(name). Beacon removed"])
        #expect(h.guidance.manager.snapshot.current == nil)

        await h.say("beacon here")
        #expect(await h.say("remove beacon") == ["Beacon removed"])
        #expect(h.guidance.manager.snapshot.current == nil)
        let back = await h.say("undo")
        #expect(back.first?.hasPrefix("Undone: removing the beacon. Beacon set on \(name)") == true, "\(back)")
        #expect(h.guidance.manager.snapshot.current?.beacon.name == name)
    }

    @Test func undoingAMuteUnmutes() async throws {
        let h = try await Self.harness()
        await h.say("beacon here")
        #expect(await h.say("mute the beacon") == ["Beacon muted"])
        #expect(await h.guidance.manager.state.userMuted)
        #expect(await h.say("undo") == ["Undone: muting the beacon. Beacon unmuted"])
        #expect(await h.guidance.manager.state.userMuted == false)
    }

    @Test func undoingMarkerChanges() async throws {
        let h = try await Self.harness()
        let markers = try #require(h.guidance.store?.markers)
        #expect(await h.say("save marker as home") == ["Marker created, home"])
        #expect(try markers.find(named: "home") != nil)
        #expect(await h.say("undo") == ["Undone: saving marker home. Marker home deleted"])
        #expect(try markers.find(named: "home") == nil)

        await h.say("save marker as work")
        let original = try #require(try markers.find(named: "work"))
        #expect(await h.say("rename marker work to gym") == ["Marker work renamed to gym"])
        #expect(await h.say("undo") == ["Undone: renaming marker work. Marker gym renamed to work"])
        #expect(try markers.marker(id: original.id)?.name == "work")

        #expect(await h.say("delete marker work") == ["Marker work deleted"])
        #expect(try markers.marker(id: original.id) == nil)
        #expect(await h.say("undo") == ["Undone: deleting marker work. Marker created, work"])
        let restored = try #require(try markers.marker(id: original.id))
        #expect(restored.name == "work")
        #expect(restored.coordinate == original.coordinate)
    }

    // MARK: facing

    @Test func facingNorthEastGivesFortyFiveDegreesAndUndoClearsIt() async throws {
        let h = try await Self.harness()
        #expect(await h.say("i am facing north east") == ["Facing north-east"])
        #expect(h.heading.calls.withLock { $0 } == [45])
        #expect(await h.say("i'm facing west") == ["Facing west"])
        #expect(await h.say("undo") == ["Undone: facing west. The heading comes from the sensors again"])
        #expect(h.heading.calls.withLock { $0 } == [45, 270, nil])
        #expect(await h.say("redo") == ["Redone: facing west. Facing west"])
        #expect(h.heading.calls.withLock { $0 } == [45, 270, nil, 270])
    }

    @Test func facingWithoutHeadingControlIsNotAvailable() async throws {
        let h = try await Self.harness(heading: false)
        #expect(await h.say("i am facing south") == ["Sorry, i am facing south is not available yet"])
    }

    @Test func everyCompassDirectionMapsToItsDegrees() {
        let expected = ["north": 0.0, "north east": 45, "northeast": 45, "east": 90, "south east": 135, "south": 180,
                        "southwest": 225, "west": 270, "north-west": 315]
        for (word, degrees) in expected { #expect(CommandMap.degrees(word) == degrees, "\(word)") }
        #expect(CommandMap.degrees("up") == nil)
    }

    // MARK: before the first fix

    /// The fault tests' corrupt-database run asked "where am I" the moment the program had started, and was told its
    /// fixed location was not known yet: the fix had not reached the pipeline.
    @Test(.timeLimit(.minutes(1)))
    func whereAmIGivenJustBeforeTheFirstFixIsAnsweredFromIt() async throws {
        let clock = TestClock()
        let h = try await Self.harness(located: false, waitClock: clock)
        let asking = Task { await h.say("where am i") }
        for _ in 0..<3 {                               // 0.3 s of waiting for a fix
            await clock.waitUntilSomethingSleeps()
            await clock.advance(by: .milliseconds(100))
        }
        await h.assistant.locate(LocationFix(coordinate: Self.here, timestamp: Date(), horizontalAccuracy: 5))
        await clock.waitUntilSomethingSleeps()
        await clock.advance(by: .milliseconds(100))
        // This harness has no map, so an answer from the fix is that the map is not available.
        #expect(await asking.value == ["The map is not available"])
    }

    @Test(.timeLimit(.minutes(1)))
    func whereAmIWithNoFixAtAllSaysSoAfterWaiting() async throws {
        let clock = TestClock()
        let h = try await Self.harness(located: false, waitClock: clock)
        let answered = Mutex(false)
        let asking = Task {
            let replies = await h.say("where am i")
            answered.withLock { $0 = true }
            return replies
        }
        for _ in 0..<19 {
            await clock.waitUntilSomethingSleeps()
            await clock.advance(by: .milliseconds(100))
        }
        await clock.waitUntilSomethingSleeps()
        #expect(!answered.withLock { $0 }, "answered before 2 s of waiting")
        await clock.advance(by: .milliseconds(100))
        #expect(await asking.value == ["Your location is not known yet"])
        #expect(TestClock<Duration>.Instant().duration(to: clock.now) == .seconds(2))
    }

    // MARK: help

    @Test func helpMentionsRoutesSettingsAndUndo() async throws {
        let h = try await Self.harness()
        let help = try #require(await h.say("help").first)
        #expect(help.hasPrefix("You can say: where am I"))
        #expect(help.contains("take me to a place"))
        #expect(help.contains("start route"))
        #expect(help.contains("speak faster or slower"))
        #expect(help.contains("beacon style"))
        #expect(help.contains("undo"))
    }
}

@Suite("The end of a simulated walk")
struct EndOfWalkTests {
    /// `soundscape run --exit-at-end-of-walk` with commands piped in: the walk may end while commands are still
    /// waiting their turn. They are answered before the run ends (they were dropped: the end of the walk
    /// cancelled the command reader), and the input still open (a terminal, a voice) does not keep it running.
    @Test func commandsGivenBeforeTheWalkEndsAreAnsweredBeforeTheRunStops() async throws {
        let h = try await VoiceSettingsTests.harness()
        let (commands, commandInput) = AsyncStream<AssistantInput>.makeStream()
        let (locations, locationInput) = AsyncStream<AssistantInput>.makeStream()
        for _ in 0..<3 { commandInput.yield(.typed("speak faster")) }
        locationInput.yield(.location(.walkEnded))
        let service = AssistantService(assistant: h.assistant, greeting: "Simulated walk.", locations: locations,
                                       commands: commands, stopAtEndOfWalk: true,
                                       endCommands: { commandInput.finish() })
        let ran = Task { try await service.run() }
        let finished = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { try await ran.value; return true }
            group.addTask { try await Task.sleep(for: .seconds(30)); return false }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
        #expect(finished, "the run did not end after the walk")
        #expect(h.audio.voices.withLock { $0.map(\.rate) } == [200, 225, 250], "\(h.output.texts)")
        #expect(h.saved.speechRate == 250)
    }
}
