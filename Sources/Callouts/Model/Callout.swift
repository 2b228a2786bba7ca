import Foundation
import Geo

/// What a callout is about; shown in transcripts and `say --json`.
public enum CalloutKind: String, Sendable, Codable, CaseIterable {
    case poi, intersection, location, exploration, beacon, marker, system, departure
}

/// One thing to say. A callout keeps what it is about (a place, a road, an intersection), and becomes words
/// only when it is played (`render`), from where the user is at that moment: a queued "Stockmann, 40 meters"
/// is said with the distance of when it is heard, not of when it was queued.
public struct Callout: Sendable, Identifiable {
    public let id: UUID
    public var kind: CalloutKind
    /// The map feature or thing it is about (a feature key, "beacon", …), for de-duplication.
    public var subject: String?
    /// Kept in the 10-item history that "repeat" reads (places, intersections, locations naming a road or place).
    public var includeInHistory: Bool
    private let renderer: @Sendable (CalloutContext) -> [Utterance]

    public init(kind: CalloutKind, subject: String? = nil, includeInHistory: Bool = false,
                render: @escaping @Sendable (CalloutContext) -> [Utterance]) {
        self.id = UUID()
        self.kind = kind
        self.subject = subject
        self.includeInHistory = includeInHistory
        self.renderer = render
    }

    public func render(_ context: CalloutContext) -> [Utterance] { renderer(context) }

    /// A fixed sentence (and earcon) heard from `placement`.
    public static func text(_ text: String, glyph: Glyph? = nil, placement: Placement = .standard,
                            kind: CalloutKind = .system) -> Callout {
        Callout(kind: kind) { _ in [Utterance(text, glyph: glyph, placement: placement)] }
    }

    /// An earcon alone.
    public static func glyph(_ glyph: Glyph, placement: Placement = .standard) -> Callout {
        Callout(kind: .system) { _ in [Utterance.glyph(glyph, placement: placement)] }
    }
}
