import Callouts
import Foundation
import Geo
import Location
import MapData

/// Street Preview's commands (spec §7.4, §16): move the virtual walker.
public struct PreviewCommandEvent: UserInitiatedEvent {
    public enum Command: String, Sendable, Equatable {
        /// Along the road ahead to the next intersection.
        case forward
        case turnLeft = "turn_left"
        case turnRight = "turn_right"
        case turnAround = "turn_around"
        /// To where the walker stood before its last move.
        case back
    }
    public var command: Command
    public init(_ command: Command) { self.command = command }
}

/// Street Preview (spec §1.4, §7.4): a virtual walker on the roads of the map, moved by voice from intersection to
/// intersection. Each place it reaches is fed into the pipeline as a location update (``LocationUpdatedEvent``
/// with `isPreview`), so the default behavior's generators give the intersection and place callouts a walk would
/// give there, and "where am I" and "what's ahead" answer for it. The App keeps real fixes out of the pipeline
/// while it is active and puts the real position back when it ends.
public final class PreviewBehavior: Behavior {
    public static let behaviorName = "Street Preview"
    private let generator: PreviewGenerator

    /// - Parameter walker: the walker, standing where the preview starts.
    public init(walker: StreetPreviewWalker) {
        generator = PreviewGenerator(walker: walker)
        super.init(name: Self.behaviorName)
        manualGenerators = [generator]
        autoGenerators = [generator]
    }

    public override var helpKeys: [String] { ["help.preview"] }

    /// The location update that puts the user where the walker stands now (for
    /// ``EventProcessor/activateCustom(_:at:)``).
    public func startingPosition(now: Date) -> LocationUpdatedEvent {
        PreviewGenerator.update(at: generator.walker.position.coordinate, heading: generator.walker.position.heading, now: now)
    }
}
