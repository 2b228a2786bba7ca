import Foundation

public enum UnitSystem: String, Sendable, Codable, CaseIterable {
    case metric, imperial
}

/// Speaks distances the way Soundscape does: metres rounded to 5 m below 1 km, kilometres rounded to 50 m
/// above; feet rounded to 5 ft below 1000 ft, miles rounded to 50 ft above. The unit switches as soon as the
/// coarser rounding reaches 1000 (997 m is "1 kilometer", never "995 meters"). Up to two decimals, no
/// thousands separator, singular only for exactly 1.
public struct DistanceFormatter: Sendable {
    public var units: UnitSystem
    public var table: StringTable

    public init(units: UnitSystem = .metric, table: StringTable) {
        self.units = units
        self.table = table
    }

    public func string(meters: Double) -> String {
        let d = max(0, meters)
        switch units {
        case .metric:
            if (d / 50).rounded() * 50 < 1000 {
                let rounded = (d / 5).rounded() * 5
                return table(rounded == 1 ? "distance.meter" : "distance.meters", localized(rounded))
            }
            let km = ((d / 50).rounded() * 50) / 1000
            return table(km == 1 ? "distance.kilometer" : "distance.kilometers", localized(km))
        case .imperial:
            let feet = d / 0.3048
            if (feet / 50).rounded() * 50 < 1000 {
                let rounded = (feet / 5).rounded() * 5
                return table(rounded == 1 ? "distance.foot" : "distance.feet", localized(rounded))
            }
            let miles = ((feet / 50).rounded() * 50) / 5280
            let shown = (miles * 100).rounded() / 100
            return table(shown == 1 ? "distance.mile" : "distance.miles", localized(shown))
        }
    }

    /// The number as the language writes it (decimal comma in German).
    private func localized(_ v: Double) -> String {
        let s = Self.number(v)
        guard s.contains("."), table.keys.contains("number.decimal_separator") else { return s }
        return s.replacingOccurrences(of: ".", with: table("number.decimal_separator"))
    }

    /// 0–2 decimals, trailing zeros dropped, "." as the decimal point (espeak-ng reads it correctly).
    static func number(_ v: Double) -> String {
        let hundredths = (v * 100).rounded()
        if hundredths.truncatingRemainder(dividingBy: 100) == 0 { return String(Int(hundredths / 100)) }
        var s = String(format: "%.2f", hundredths / 100)
        while s.hasSuffix("0") { s.removeLast() }
        return s
    }
}
