import Callouts

/// The user's settings the generators read and change (spec §8). Owned by the ``EventProcessor``; generators
/// get it through their context, inside the processor's isolation.
public final class CalloutSettings {
    /// "Allow callouts": the master switch of automatic callouts.
    public var automaticCallouts = true
    /// Places and landmarks sense.
    public var placesAndLandmarks = true
    /// Mobility sense: bus stops, crossings, intersections, safety.
    public var mobility = true
    /// Distance updates of the audio beacon.
    public var beaconDistance = true
    public var units: UnitSystem = .metric

    public init() {}
}
