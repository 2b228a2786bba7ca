import Foundation

/// Helpers for compass angles in degrees.
public enum Angle {
    /// `degrees` wrapped into [0, 360). Non-finite input yields NaN.
    public static func normalized(_ degrees: Double) -> Double {
        guard degrees.isFinite else { return .nan }
        var r = fmod(degrees, 360)
        if r < 0 { r += 360 }
        // Adding 360 to a tiny negative value can round to exactly 360.
        return r >= 360 ? 0 : r
    }

    /// Angle of a target at true `bearing` relative to someone facing `heading`:
    /// `(bearing - heading)` normalized to [0, 360); 0 = straight ahead, 90 = to the right.
    public static func relative(bearing: Double, heading: Double) -> Double {
        normalized(bearing - heading)
    }

    /// The shortest signed turn from `b` to `a`: `a - b` wrapped into (-180, 180].
    /// Positive means `a` is clockwise of `b`.
    public static func signedDifference(_ a: Double, _ b: Double) -> Double {
        let d = normalized(a - b)
        return d > 180 ? d - 360 : d
    }
}
