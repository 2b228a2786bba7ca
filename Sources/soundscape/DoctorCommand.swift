import App
import ArgumentParser
import Audio
import Foundation
import Location
import Speech

struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check every part Soundscape needs and say plainly what is missing and how to fix it.",
        discussion: "Prints one line per part. Exits with status 1 when something the user needs is missing.")

    @OptionGroup var global: GlobalOptions

    @Option(help: "gpsd address as HOST:PORT.")
    var gpsd: String = GpsdEndpoint.default.description

    @Option(help: "Seconds to wait for a GPS fix.")
    var gpsWait: Double = 5

    @Option(help: "PulseAudio sink to play to (default: the server's default sink).")
    var sink: String?

    @Option(help: "PulseAudio source to record from (default: the server's default source).")
    var source: String?

    @Option(help: "SOFA file with the HRTF.")
    var hrtf: String = SOFAHRTF.debianDefaultPath

    @Option(help: "Map database.")
    var db: String?

    func run() async throws {
        global.bootstrapLogging()
        guard let endpoint = GpsdEndpoint(gpsd) else {
            throw ValidationError("--gpsd \"\(gpsd)\" is not HOST:PORT")
        }
        let environment = AppEnvironment.read()
        let paths = environment.paths
        var checks: [any DoctorCheck] = [SpeechModelCheck(model: .debianEnglish, paths: paths)]
        checks.append(SecondRecognizerCheck(paths: paths))
        do {
            let synthesizer = try EspeakSynthesizer()
            checks.append(SpeechSynthesisCheck(synthesizer: synthesizer, voice: VoiceSettings()))
            checks += [SoundServerCheck(sink: sink), MicrophoneCheck(source: source), HRTFCheck(path: hrtf),
                       GPSCheck(endpoint: endpoint, wait: .milliseconds(Int(gpsWait * 1000))), HeadingCheck(),
                       MapDatabaseCheck(path: db ?? environment.mapDatabase)]
            let results = await Doctor.run(checks) { print($0.line) }
            print("Map data © OpenStreetMap contributors (ODbL). HRTF: MIT KEMAR, Gardner and Martin, MIT Media Lab.")
            if results.contains(where: { $0.status == .failed }) { throw ExitCode(1) }
        } catch let error as SpeechSynthesisError {
            print(DoctorResult(part: "Speech output", status: .failed, detail: "\(error)", fix: "sudo apt-get install espeak-ng").line)
            throw ExitCode(1)
        }
    }
}
