import Audio
import Behaviors
import Callouts
import Foundation
import Geo

/// Plays the pipeline's callouts through a ``ReplyOutput`` (the audio engine, or print only) and prints each
/// one as it is heard (and an answer that a newer one cleared before it played, when it is cleared): its
/// words, or one JSON object a line for `say --json`.
public struct CalloutOutputPlayer: CalloutPlayer {
    public enum Format: Sendable {
        /// The words, one line per utterance.
        case text
        /// One JSON object per utterance with words: text, kind, soundType, bearing, distance, glyph, time.
        case json
        /// Nothing printed.
        case none
    }

    let output: any ReplyOutput
    let format: Format
    let printLine: @Sendable (String) -> Void

    public init(output: any ReplyOutput, format: Format = .text, printLine: @escaping @Sendable (String) -> Void = printReply) {
        self.output = output
        self.format = format
        self.printLine = printLine
    }

    public func play(_ item: PlaybackItem) async -> Bool {
        show(item)
        return await output.play(Self.reply(item.utterance), group: item.group)
    }

    /// Printed like a reply that plays: whoever reads the output misses nothing.
    public func passOver(_ item: PlaybackItem) {
        show(item)
    }

    private func show(_ item: PlaybackItem) {
        // Replies and problems of the reply output were printed when they were said.
        guard !item.text.isEmpty, !Self.printedWhenSaid.contains(item.group) else { return }
        switch format {
        case .text: printLine(item.text)
        case .json: printLine(Self.json(item))
        case .none: break
        }
    }

    public func stop(hush: Bool) async {
        await output.stop(hush: hush)
    }

    static func reply(_ utterance: Utterance) -> Reply {
        Reply(utterance.text, earcon: utterance.glyph.flatMap { Earcon(rawValue: $0.rawValue) },
              soundType: soundType(utterance.placement))
    }

    static let printedWhenSaid: Set<String> = [EngineReplyOutput.replyLabel, EngineReplyOutput.problemLabel]

    static func placement(_ soundType: SoundType) -> Placement {
        switch soundType {
        case .standard: .standard
        case .localized(let c): .localized(c)
        case .relative(let d): .relative(d)
        case .compass(let b): .compass(b)
        }
    }

    static func soundType(_ placement: Placement) -> SoundType {
        switch placement {
        case .standard: .standard
        case .localized(let c): .localized(c)
        case .relative(let d): .relative(d)
        case .compass(let b): .compass(b)
        }
    }

    struct Line: Encodable {
        var text: String
        var kind: String
        var soundType: String
        var bearing: Double?
        var distance: Double?
        var glyph: String?
        var group: String

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(text, forKey: .text)
            try c.encode(kind, forKey: .kind)
            try c.encode(soundType, forKey: .soundType)
            try c.encode(bearing, forKey: .bearing)
            try c.encode(distance, forKey: .distance)
            try c.encode(glyph, forKey: .glyph)
            try c.encode(group, forKey: .group)
        }
        enum CodingKeys: String, CodingKey { case text, kind, soundType, bearing, distance, glyph, group }
    }

    /// `{"bearing":123.4,"distance":41.2,"glyph":"sense_poi","group":"exploration.around_me","kind":"poi","soundType":"localized","text":"…"}`
    public static func json(_ item: PlaybackItem) -> String {
        func round1(_ v: Double?) -> Double? { v.map { ($0 * 10).rounded() / 10 } }
        let line = Line(text: item.text, kind: item.kind.rawValue, soundType: item.utterance.placement.name,
                        bearing: round1(item.bearing), distance: round1(item.distance),
                        glyph: item.utterance.glyph?.rawValue, group: item.group)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(line)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
