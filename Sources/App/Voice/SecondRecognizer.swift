import Foundation
import Speech

/// The neural second recognizer as the program sets it up: the transcriber (Whisper in the product), the speech
/// model's dictionary with Models/extra.dict for snapping, and the decision's thresholds. `run` and `listen` share it.
public enum SecondRecognizer {
    /// Whisper through libsoundscape-whisper.so, with the tiny.en model, both where scripts/setup puts them
    /// (`$SOUNDSCAPE_DATA/whisper/`); throws a ``WhisperError`` naming the file and the fix when they are missing,
    /// damaged or of another version. It computes on two threads while the machine has a core to spare, else on one
    /// (``SpareCoreThreads``).
    public static func defaultTranscriber(paths: ProjectPaths) throws -> (any Transcriber)? {
        try WhisperTranscriber(library: paths.whisperLibrary().path, model: paths.whisperModel().path, threads: SpareCoreThreads())
    }

    /// The second opinion, or nil and the problem to say once: "PocketSphinx alone decides" (spoken and printed by the caller).
    public static func load(paths: ProjectPaths, model: AcousticModel = .debianEnglish, everyUtterance: Bool = true,
                            promptLimit: Int = SecondOpinion.standardPromptLimit, searchCount: Int = SecondOpinion.standardSearchCount,
                            transcriber make: (ProjectPaths) throws -> (any Transcriber)? = defaultTranscriber)
        -> (secondOpinion: SecondOpinion?, problem: String?) {
        let transcriber: any Transcriber
        do {
            guard let made = try make(paths) else { return (nil, nil) }
            transcriber = made
        } catch {
            return (nil, "\(error); PocketSphinx alone decides what you said, and it mistakes more in noise")
        }
        do {
            let extra = (try? ExtraDictionary.words(paths.extraDictionary.path)) ?? []
            let dictionary = try PhoneDictionary(contentsOf: model.dictionary, extra: extra)
            return (SecondOpinion(transcriber: transcriber, dictionary: dictionary, everyUtterance: everyUtterance,
                                  promptLimit: promptLimit, searchCount: searchCount), nil)
        } catch {
            return (nil, "cannot read the pronunciation dictionary \(model.dictionary) (\(error.localizedDescription)); "
                + "PocketSphinx alone decides what you said; reinstall pocketsphinx-en-us")
        }
    }
}
