import Foundation
import Speech

/// The second recognizer (Whisper through libsoundscape-whisper.so) loads with its model. Without it voice commands
/// still work on PocketSphinx alone, so a problem is a warning, with the file and the fix.
public struct SecondRecognizerCheck: DoctorCheck {
    public let part = "Whisper"
    let library: URL
    let model: URL

    public init(library: URL, model: URL) {
        self.library = library
        self.model = model
    }

    public init(paths: ProjectPaths) {
        self.init(library: paths.whisperLibrary(), model: paths.whisperModel())
    }

    public func run() async -> DoctorResult {
        do {
            let transcriber = try WhisperTranscriber(library: library.path, model: model.path)
            return DoctorResult(part: part, status: .ok, detail: "Whisper (\(transcriber.modelDescription)) from \(model.path)")
        } catch {
            return DoctorResult(part: part, status: .warning,
                                detail: "\(error.problem); voice commands are heard by PocketSphinx alone",
                                fix: error.fix ?? "run `bash scripts/setup` (or `make run`), which builds whisper.cpp and converts the model")
        }
    }
}
