import Audio
import Foundation
import Testing

/// espeak-ng is process-wide: every test in this process shares one synthesizer.
let sharedSynthesizer: EspeakSynthesizer = {
    do { return try EspeakSynthesizer() } catch { fatalError("espeak-ng did not initialize: \(error)") }
}()

@Suite("espeak-ng, in process")
struct SpeechSynthesisSmokeTests {
    @Test func synthesizesASentenceIntoMemoryInChunks() throws {
        var chunks = 0
        var samples: [Int16] = []
        try sharedSynthesizer.synthesize("Coffee shop is about thirty meters ahead on your left.") { chunk in
            chunks += 1
            samples.append(contentsOf: chunk)
            return true
        }
        let audio = PCMBuffer(sampleRate: sharedSynthesizer.sampleRate, int16: samples)
        #expect(sharedSynthesizer.sampleRate == 22_050)
        #expect(chunks > 1, "espeak-ng should stream the sentence in several chunks")
        // Ten words at 175 words per minute last about three seconds.
        #expect(audio.duration > 1.5 && audio.duration < 6, "duration \(audio.duration) s")
        #expect(audio.rms() > 0.01, "the speech should not be silent")
    }

    @Test func stopsWhenTheSinkSaysSo() throws {
        var chunks = 0
        try sharedSynthesizer.synthesize("This sentence is long enough to need many chunks of audio to speak it all.") { _ in
            chunks += 1
            return false
        }
        #expect(chunks == 1)
    }

    @Test func escapedSSMLSpeaksMarkupCharactersInsteadOfParsingThem() throws {
        let plain = try sharedSynthesizer.synthesize(SSML.document(SSML.escape("Fish & Chips <Kamppi>")), ssml: true)
        #expect(PCMBuffer(sampleRate: 22_050, int16: plain).duration > 0.8)
        #expect(SSML.escape("a<b & 'c'") == "a&lt;b &amp; &apos;c&apos;")
    }

    @Test func rejectsAnUnknownVoiceByName() throws {
        #expect(throws: SpeechSynthesisError.unknownVoice("no-such-voice")) {
            _ = try sharedSynthesizer.synthesize("hello", voice: VoiceSettings(voice: "no-such-voice"))
        }
    }
}
