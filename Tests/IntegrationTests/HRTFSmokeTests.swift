import Audio
import Foundation
import Testing

@Suite("libmysofa with the MIT KEMAR SOFA file")
struct HRTFSmokeTests {
    @Test func azimuth90IsLouderInTheRightEar() throws {
        let hrtf = try SOFAHRTF(path: SOFAHRTF.debianDefaultPath, sampleRate: 48_000)
        // KEMAR has 512 taps at 44.1 kHz; resampled to 48 kHz that is 558.
        #expect(hrtf.filterLength == 558)
        let right = hrtf.filter(azimuth: 90)
        let ild = 10 * log10(right.rightEnergy / right.leftEnergy)
        #expect(ild > 6, "interaural level difference at +90° was \(ild) dB")
        let left = hrtf.filter(azimuth: 270)
        #expect(10 * log10(left.leftEnergy / left.rightEnergy) > 6)
        let front = hrtf.filter(azimuth: 0)
        #expect(abs(10 * log10(front.leftEnergy / front.rightEnergy)) < 3, "straight ahead should be nearly balanced")
    }

    @Test func theRightEarHearsA90DegreeSourceFirst() throws {
        let hrtf = try SOFAHRTF()
        let pair = hrtf.filter(azimuth: 90)
        func onset(_ ir: [Float]) -> Int {
            let peak = ir.map(abs).max() ?? 0
            return ir.firstIndex { abs($0) > peak * 0.2 } ?? 0
        }
        #expect(onset(pair.right) + Int(pair.rightDelay * 48_000) < onset(pair.left) + Int(pair.leftDelay * 48_000))
    }

    @Test func aFileThatIsNotSOFAIsRejectedByPath() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bogus = dir.appendingPathComponent("not-an-hrtf.sofa")
        try Data("hello".utf8).write(to: bogus)
        do {
            _ = try SOFAHRTF(path: bogus.path)
            Issue.record("a text file must not load as an HRTF")
        } catch let error as HRTFError {
            #expect(error.description.contains(bogus.path))
        }
    }
}
