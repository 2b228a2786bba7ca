import Foundation

/// The rows of `make fuzz`'s results (.build/fuzz-results.tsv: target, execs, seconds, crashes, artifact) as bench
/// figures: each fuzzer must run at least a million inputs without a crash.
enum FuzzResults {
    static let names = ["grammar": "grammar loader", "tile-json": "tile JSON", "gpsd-json": "gpsd JSON",
                        "nmea": "NMEA", "pbf-block": "PBF blocks"]

    static func figures(from path: String) throws -> [BenchFigure] {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw ValidationErrorText("\(path): cannot read the fuzz results (\(error.localizedDescription)); run `make fuzz` first")
        }
        var figures: [BenchFigure] = []
        for (index, line) in text.split(separator: "\n").enumerated() where index > 0 {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 4, let execs = Double(fields[1]), let seconds = Double(fields[2]), let crashes = Int(fields[3]) else {
                throw ValidationErrorText("\(path):\(index + 1): not a fuzz result row: \(line)")
            }
            let name = names[fields[0]] ?? fields[0]
            let crashText = crashes == 0 ? "0 crashes" : "CRASHED, input in \(fields.count > 4 ? fields[4] : "?")"
            figures.append(BenchFigure("Fuzz \(name): \(crashText), \(BenchFigure.format(seconds)) s", execs, "execs",
                                       target: "≥ 1 M, no crash", met: execs >= 1_000_000 && crashes == 0))
        }
        return figures
    }

    struct ValidationErrorText: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
