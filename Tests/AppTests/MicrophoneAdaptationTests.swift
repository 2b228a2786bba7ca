@testable import App
import Foundation
import Testing

@Suite struct MicrophoneAdaptationTests {
    func store() -> MicrophoneAdaptationStore {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("microphones-\(UUID().uuidString)")
        // The folder does not exist yet: the first save makes it.
        return MicrophoneAdaptationStore(path: dir.appendingPathComponent("soundscape/microphones.json").path)
    }

    @Test func eachMicrophoneKeepsItsOwnMean() throws {
        let store = store()
        #expect(try store.cepstralMean(for: "headset") == nil)
        let headset: [Float] = [52.5, -3.25, 0.5, 4, 1, -2, -1, -1.5, -4, -2, -6, -1, 1]
        let laptop: [Float] = [38, -6, 0, 5, 2.5, -4, -1, -2, -5, -2, -6.5, -1.5, 1.25]
        try store.save(headset, for: "headset")
        try store.save(laptop, for: "alsa_input.pci-0000_00_1f.3.analog-stereo")
        try store.save(headset.map { $0 + 1 }, for: "headset")   // a later run on the same microphone
        #expect(try store.cepstralMean(for: "headset") == headset.map { $0 + 1 })
        #expect(try store.cepstralMean(for: "alsa_input.pci-0000_00_1f.3.analog-stereo") == laptop)
        #expect(try store.cepstralMean(for: "bluetooth") == nil)
    }

    @Test func aMalformedFileIsNamedAndReplacedByTheNextSave() throws {
        let store = store()
        try FileManager.default.createDirectory(atPath: (store.path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try #"{"microphones": {"headset": {"cepstralMean": "loud"}}}"#.write(toFile: store.path, atomically: true, encoding: .utf8)
        do {
            _ = try store.cepstralMean(for: "headset")
            Issue.record("a malformed file was read")
        } catch {
            let message = "\(error)"
            #expect(message.contains(store.path) && message.contains("microphones.headset.cepstralMean"), "\(message)")
        }
        try store.save([40, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], for: "headset")
        #expect(try store.cepstralMean(for: "headset")?.first == 40)
    }

    @Test func aMeanThatIsNotFiniteIsNotKept() throws {
        let store = store()
        try store.save([1, 2, 3], for: "headset")
        try store.save([.nan, 2, 3], for: "headset")
        #expect(try store.cepstralMean(for: "headset") == [1, 2, 3])
    }

    /// Voice input moved from the headset to the laptop's microphone: the laptop's kept mean is handed over once,
    /// and what is learned from then on is kept for the laptop, leaving the headset's as it was.
    @Test func aSwitchHandsOverTheNewMicrophonesMeanAndFilesWhatFollowsUnderIt() throws {
        let store = store()
        let headset: [Float] = [52.5, -3.25, 0.5, 4, 1, -2, -1, -1.5, -4, -2, -6, -1, 1]
        let laptop: [Float] = [38, -6, 0, 5, 2.5, -4, -1, -2, -5, -2, -6.5, -1.5, 1.25]
        try store.save(laptop, for: "laptop")
        let keeper = MicrophoneAdaptationKeeper(store: store)
        try keeper.save(headset)
        #expect(try store.cepstralMean(for: "headset") == nil, "nothing is kept before the microphone is known")
        #expect(try keeper.switchedTo("headset") == nil, "nothing kept yet for the first microphone")
        try keeper.save(headset)
        #expect(try keeper.switchedTo("headset") == nil, "the same microphone hands nothing over")
        #expect(try keeper.switchedTo("laptop") == laptop)
        #expect(keeper.microphone == "laptop")
        #expect(try keeper.switchedTo("laptop") == nil, "told twice, it hands the mean over once")
        try keeper.save(laptop.map { $0 - 1 })
        #expect(try store.cepstralMean(for: "laptop") == laptop.map { $0 - 1 })
        #expect(try store.cepstralMean(for: "headset") == headset)
        // The next run, starting on the laptop's microphone, starts from what was kept for it.
        #expect(try MicrophoneAdaptationKeeper(store: store).switchedTo("laptop") == laptop.map { $0 - 1 })
        // A microphone with nothing kept: the recognizer goes on from what it has.
        #expect(try keeper.switchedTo("bluetooth") == nil)
        #expect(keeper.microphone == "bluetooth")
    }
}
