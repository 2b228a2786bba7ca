/// One sound of a callout: an optional earcon followed by optional words, both heard from one place.
public struct Utterance: Sendable, Equatable {
    public var text: String
    public var glyph: Glyph?
    public var placement: Placement

    public init(_ text: String, glyph: Glyph? = nil, placement: Placement = .standard) {
        self.text = text
        self.glyph = glyph
        self.placement = placement
    }

    /// An earcon alone.
    public static func glyph(_ glyph: Glyph, placement: Placement = .standard) -> Utterance {
        Utterance("", glyph: glyph, placement: placement)
    }
}
