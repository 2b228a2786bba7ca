import Audio
import Behaviors
import Callouts
import Foundation
import Guidance

/// Settings by voice, "undo", and "I am facing …".
///
/// A setting command computes the new settings from the ones in force, applies the difference to the pipeline
/// (units, language, callouts) and the Guidance stage (beacon sound, mute distance, distance updates), then hands
/// them to ``SettingsControl`` (audio engine, settings file) and reads the new value back. Every change — and
/// every beacon, marker and route change — goes on the bounded ``UndoHistory``; "undo" takes back the newest.
extension Assistant {
    /// Speech rate step (words a minute) and volume step (percent) of "faster"/"louder".
    public static let rateStep = 25
    public static let volumeStep = 10

    // MARK: settings

    func changeSetting(_ change: SettingCommand, words: String) async {
        let before = await settings.current()
        var after = before
        let t = table
        let key: String
        switch change {
        case .speechRate(let faster):
            key = "speech_rate"
            after.speechRate = Self.clamp(before.speechRate + (faster ? Self.rateStep : -Self.rateStep), key)
        case .volume(let level, let louder):
            key = Self.volumeKey(level)
            let path = Self.volumePath(level)
            after[keyPath: path] = Self.clamp(before[keyPath: path] + (louder ? Self.volumeStep : -Self.volumeStep), key)
        case .setVolume(let level, let value):
            key = Self.volumeKey(level)
            guard let value, (0...100).contains(value) else { return say(t("settings.volume_invalid"), glyph: .invalidFunction) }
            after[keyPath: Self.volumePath(level)] = Int(value.rounded())
        case .beaconStyle(let name):
            key = "beacon_style"
            guard let name, let style = BeaconStyle.builtInNames.first(where: { $0.lowercased() == name.lowercased() }) else {
                return say(t("settings.beacon_style_unknown", name ?? words, phrasing.value.list(BeaconStyle.builtInNames)),
                           glyph: .invalidFunction)
            }
            after.beaconStyle = style
        case .beaconAngle(let degrees):
            key = "beacon_ringing_angle"
            guard let degrees, (5...20).contains(degrees) else { return say(t("settings.beacon_angle_invalid"), glyph: .invalidFunction) }
            after.beaconRingingAngle = Int(degrees.rounded())
        case .beaconOffDistance(let meters):
            key = "beacon_off_distance"
            guard let meters, GuidanceSettings.beaconOffRange.contains(meters) else {
                return say(t("settings.beacon_off_distance_invalid"), glyph: .invalidFunction)
            }
            after.beaconOffDistance = Int(meters.rounded())
        case .units(let units):
            key = "units"
            after.units = units
        case .language(let code):
            key = "language"
            let available = StringTable.availableLanguages
            guard let code, available.contains(code) else {
                let names = available.map { t("language.\($0)") }
                return say(t("settings.language_unavailable", code.map { t("language.\($0)") } ?? words, phrasing.value.list(names)),
                           glyph: .invalidFunction)
            }
            after.language = code
            // The voice follows the language while it is the old language's own.
            if Self.voice(before.voice, belongsTo: before.language) { after.voice = Self.defaultVoice(for: code) }
        case .callouts(let on):
            key = "callouts"
            after.callouts = on
        case .places(let on):
            key = "places_and_landmarks"
            after.placesAndLandmarks = on
        case .mobility(let on):
            key = "mobility"
            after.mobility = on
        case .beaconDistance(let on):
            key = "beacon_distance"
            after.beaconDistance = on
        }
        if after == before {
            // Nothing changes: say so, and how it is (at a limit, that it is one). Nothing to save or undo. A bare
            // read-back ("Mobility callouts on") would sound like a change, and a misheard "off" taken for "on"
            // (the commonest confusion in street noise) would go unnoticed.
            let now = readBack(key, after)
            switch change {
            case .speechRate, .volume: return say(t("settings.at_limit", now))
            default: return say(t("settings.unchanged", now))
            }
        }
        await applyDifference(from: before, to: after)
        let problem = await settings.apply(after)
        undoHistory.update { $0.push(.setting(before: before, key: key)) }
        if key == "callouts" {
            processor.post(ToggleAutoCalloutsEvent(enabled: after.callouts))
        } else {
            say(readBack(key, after))
        }
        if let problem { report(problem) }
    }

