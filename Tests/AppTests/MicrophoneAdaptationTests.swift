import App
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
}
