import Foundation
import MapData
import Synchronization

/// What the recognizer learned about each microphone, kept between runs: the live cepstral mean its
/// decoders reached (``VoiceRecognizer/cepstralMean``). A new recognizer starts from the model's stock mean,
/// which fits no real microphone; given the kept one, the first command of a run is heard as well as the
/// later ones, and decoded once instead of twice.
///
/// One small JSON file, `$XDG_DATA_HOME/soundscape/microphones.json`, keyed by PulseAudio source name,
/// replaced whole on every save (write to a temporary file, then rename), so a crash leaves the old
/// file or the new one, never half of one.
public struct MicrophoneAdaptationStore: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    struct File: Codable, Equatable {
        struct Microphone: Codable, Equatable {
            var cepstralMean: [Float]
        }
        var microphones: [String: Microphone] = [:]
    }

    public struct ReadError: Error, CustomStringConvertible {
        public var description: String
    }

    private func read() throws -> File {
        guard FileManager.default.fileExists(atPath: path) else { return File() }
        do {
            return try JSONDecoder().decode(File.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch let error as DecodingError {
            throw ReadError(description: "\(path) is not a microphone adaptation file (\(Self.explain(error))); starting from the model's defaults")
        } catch {
            throw ReadError(description: "cannot read \(path) (\(error.localizedDescription)); starting from the model's defaults")
        }
    }

    /// The cepstral mean kept for `microphone`, nil when there is none. Throws when the file is unreadable
    /// or malformed, naming the file.
    public func cepstralMean(for microphone: String) throws -> [Float]? {
        try read().microphones[microphone]?.cepstralMean
    }

    /// Keeps `mean` for `microphone`, beside the other microphones' (a malformed file is replaced).
    public func save(_ mean: [Float], for microphone: String) throws {
        guard !mean.isEmpty, mean.allSatisfy(\.isFinite) else { return }
        var file = (try? read()) ?? File()
        file.microphones[microphone] = .init(cepstralMean: mean)
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(file).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    private static func explain(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let c), .keyNotFound(_, let c), .typeMismatch(_, let c), .valueNotFound(_, let c):
            let at = c.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return at.isEmpty ? c.debugDescription : "at \(at): \(c.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// Keeps the recognizer's adaptation under the name of the microphone it was learned from, as that microphone
/// changes during a run (voice input follows the default source: ``PulseMicrophone``).
///
/// ``save(_:)`` is called on the listener's thread after each utterance, and ``switchedTo(_:)`` on the same thread
/// when the microphone moves to another source, so a mean is filed under the microphone that heard it (an
/// utterance during which the microphone changed counts as the new one's).
final class MicrophoneAdaptationKeeper: Sendable {
    let store: MicrophoneAdaptationStore
    /// nil until the microphone is known (``switchedTo(_:)``).
    private let current = Mutex<String?>(nil)

    init(store: MicrophoneAdaptationStore) { self.store = store }

    /// The microphone whose adaptation is being learned.
    var microphone: String? { current.withLock { $0 } }

    /// Keeps `mean` for the current microphone (nothing before one is known).
    func save(_ mean: [Float]) throws {
        guard let microphone else { return }
        try store.save(mean, for: microphone)
    }

    /// The microphone is now `name` (the first call names the one the run starts with). Returns what was kept for
    /// it, when it is another microphone and something was kept (start the recognizer from that); nil otherwise
    /// (it goes on from what it has, which it adapts live). Throws when the file cannot be read, naming it; the
    /// microphone has changed all the same.
    func switchedTo(_ name: String) throws -> [Float]? {
        let changed = current.withLock { old -> Bool in
            defer { old = name }
            return old != name
        }
        return changed ? try store.cepstralMean(for: name) : nil
    }
}
