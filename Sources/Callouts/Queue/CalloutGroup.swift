import Foundation
import Geo

/// Callouts that are played together, with how they join the queue and hooks around their playing
/// (spec §1.5).
public struct CalloutGroup: Sendable, Identifiable {
    public let id: UUID
    public var callouts: [Callout]
    public var action: QueueAction
    /// Played before the callouts.
    public var prefix: Callout?
    /// The mode-enter earcon before the group and the mode-exit earcon after it (exploration).
    public var playModeSounds: Bool
    /// Seconds of silence after each callout (0.75 for automatic callouts).
    public var calloutDelay: Double
    /// For "repeat": the callouts speak as a repeat, from this position.
    public var repeatingFrom: Coordinate?
    /// What produced the group ("exploration.around_me", "auto.poi"…): lets a generator recognise its own
    /// group while it plays, and names it in logs.
    public var label: String

    /// Asked when the group reaches the head of the queue; false drops the whole group.
    public var isValid: @Sendable () -> Bool
    /// Asked just before each callout plays; false skips that callout ("region to live").
    public var isWithinRegionToLive: @Sendable (Callout, CalloutContext) -> Bool
    public var onStart: @Sendable () -> Void
    /// After the group: true when every callout played to its end, false when it was interrupted or failed.
    public var onComplete: @Sendable (Bool) -> Void
    /// A callout was skipped (region to live) or cut off (interrupted, or dropped with its group).
    public var onCalloutSkipped: @Sendable (Callout) -> Void
    /// The group left the queue without playing (cleared or invalid).
    public var onSkipped: @Sendable () -> Void

    public init(_ callouts: [Callout], action: QueueAction = .enqueue, label: String = "", prefix: Callout? = nil,
                playModeSounds: Bool = false, calloutDelay: Double = 0, repeatingFrom: Coordinate? = nil,
                isValid: @escaping @Sendable () -> Bool = { true },
                isWithinRegionToLive: @escaping @Sendable (Callout, CalloutContext) -> Bool = { _, _ in true },
                onStart: @escaping @Sendable () -> Void = {},
                onComplete: @escaping @Sendable (Bool) -> Void = { _ in },
                onCalloutSkipped: @escaping @Sendable (Callout) -> Void = { _ in },
                onSkipped: @escaping @Sendable () -> Void = {}) {
        self.id = UUID()
        self.callouts = callouts
        self.action = action
        self.label = label
        self.prefix = prefix
        self.playModeSounds = playModeSounds
        self.calloutDelay = calloutDelay
        self.repeatingFrom = repeatingFrom
        self.isValid = isValid
        self.isWithinRegionToLive = isWithinRegionToLive
        self.onStart = onStart
        self.onComplete = onComplete
        self.onCalloutSkipped = onCalloutSkipped
        self.onSkipped = onSkipped
    }
}
