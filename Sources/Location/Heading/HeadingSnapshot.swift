import Foundation
import Synchronization

/// The latest resolved headings, readable from the audio render thread without locks or allocation.
///
/// Each heading is one `Atomic<UInt64>` holding the bit pattern of a `Double`; a NaN pattern means "no heading".
/// Writers (``GeolocationManager``) store with release ordering, readers load with acquire ordering. The two
/// headings are independent words: a reader may see a new presentation heading with an old beacon heading for one
/// render period, which is harmless.
public final class HeadingSnapshot: Sendable {
    private static let none = Double.nan.bitPattern
    private let presentationBits = Atomic<UInt64>(HeadingSnapshot.none)
    private let beaconBits = Atomic<UInt64>(HeadingSnapshot.none)
    private let updates = Atomic<UInt64>(0)

    public init() {}

    /// Heading for the 3-D listener (spec §2.2 presentation order), degrees true; nil when there is none —
    /// the renderer then keeps its last orientation (initially north).
    public var presentation: Double? { Self.decode(presentationBits.load(ordering: .acquiring)) }
    /// Heading for choosing the beacon component (spec §2.2 beacon order); nil when none (the beacon is dimmed).
    public var beacon: Double? { Self.decode(beaconBits.load(ordering: .acquiring)) }
    /// How many times the snapshot was written; lets a reader notice a change cheaply.
    public var generation: UInt64 { updates.load(ordering: .acquiring) }

    /// Writes both headings (nil clears one).
    public func store(presentation: Double?, beacon: Double?) {
        presentationBits.store(Self.encode(presentation), ordering: .releasing)
        beaconBits.store(Self.encode(beacon), ordering: .releasing)
        updates.add(1, ordering: .releasing)
    }

    static func encode(_ value: Double?) -> UInt64 {
        guard let value, value.isFinite else { return none }
        return value.bitPattern
    }

    static func decode(_ bits: UInt64) -> Double? {
        let value = Double(bitPattern: bits)
        return value.isNaN ? nil : value
    }
}
