import CEspeakNG
import Foundation
import Synchronization

/// Errors from the espeak-ng library, with the text that failed where it helps.
public enum SpeechSynthesisError: Error, CustomStringConvertible, Equatable {
    case initializationFailed(dataPath: String?)
    case anotherSynthesizerExists
    case unknownVoice(String)
    case synthesisFailed(code: Int32, text: String)

    public var description: String {
        switch self {
        case .initializationFailed(let path):
            return "espeak-ng could not start (data folder \(path ?? "default")); install the espeak-ng-data package"
        case .anotherSynthesizerExists:
            return "espeak-ng is a process-wide library: only one EspeakSynthesizer may exist at a time"
        case .unknownVoice(let v):
            return "espeak-ng has no voice named \"\(v)\" (list them with: espeak-ng --voices)"
        case .synthesisFailed(let code, let text):
            return "espeak-ng failed (error \(code)) while speaking \"\(text)\""
        }
    }
}

/// In-process espeak-ng text-to-speech, streamed chunk by chunk as it is synthesized.
///
/// espeak-ng keeps its state in process-wide variables, so this type guards against a second live
/// instance and serializes every call with a mutex. Create one in the composition root and pass it
/// to whoever needs speech.
public final class EspeakSynthesizer: Sendable {
    /// Output sample rate of espeak-ng's voices (22,050 Hz), mono signed 16-bit.
    public let sampleRate: Int
    private let lock = Mutex<VoiceSettings?>(nil)
    private static let live = Atomic<Bool>(false)

    public init(dataPath: String? = nil) throws {
        let (exchanged, _) = Self.live.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        guard exchanged else { throw SpeechSynthesisError.anotherSynthesizerExists }
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, dataPath, Int32(espeakINITIALIZE_DONT_EXIT))
        guard rate > 0 else {
            Self.live.store(false, ordering: .releasing)
            throw SpeechSynthesisError.initializationFailed(dataPath: dataPath)
        }
        sampleRate = Int(rate)
        espeak_SetSynthCallback(espeakCallback)
    }

    deinit {
        espeak_Terminate()
        Self.live.store(false, ordering: .releasing)
    }

    /// Synthesizes `text`, handing each chunk of samples to `onChunk` as soon as espeak-ng produces it.
    /// Return `false` from `onChunk` to stop early (barge-in). With `ssml` true, `text` must be SSML
    /// whose plain parts went through ``SSML/escape(_:)``; otherwise markup characters are spoken as text.
    public func synthesize(_ text: String, voice: VoiceSettings = VoiceSettings(), ssml: Bool = false,
                           onChunk: (UnsafeBufferPointer<Int16>) -> Bool) throws {
        try lock.withLock { current in
            if current != voice {
                guard espeak_SetVoiceByName(voice.voice) == EE_OK else { throw SpeechSynthesisError.unknownVoice(voice.voice) }
                espeak_SetParameter(espeakRATE, Int32(voice.rate), 0)
                espeak_SetParameter(espeakPITCH, Int32(voice.pitch), 0)
                espeak_SetParameter(espeakVOLUME, Int32(voice.volume), 0)
                current = voice
            }
            try withoutActuallyEscaping(onChunk) { sink in
                let box = ChunkSink(sink)
                let unmanaged = Unmanaged.passRetained(box)
                defer { unmanaged.release() }
                var flags = UInt32(espeakCHARS_UTF8)
                if ssml { flags |= UInt32(espeakSSML) }
                let result = text.withCString { ptr in
                    espeak_Synth(ptr, strlen(ptr) + 1, 0, POS_CHARACTER, 0, flags, nil, unmanaged.toOpaque())
                }
                guard result == EE_OK else { throw SpeechSynthesisError.synthesisFailed(code: Int32(result.rawValue), text: text) }
            }
        }
    }

    /// Synthesizes the whole of `text` into memory.
    public func synthesize(_ text: String, voice: VoiceSettings = VoiceSettings(), ssml: Bool = false) throws -> [Int16] {
        var samples: [Int16] = []
        try synthesize(text, voice: voice, ssml: ssml) { chunk in
            samples.append(contentsOf: chunk)
            return true
        }
        return samples
    }
}

/// Carries the caller's closure through espeak-ng's `user_data` pointer, so no global state is needed.
private final class ChunkSink {
    let sink: (UnsafeBufferPointer<Int16>) -> Bool
    init(_ sink: @escaping (UnsafeBufferPointer<Int16>) -> Bool) { self.sink = sink }
}

/// espeak-ng's synthesis callback: forwards samples to the `ChunkSink` named in the event's user data.
/// Returns 1 to abort synthesis.
private func espeakCallback(_ wav: UnsafeMutablePointer<Int16>?, _ count: Int32, _ events: UnsafeMutablePointer<espeak_EVENT>?) -> Int32 {
    guard let events, let raw = events.pointee.user_data else { return 0 }
    let box = Unmanaged<ChunkSink>.fromOpaque(raw).takeUnretainedValue()
    guard let wav, count > 0 else { return 0 }
    return box.sink(UnsafeBufferPointer(start: wav, count: Int(count))) ? 0 : 1
}
