import Foundation

/// One measured figure for `soundscape-bench`, with the target an issue sets for it.
struct BenchFigure: Sendable {
    var name: String
    var value: Double
    var unit: String
    /// The target as text, e.g. "≤ 2 ms"; nil when the figure is informative only.
    var target: String?
    /// Whether the value meets the target (nil when there is none).
    var met: Bool?

    init(_ name: String, _ value: Double, _ unit: String, target: String? = nil, met: Bool? = nil) {
        self.name = name
        self.value = value
        self.unit = unit
        self.target = target
        self.met = met
    }

    /// A figure from a stage's own benchmark, whose target is text such as "<= 25" or ">= 10" (or "-").
    init(audio figure: (name: String, value: Double, unit: String, target: String)) {
        let target = figure.target.trimmingCharacters(in: .whitespaces)
        if target.hasPrefix("<="), let limit = Double(target.dropFirst(2).trimmingCharacters(in: .whitespaces)) {
            self = .atMost(figure.name, figure.value, figure.unit, limit)
        } else if target.hasPrefix(">="), let limit = Double(target.dropFirst(2).trimmingCharacters(in: .whitespaces)) {
            self = .atLeast(figure.name, figure.value, figure.unit, limit)
        } else {
            self.init(figure.name, figure.value, figure.unit)
        }
    }

    /// A figure that must be at most `limit`.
    static func atMost(_ name: String, _ value: Double, _ unit: String, _ limit: Double) -> BenchFigure {
        BenchFigure(name, value, unit, target: "≤ \(format(limit)) \(unit)", met: value <= limit)
    }

    /// A figure that must be at least `limit`.
    static func atLeast(_ name: String, _ value: Double, _ unit: String, _ limit: Double) -> BenchFigure {
        BenchFigure(name, value, unit, target: "≥ \(format(limit)) \(unit)", met: value >= limit)
    }

    static func format(_ v: Double) -> String {
        if v == v.rounded() && abs(v) < 1e9 { return String(Int(v)) }
        if abs(v) >= 100 { return String(format: "%.0f", v) }
        if abs(v) >= 1 { return String(format: "%.2f", v) }
        return String(format: "%.3g", v)
    }
}

/// Percentiles of a sample of measurements.
struct Percentiles {
    var sorted: [Double]
    init(_ values: [Double]) { sorted = values.sorted() }
    func at(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let index = min(sorted.count - 1, max(0, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))
        return sorted[index]
    }
}

enum BenchTable {
    static func render(_ figures: [BenchFigure]) -> String {
        let nameWidth = max(6, figures.map(\.name.count).max() ?? 0)
        var lines = ["figure".padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  " + "value".padding(toLength: 22, withPad: " ", startingAt: 0) + "  target                result"]
        lines.append(String(repeating: "-", count: nameWidth + 62))
        for f in figures {
            let value = "\(BenchFigure.format(f.value)) \(f.unit)"
            let result = f.met.map { $0 ? "met" : "MISSED" } ?? ""
            lines.append(f.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  "
                         + value.padding(toLength: 22, withPad: " ", startingAt: 0) + "  "
                         + (f.target ?? "").padding(toLength: 22, withPad: " ", startingAt: 0) + result)
        }
        return lines.joined(separator: "\n")
    }
}
