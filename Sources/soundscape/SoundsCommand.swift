import ArgumentParser
import Audio
import Foundation

/// `soundscape sounds`: regenerates the earcons and beacon loops from the deterministic synthesizer
/// (`make sounds`). Earcons go to OUTPUT/NAME.wav (committed); beacon styles to OUTPUT/Beacons/STYLE/
/// (large, not committed — the engine synthesizes them in memory at start).
struct SoundsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sounds",
        abstract: "Generate the earcons and beacon sounds (deterministic synthesis; no files are copied from elsewhere).")

    @Option(name: .shortAndLong, help: "Folder to write into.")
    var output: String = "Sounds"

    @Flag(help: "Only the earcons, not the beacon styles.")
    var earconsOnly = false

    @Flag(help: "List every earcon and beacon style with its meaning instead of writing files.")
    var list = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        global.bootstrapLogging()
        if list {
            for e in Earcon.allCases { print("\(e.rawValue).wav\t\(e.meaning)") }
            for name in BeaconStyle.builtInNames {
                guard let style = BeaconStyle.builtIn(name) else { continue }
                print("Beacons/\(style.name)/\t\(style.components.count) components (\(style.componentNames.joined(separator: ", "))), "
                      + "\(style.beatsPerPhrase) beats in \(String(format: "%.3f", Double(style.phraseFrames) / Double(style.sampleRate))) s")
            }
            return
        }
        let written = try EarconSynthesizer.writeAll(to: output, beacons: !earconsOnly)
        for path in written { print(path) }
        print("\(written.count) files written to \(output)")
    }
}
