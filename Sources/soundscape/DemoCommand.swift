import App
import ArgumentParser

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "A scripted walk through central Helsinki with spoken commands, rendered binaurally to a WAV file.",
        discussion: """
            Walks the bundled walk (or --walk) in simulated time. At the times of the script (Walks/demo-script.txt: \
            "m:ss  words" a line) the words are synthesized by espeak-ng and decoded by the same recognizer as live \
            voice input; what it heard is handed to the assistant. The walker's words, the replies, the callouts \
            and the beacon are rendered through the HRTF into --output (48 kHz stereo), and the transcript is \
            printed as it goes (--json: one object a line). Then the file is played when a sound server answers. \
            Needs no GPS, microphone or sound server. Headphones give the 3-D effect.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: "Map database (default: the one `make run` imports).")
    var db: String?

    @Option(help: "The walk, a GPX or NMEA file (default: Walks/helsinki-centre.gpx).")
    var walk: String?

    @Option(help: "The script of commands (default: Walks/demo-script.txt).")
    var script: String?

    @Option(help: "Start at this time of the walk (m:ss or seconds): earlier positions and commands are skipped.")
    var from: String?

    @Option(help: "End at this time of the walk (m:ss or seconds), before the script's end.")
    var until: String?

    @Option(help: "The WAV file to write.")
    var output: String = "demo.wav"

    @Flag(help: "Do not play the file afterwards.")
    var noPlay = false

    @Flag(help: "Print the transcript as one JSON object a line.")
    var json = false

    @Option(help: "SOFA file with your HRTF (default: MIT KEMAR).")
    var hrtf: String?

    @Option(help: "PulseAudio sink to play the file to.")
    var sink: String?

    func run() async throws {
        global.bootstrapLogging()
        var options = DemoOptions()
        options.db = db
        options.walk = walk
        options.script = script
        options.from = from
        options.until = until
        options.output = output
        options.noPlay = noPlay
        options.json = json
        options.hrtf = hrtf
        options.sink = sink
        try await AppBuilder.commandLine { try await $0.demo(options) }
    }
}