    /// Applies what changed between two settings to the pipeline and the Guidance stage (the audio engine and
    /// the file are the ``SettingsControl``'s).
    func applyDifference(from old: Settings, to new: Settings) async {
        if old.units != new.units || old.language != new.language {
            let table = (old.language != new.language ? try? StringTable(language: new.language) : nil) ?? self.table
            let next = Phrasing(table: table, units: new.units)
            phrasing.set(next)
            await processor.setPhrasing(next)
            await guidance?.setLanguage(code: new.language, units: next.distances.units)
        }
        if old.callouts != new.callouts { await processor.setAutomaticCallouts(new.callouts) }
        if old.placesAndLandmarks != new.placesAndLandmarks || old.mobility != new.mobility || old.beaconDistance != new.beaconDistance {
            await processor.setCalloutSenses(placesAndLandmarks: new.placesAndLandmarks, mobility: new.mobility,
                                             beaconDistance: new.beaconDistance)
        }
        if old.beaconDistance != new.beaconDistance { await guidance?.setBeaconDistanceCallouts(new.beaconDistance) }
        if old.beaconOffDistance != new.beaconOffDistance { _ = await guidance?.setBeaconOffDistance(Double(new.beaconOffDistance)) }
        if old.beaconStyle != new.beaconStyle || old.beaconRingingAngle != new.beaconRingingAngle {
            await guidance?.setBeaconSound(style: new.beaconStyle, ringingAngle: Double(new.beaconRingingAngle))
        }
    }

    /// How a setting is now, as a sentence: "Speech rate 200 words a minute".
    func readBack(_ key: String, _ s: Settings) -> String {
        let t = table
        func onOff(_ on: Bool, _ name: String) -> String { t(on ? "settings.\(name)_on" : "settings.\(name)_off") }
        switch key {
        case "speech_rate": return t("settings.speech_rate", String(s.speechRate))
        case "speech_volume": return t("settings.speech_volume", String(s.speechVolume))
        case "beacon_volume": return t("settings.beacon_volume", String(s.beaconVolume))
        case "sound_volume": return t("settings.sound_volume", String(s.soundVolume))
        case "beacon_style": return t("settings.beacon_style", s.beaconStyle)
        case "beacon_ringing_angle": return t("settings.beacon_angle", String(s.beaconRingingAngle))
        case "beacon_off_distance":
            return t("settings.beacon_off_distance", phrasing.value.distances.string(meters: Double(s.beaconOffDistance)))
        case "units": return t(s.units == .imperial ? "status.units_imperial" : "status.units_metric")
        case "language": return t("settings.language", t("language.\(s.language)"))
        case "callouts": return t(s.callouts ? "status.callouts_on" : "status.callouts_off")
        case "places_and_landmarks": return onOff(s.placesAndLandmarks, "places")
        case "mobility": return onOff(s.mobility, "mobility")
        case "beacon_distance": return onOff(s.beaconDistance, "beacon_distance")
        default: return key
        }
    }

    static func volumeKey(_ level: SoundLevel) -> String {
        switch level {
        case .speech: "speech_volume"
        case .beacon: "beacon_volume"
        case .sounds: "sound_volume"
        }
    }

    static func volumePath(_ level: SoundLevel) -> WritableKeyPath<Settings, Int> {
        switch level {
        case .speech: \.speechVolume
        case .beacon: \.beaconVolume
        case .sounds: \.soundVolume
        }
    }

    /// Keeps a value inside the range the settings key allows.
    static func clamp(_ value: Int, _ key: String) -> Int {
        guard case .integer(let range, _)? = Settings.key(named: key)?.kind else { return value }
        return min(max(value, range.lowerBound), range.upperBound)
    }

    /// espeak-ng voice names start with the language ("en-us", "en+f2", "de").
    static func voice(_ voice: String, belongsTo language: String) -> Bool {
        voice == language || voice.hasPrefix(language + "-") || voice.hasPrefix(language + "+")
    }

    static func defaultVoice(for language: String) -> String { language == "en" ? "en-us" : language }

    // MARK: undo and redo

    func undo() async {
        guard let entry = undoHistory.update({ $0.pop() }) else { return say(table("undo.nothing")) }
        guard let back = await takeBack(entry) else { return say(table("undo.nothing")) }
        speak(back, done: "undo")
        if let reversal = back.reversal {
            undoHistory.update { $0.pushUndone(.init(description: back.what, entry: reversal)) }
        }
    }

    /// Puts back what the last "undo" took back, and makes that undoable again.
    func redo() async {
        guard let undone = undoHistory.update({ $0.popUndone() }) else { return say(table("redo.nothing")) }
        guard var back = await takeBack(undone.entry) else { return say(table("redo.nothing")) }
        back.what = undone.description
        speak(back, done: "redo")
        if let reversal = back.reversal { undoHistory.update { $0.pushRedone(reversal) } }
    }

