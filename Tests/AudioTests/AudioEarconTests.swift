@testable import Audio
import Foundation
import Testing

@Suite struct AudioEarconTests {
    static var soundsDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sounds")
    }

    @Test func synthesisIsDeterministic() {
        for e in Earcon.allCases { #expect(EarconSynthesizer.earcon(e) == EarconSynthesizer.earcon(e), "\(e)") }
        #expect(BeaconStyle.builtIn("Marimba")!.components == BeaconStyle.builtIn("Marimba")!.components)
    }

    @Test func earconsAreShortAndNeverClip() {
        for e in Earcon.allCases {
            let b = EarconSynthesizer.earcon(e)
            #expect(b.duration >= 0.15 && b.duration < 1.0, "\(e) lasts \(b.duration) s")
            let peak = b.samples.map(abs).max() ?? 0
            #expect(peak > 0.1 && peak < 0.95, "\(e) peaks at \(peak)")
            #expect(abs(b.samples.last ?? 1) < 1e-3, "\(e) must end in silence")
            #expect(!e.meaning.isEmpty)
        }
    }

    /// A rough fingerprint — loudness and brightness (zero crossings) every 20 ms — must differ
    /// clearly between every pair, so no two earcons can be mistaken for each other.
    @Test func earconsAreClearlyDistinguishable() {
        func fingerprint(_ x: [Float]) -> [(Float, Float)] {
            stride(from: 0, to: x.count, by: 960).map { start in
                let f = x[start..<min(x.count, start + 960)]
                let crossings = zip(f, f.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
                return (AudioTestSupport.rms(f), Float(crossings) / Float(f.count))
            }
        }
        let prints = Earcon.allCases.map { ($0, fingerprint(EarconSynthesizer.earcon($0).samples)) }
        for i in 0..<prints.count { for j in (i + 1)..<prints.count {
            let a = prints[i].1, b = prints[j].1
            let n = max(a.count, b.count)
            var d: Float = 0
            for k in 0..<n {
                let x = k < a.count ? a[k] : (0, 0), y = k < b.count ? b[k] : (0, 0)
                d += abs(x.0 - y.0) * 4 + abs(x.1 - y.1) * 8
            }
            #expect(d / Float(n) > 0.05, "\(prints[i].0) and \(prints[j].0) are too alike (\(d / Float(n)))")
        } }
    }

    /// The WAVs in Sounds/ are exactly what the synthesizer makes (`make sounds`), and small.
    @Test func committedWAVsMatchTheSynthesizer() throws {
        for e in Earcon.allCases {
            let url = Self.soundsDirectory.appendingPathComponent(e.rawValue + ".wav")
            let size = try #require(try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int, "\(url.path) missing: run make sounds")
            #expect(size < 100_000)
            let file = try WAVFile.read(url.path)
            let made = EarconSynthesizer.earcon(e)
            #expect(file.sampleRate == 48_000 && file.channels == 1 && file.frameCount == made.frameCount)
            #expect(zip(file.samples, made.samples).allSatisfy { abs($0 - $1) < 1.0 / 16_000 }, "\(e): run make sounds")
        }
    }

    @Test func libraryFallsBackToSynthesisAndReadsFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("earcons-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let paths = try EarconSynthesizer.writeAll(to: dir)
        // earcons + Chime(4+2) + Marimba(3+2) + Classic(2) + Pulse(4) + Drop(3) + Pluck(4) + Tap(3) + Shimmer(4) + Glow(3)
        #expect(paths.count == Earcon.allCases.count + 6 + 5 + 2 + 4 + 3 + 4 + 3 + 4 + 3)
        let fromFiles = EarconLibrary(directory: dir).buffer(for: .hush)
        let synthesized = EarconLibrary(directory: nil).buffer(for: .hush)
        #expect(fromFiles.frameCount == synthesized.frameCount)
        let style = try BeaconStyle.load(directory: dir + "/Beacons/Chime", beatsPerPhrase: 6)
        #expect(style.components.count == 4 && style.intro != nil && style.outro != nil)
        #expect(style.componentNames == ["center", "offset", "side", "behind"])
    }
}
