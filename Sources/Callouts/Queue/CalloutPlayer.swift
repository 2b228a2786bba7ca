import Foundation

/// One utterance as it is handed to the player, with where it is relative to the user at that moment.
public struct PlaybackItem: Sendable, Equatable {
    public var utterance: Utterance
    public var kind: CalloutKind
    /// True bearing from the user to what is spoken about, when it has a direction.
    public var bearing: Double?
    /// Metres from the user to it, for things on the map.
    public var distance: Double?
    /// When it started to play (the pipeline's clock).
    public var time: Date
    /// The group's label.
    public var group: String

    public init(utterance: Utterance, kind: CalloutKind, bearing: Double?, distance: Double?, time: Date, group: String) {
        self.utterance = utterance
        self.kind = kind
        self.bearing = bearing
        self.distance = distance
        self.time = time
        self.group = group
    }

    public var text: String { utterance.text }
}

/// Makes callouts heard. The Audio stage implements it (speech and earcons placed in 3-D); tests record.
public protocol CalloutPlayer: Sendable {
    /// Plays one item and returns when it has finished: true when it played to its end, false when it was
    /// stopped or failed.
    func play(_ item: PlaybackItem) async -> Bool
    /// Stops whatever is playing now (its `play` returns false); with `hush`, the hush earcon plays instead.
    func stop(hush: Bool) async
    /// An answer to the user that a newer one cleared from the queue before it could play: not spoken, but it
    /// must not vanish either (a text output shows it).
    func passOver(_ item: PlaybackItem)
}

extension CalloutPlayer {
    public func passOver(_ item: PlaybackItem) {}
}