    /// What taking back one ``UndoEntry`` did: the change in words ("beacon on Kiasma"), the sentence that says how
    /// things are now (nil when the Guidance stage speaks it itself), the entry that would take this back in turn
    /// (nil when nothing can), and a problem saving the settings.
    private struct TakenBack {
        var what: String
        var state: String?
        var reversal: UndoEntry?
        var problem: String? = nil
    }

    /// Restores the state before `entry`'s change, and finds from the state it leaves how to take that back; nil
    /// when there is no Guidance stage to take a guidance change back.
    private func takeBack(_ entry: UndoEntry) async -> TakenBack? {
        let t = table
        switch entry {
        case .setting(let before, let key):
            let now = await settings.current()
            await applyDifference(from: now, to: before)
            let problem = await settings.apply(before)
            if key == "callouts" { await processor.setAutomaticCallouts(before.callouts) }
            return TakenBack(what: t("setting.\(key)"), state: readBack(key, before), reversal: .setting(before: now, key: key),
                             problem: problem)
        case .guidance(let change):
            guard let guidance else { return nil }
            let what = undoneGuidance(change, beaconName: guidance.manager.snapshot.current?.beacon.name)
            let (state, reversal) = await guidance.undo(change, user: await locatedUser())
            return TakenBack(what: what, state: state, reversal: reversal.map(UndoEntry.guidance))
        case .facing(let word, let degrees):
            await headingControl?.clearManualHeading()
            return TakenBack(what: t("undo.facing", word), state: t("facing.cleared"), reversal: .facingCleared(word, degrees: degrees))
        case .facingCleared(let word, let degrees):
            await headingControl?.setManualHeading(degrees)
            return TakenBack(what: t("undo.facing", word), state: t("facing.set", word), reversal: .facing(word, degrees: degrees))
        }
    }

    /// "Undone: beacon on Kiasma. Beacon removed" (`done` "undo") or "Redone: …" ("redo").
    private func speak(_ back: TakenBack, done: String) {
        if let state = back.state {
            say(table("\(done).done", back.what, state))
        } else {
            say(table("\(done).done_only", back.what), action: .enqueue)
        }
        if let problem = back.problem { report(problem) }
    }

    /// What a guidance change was, for "Undone: …".
    private func undoneGuidance(_ change: GuidanceChange, beaconName: String?) -> String {
        let t = table
        switch change {
        case .beacon:
            return beaconName.map { t("undo.beacon_set", $0) } ?? t("undo.beacon_removed")
        case .beaconMuted(let muted): return t(muted ? "undo.beacon_muted" : "undo.beacon_unmuted")
        case .markerSaved(let m): return t("undo.marker_saved", m.name)
        case .markerDeleted(let m): return t("undo.marker_deleted", m.name)
        case .markerRenamed(let m): return t("undo.marker_renamed", m.name)
        case .routeStarted: return t("undo.route_started")
        case .routeStopped: return t("undo.route_stopped")
        case .markerChanged(let m): return t("undo.marker_changed", m.name)
        case .routeDraft(let before): return before.map { t("undo.route_draft", $0.draft.name) } ?? t("undo.route_new")
        case .routeSaved(let r, _, _): return t("undo.route_saved", r.name)
        case .routeUnsaved(let r, _, _): return t("undo.route_unsaved", r.name)
        case .routeReversed: return t("undo.route_reversed")
        }
    }

    // MARK: facing

    func face(_ degrees: Double?, words: String) async {
        guard let headingControl else { return processor.post(UnavailableCommandEvent(words: words)) }
        let t = table
        guard let degrees else { return say(t("facing.unknown"), glyph: .invalidFunction) }
        await headingControl.setManualHeading(degrees)
        let word = Self.compassWord(degrees, table: t)
        undoHistory.update { $0.push(.facing(word, degrees: degrees)) }
        say(t("facing.set", word))
    }

    /// 0 → "north", 45 → "north-east", … from the phrase table.
    static func compassWord(_ degrees: Double, table: StringTable) -> String {
        let names = ["north", "north_east", "east", "south_east", "south", "south_west", "west", "north_west"]
        let index = Int(((degrees.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) / 45).rounded()) % 8
        return table("compass.\(names[index])")
    }

    // MARK: speaking

    func say(_ text: String, glyph: Glyph? = nil, action: QueueAction = .interruptAndClear) {
        processor.post(GenericAnnouncementEvent(text, glyph: glyph, action: action))
    }

    /// A problem (a settings file that could not be written): spoken after the read-back, and printed with it.
    func report(_ problem: String) {
        processor.post(GenericAnnouncementEvent(table("settings.problem", problem), glyph: .invalidFunction, action: .enqueue))
    }
}
