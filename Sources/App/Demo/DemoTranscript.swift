import Foundation
import Synchronization

/// The demo's transcript, printed as it goes: what the walker said and what the recognizer heard, every
/// reply and callout with the direction it is heard from, and the beacon's state. Times are the times in
/// the recording (what a listener of the WAV hears), `mm:ss`. With `json`, one object a line.
public final class DemoTranscript: Sendable {
    /// One line of the transcript (also its JSON form).
    public struct Entry: Sendable, Codable, Equatable {
        /// "command", "reply", "beacon", "problem" or "summary".
        public var kind: String
        /// Seconds into the recording where it starts, and where its sound ends.
        public var time: Double
        public var end: Double?
        /// command: the words synthesized; reply/problem: the words spoken.
        public var text: String?
        /// command: what the recognizer heard, its intent and slots, its confidence; or why it was rejected.
        public var heard: String?
        public var intent: String?
        public var slots: [String: String]?
        public var confidence: Double?
        public var rejected: Bool?
        public var reason: String?
        /// reply: where it is heard from, relative to the walker ("ahead_left"), and the true bearing.
        public var direction: String?
        public var bearing: Double?
        /// The walker's heading at the time (degrees from north), when walking.
        public var heading: Double?
        /// beacon: "on", "muted" or "off"; and where it is.
        public var state: String?
        public var place: String?
        /// summary: the WAV written and its length in seconds.
        public var output: String?
        public var seconds: Double?
        public var recognized: Int?
        public var commands: Int?

        public init(kind: String, time: Double) {
            self.kind = kind
            self.time = time
        }
    }

    private let json: Bool
    private let printLine: @Sendable (String) -> Void
    private let stored = Mutex<[Entry]>([])

    public init(json: Bool, printLine: @escaping @Sendable (String) -> Void = printReply) {
        self.json = json
        self.printLine = printLine
    }

    public var entries: [Entry] { stored.withLock { $0 } }

    public func add(_ entry: Entry) {
        var e = entry
        e.time = Self.round(e.time, 1000)
        e.end = e.end.map { Self.round($0, 1000) }
        e.confidence = e.confidence.map { Self.round($0, 100) }
        e.bearing = e.bearing.map { Self.round($0, 10) }
        e.heading = e.heading.map { Self.round($0, 10) }
        stored.withLock { $0.append(e) }
        printLine(json ? Self.json(e) : Self.text(e))
    }

    static func round(_ v: Double, _ scale: Double) -> Double { (v * scale).rounded() / scale }

    static func json(_ e: Entry) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(e)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    static func text(_ e: Entry) -> String {
        let at = "[\(DemoScript.format(e.time))]"
        switch e.kind {
        case "command":
            let said = "\(at) you: \"\(e.text ?? "")\""
            if let intent = e.intent {
                let slots = (e.slots ?? [:]).sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
                return "\(said) → heard: \(intent)\(slots) (\(String(format: "%.2f", e.confidence ?? 0)))"
            }
            let heard = (e.heard ?? "").isEmpty ? "" : "; heard \"\(e.heard!)\""
            return "\(said) → not understood (\(e.reason ?? "rejected")\(heard))"
        case "reply":
            let direction = e.direction.map { " (\($0.replacingOccurrences(of: "_", with: " ")))" } ?? ""
            return "\(at) soundscape: \(e.text ?? "")\(direction)"
        case "beacon":
            return "\(at) beacon: \(e.state ?? "?")\(e.place.map { " (\($0))" } ?? "")"
        case "problem":
            return "\(at) Problem: \(e.text ?? "")"
        case "summary":
            return "wrote \(e.output ?? "?"): \(DemoScript.format(e.seconds ?? 0)) of 48 kHz binaural stereo; "
                + "\(e.recognized ?? 0) of \(e.commands ?? 0) commands understood"
        default:
            return "\(at) \(e.text ?? "")"
        }
    }
}
