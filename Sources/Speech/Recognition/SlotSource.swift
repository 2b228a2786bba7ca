/// Supplies the phrases of a dynamic grammar rule (`<rule> = <VOID> {$source};`): places near the user,
/// saved markers, saved routes. The voice service asks again whenever ``SlotSource/revision`` changes.
public protocol SlotSource: Sendable {
    /// The source name used in the grammar: "places", "markers", "routes".
    var source: String { get }
    /// Changes whenever the phrases may have changed (e.g. the user moved 100 m, a marker was saved).
    func revision() async -> Int
    func phrases() async -> [SlotPhrase]
}

/// A fixed list of phrases (tests, `soundscape listen`, and marker or route names given at start-up).
public struct FixedSlotSource: SlotSource {
    public let source: String
    public let list: [SlotPhrase]

    public init(source: String, names: [String]) {
        self.source = source
        self.list = names.map(SlotPhrase.init(name:))
    }

    public func revision() async -> Int { 0 }
    public func phrases() async -> [SlotPhrase] { list }
}
