import App
import ArgumentParser

struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Recognize a spoken command from a WAV file with the same recognizer as live input.",
        discussion: """
            The recognizer is the one `soundscape run` listens with: the grammars in Grammars/, the names of \
            places within a kilometre of --at (from the map database), generated pronunciations and the same \
            rejection of out-of-grammar speech. Example: soundscape listen --file cmd.wav --at 60.1699,24.9410 --json
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "WAV file (16-bit PCM or float, any rate; stereo is mixed down).")
    var file: String

    @Option(help: "Where the user is (LAT,LON): names of places nearby can be recognized.")
    var at: CoordinateArgument?

    @Option(help: "The direction the user faces, degrees from north (with --answer).")
    var heading: Double?

    @Flag(help: "Then answer the recognized command at --at, facing --heading, as `soundscape say` would (printed and spoken).")
    var answer = false

    @Flag(help: "With --answer: print the answer without speaking it.")
    var quiet = false

    @Option(help: "Map database (for place names near --at).")
    var db: String?

    @Option(help: "Grammar folder or .gram file to use instead of Grammars/.")
    var grammar: String?

    @Flag(help: "Print one JSON object: text, intent, slots, confidence — or \"rejected\": true.")
    var json = false

    @Flag(help: "Listen as while the assistant is asleep: only \"wake up\" can be heard (\"wake up\" cannot while it is awake).")
    var asleep = false

    func run() async throws {
        global.bootstrapLogging()
        var options = ListenOptions(file: file)
        options.at = at?.coordinate
        options.heading = heading
        options.answer = answer
        options.quiet = quiet
        options.db = db
        options.grammar = grammar
        options.json = json
        options.asleep = asleep
        options.verbose = global.verbose
        try await AppBuilder.commandLine { try await $0.listen(options) }
    }

    func validate() throws {
        if answer && at == nil { throw ValidationError("--answer needs --at LAT,LON (where the answer is given)") }
    }
}
