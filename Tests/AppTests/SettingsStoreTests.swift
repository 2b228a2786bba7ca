import App
import Foundation
import Testing

@Suite struct SettingsStoreTests {
    func tempFile(_ contents: String? = nil) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("config.toml").path
        if let contents { try contents.write(toFile: path, atomically: true, encoding: .utf8) }
        return path
    }

    @Test func noFileMeansDefaultsAndNoComplaint() throws {
        let loaded = SettingsStore(path: try tempFile()).load()
        #expect(loaded.settings == Settings())
        #expect(loaded.problems.isEmpty)
        #expect(loaded.settings.beaconOffDistance == 15)
    }

    @Test func valuesInTheFileApply() throws {
        let path = try tempFile("""
            units = "imperial"
            beacon_off_distance = 10
            beacon_ringing_angle = 8
            callouts = false
            voice = "en+f2"
            """)
        let loaded = SettingsStore(path: path).load()
        #expect(loaded.problems.isEmpty, "\(loaded.problems)")
        #expect(loaded.settings.units == .imperial)
        #expect(loaded.settings.beaconOffDistance == 10)
        #expect(loaded.settings.beaconRingingAngle == 8)
        #expect(loaded.settings.callouts == false)
        #expect(loaded.settings.voice == "en+f2")
    }

    @Test func anInvalidValueIsRejectedByNameAndTheRestStillApplies() throws {
        let path = try tempFile("""
            units = "imperial"
            beacon_off_distance = 55
            beacon_style = "Bagpipes"
            speech_rate = "fast"
            language = "de"
            """)
        let loaded = SettingsStore(path: path).load()
        #expect(loaded.settings.units == .imperial)
        #expect(loaded.settings.language == "de")
        #expect(loaded.settings.beaconOffDistance == 15)     // default kept
        #expect(loaded.settings.beaconStyle == "Chime")
        #expect(loaded.settings.speechRate == 175)
        #expect(loaded.problems.count == 3)
        let distance = try #require(loaded.problems.first { $0.contains("beacon_off_distance") })
        #expect(distance.contains("\(path):2:"))
        #expect(distance.contains("beacon_off_distance = 55 is not allowed"))
        #expect(distance.contains("a whole number from 0 to 50"))
        #expect(loaded.problems.contains { $0.contains("one of Chime, Marimba, Classic") })
        #expect(loaded.problems.contains { $0.contains("speech_rate = \"fast\"") })
    }

    @Test func aCorruptFileIsReportedWithItsLineAndDefaultsApply() throws {
        let path = try tempFile("units = \"metric\"\nbeacon_off_distance = \n")
        let loaded = SettingsStore(path: path).load()
        #expect(loaded.settings == Settings())
        #expect(loaded.problems.count == 1)
        #expect(loaded.problems[0].hasPrefix("\(path): line 2"), "\(loaded.problems)")
    }

    @Test func unknownKeysAreNamed() throws {
        let loaded = SettingsStore(path: try tempFile("beacon_volumn = 50\n")).load()
        #expect(loaded.problems == [loaded.problems[0]])
        #expect(loaded.problems[0].contains("unknown setting \"beacon_volumn\""))
    }

    @Test func savingRoundTripsAndUpdatesAreCheckedAndAtomic() throws {
        let path = try tempFile()
        let store = SettingsStore(path: path)
        var s = Settings()
        s.units = .imperial
        s.beaconOffDistance = 5
        s.placesAndLandmarks = false
        try store.save(s)
        #expect(store.load().settings == s)
        let updated = try store.update(s, key: "beacon_off_distance", to: .integer(20))
        #expect(updated.beaconOffDistance == 20)
        #expect(store.load().settings.beaconOffDistance == 20)
        #expect(throws: SettingError.self) { _ = try store.update(updated, key: "beacon_off_distance", to: .integer(55)) }
        #expect(store.load().settings.beaconOffDistance == 20)
        // Nothing but the settings file is left in its folder (the atomic write's temporary is gone).
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["config.toml"])
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("# Allowed values:"))
    }

    @Test func theDefaultPathFollowsXDG() {
        #expect(AppEnvironment.read(["XDG_CONFIG_HOME": "/x", "HOME": "/h"]).settingsFile == "/x/soundscape/config.toml")
        #expect(AppEnvironment.read(["HOME": "/h"]).settingsFile == "/h/.config/soundscape/config.toml")
    }
}
