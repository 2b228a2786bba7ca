import Audio
import Foundation
import Speech
import Testing

@Suite("PocketSphinx with the en-us model")
struct SpeechRecognitionSmokeTests {
    static let grammar = """
        #JSGF V1.0;
        grammar smoke;
        <place> = library | train station | pharmacy | city park;
        public <command> = where am i | what's ahead | around me | set beacon on <place> | mute beacon | repeat;
        """

    /// espeak-ng speaks `text` into a WAV; sox turns it into 16 kHz mono with 0.3 s of padding and a faint
    /// noise floor (exact digital silence derails PocketSphinx, and real microphones always have some noise).
    static func utterance(_ text: String, voice: String = "en-us", in dir: URL) throws -> URL {
        let raw = dir.appendingPathComponent("raw.wav").path
        let clean = dir.appendingPathComponent("clean.wav").path
        let noise = dir.appendingPathComponent("noise.wav").path
        let out = dir.appendingPathComponent("utterance.wav")
        try run("espeak-ng", ["-v", voice, "-w", raw, text])
        try run("sox", [raw, "-r", "16000", "-c", "1", "-b", "16", clean, "gain", "-1", "pad", "0.3", "0.3"])
        let seconds = try run("soxi", ["-D", clean]).trimmingCharacters(in: .whitespacesAndNewlines)
        try run("sox", ["-n", "-r", "16000", "-c", "1", "-b", "16", noise, "synth", seconds, "whitenoise", "vol", "0.003"])
        try run("sox", ["-m", clean, noise, out.path])
        return out
    }

    @Test(arguments: ["where am i", "set beacon on train station", "what's ahead"])
    func decodesWhatEspeakSaid(_ sentence: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = try WAVFile.read(Self.utterance(sentence, in: dir).path)
        #expect(wav.sampleRate == 16_000 && wav.channels == 1)
        let decoder = try PocketSphinxDecoder()
        try decoder.useGrammar(jsgf: Self.grammar)
        let hypothesis = try decoder.decode(wav.int16Samples)
        #expect(hypothesis.text == sentence)
        #expect(hypothesis.frames > 50)
    }

    @Test func aGrammarWithAnUnknownWordFailsWithPocketSphinxsReason() throws {
        let decoder = try PocketSphinxDecoder()
        let bad = "#JSGF V1.0;\ngrammar bad;\npublic <c> = take me to kauppatorix;\n"
        do {
            try decoder.useGrammar(jsgf: bad, name: "bad")
            Issue.record("a grammar with a word missing from the dictionary must not load")
        } catch let error as RecognitionError {
            #expect(error.message.contains("kauppatorix"), "message: \(error.message)")
        }
        // Adding the word with its phones makes the same grammar load.
        try decoder.addWord("kauppatorix", phones: "K AW P AH T AO R IH K S")
        #expect(decoder.knows("kauppatorix"))
        try decoder.useGrammar(jsgf: bad, name: "bad")
    }

    @Test func reportsAMissingModelPlainly() {
        let model = AcousticModel(modelDirectory: "/nonexistent/en-us", dictionary: "/nonexistent/dict")
        #expect(throws: RecognitionError.self) { _ = try PocketSphinxDecoder(model: model) }
        #expect(model.missingFiles.count == 6)
    }
}
