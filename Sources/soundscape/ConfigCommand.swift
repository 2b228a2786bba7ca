import App
import ArgumentParser
import Foundation

struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show or change the settings (also changeable by voice).",
        discussion: "The settings live in $XDG_CONFIG_HOME/soundscape/config.toml. Example: soundscape config set beacon_off_distance 10")

    @OptionGroup var global: GlobalOptions

    @Option(help: "Settings file to use instead of the default.")
    var file: String?

    @Argument(help: "show, set KEY VALUE, or keys.")
    var action: String = "show"

    @Argument(help: "For set: the key and the value.")
    var words: [String] = []

    func run() throws {
        global.bootstrapLogging()
        let store = SettingsStore(path: file ?? AppEnvironment.read().settingsFile)
        let loaded = store.load()
        for problem in loaded.problems { printError("Problem: \(problem)") }
        switch action {
        case "show":
            print("# \(store.path)")
            for key in Settings.keys {
                let value: String
                switch loaded.settings.value(of: key) {
                case .text(let t): value = "\"\(t)\""
                case .integer(let i): value = String(i)
                case .boolean(let b): value = String(b)
                }
                print("\(key.name) = \(value)")
            }
        case "keys":
            for key in Settings.keys { print("\(key.name): \(key.allowed)") }
        case "set":
            guard words.count == 2, let key = Settings.key(named: words[0]) else {
                throw ValidationError("usage: soundscape config set KEY VALUE (keys: \(Settings.keys.map(\.name).joined(separator: ", ")))")
            }
            let raw = words[1]
            let value: SettingValue
            switch key.kind {
            case .integer:
                guard let i = Int(raw) else { throw ValidationError("\(key.name) takes \(key.allowed), not \"\(raw)\"") }
                value = .integer(i)
            case .boolean:
                guard let b = ["true": true, "on": true, "yes": true, "false": false, "off": false, "no": false][raw.lowercased()] else {
                    throw ValidationError("\(key.name) takes \(key.allowed), not \"\(raw)\"")
                }
                value = .boolean(b)
            case .choice, .text:
                value = .text(raw)
            }
            do {
                _ = try store.update(loaded.settings, key: key.name, to: value)
                print("\(key.name) set to \(raw) in \(store.path)")
            } catch {
                throw ValidationError("\(error)")
            }
        default:
            throw ValidationError("unknown action \"\(action)\": use show, set KEY VALUE, or keys")
        }
    }
}
