import Audio
import Foundation
import Testing

/// `soundscape demo` (what `make demo` runs), as a user runs it: the built executable, the bundled walk
/// and script, a freshly imported Helsinki map. The recording is measured, not trusted: speech where the
/// transcript says replies play, the beacon where nothing is said while it is on, silence where it is muted,
/// and its left/right balance changing when the walker turns.
@Suite("soundscape demo", .serialized)
struct DemoTests {
    /// One transcript line of `--json`.
    struct Entry: Decodable {
        var kind: String
        var time: Double
        var end: Double?
        var text: String?
        var intent: String?
        var slots: [String: String]?
        var state: String?
        var heading: Double?
        var seconds: Double?
    }

    /// What each line of Walks/demo-script.txt means, as the grammar tags it.
    static let intended = [
        "where am i": "where_am_i", "what's ahead": "ahead_of_me", "around me": "around_me",
        "mute beacon": "mute_beacon", "unmute beacon": "unmute_beacon", "repeat": "repeat",
        "where is the beacon": "where_is_beacon", "set beacon on esplanadinpuisto": "set_beacon",
    ]

    static func scratch(_ name: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("soundscape-demo-test-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(name).path
    }

    static func entries(_ stdout: String) throws -> [Entry] {
        try stdout.split(separator: "\n").map { try JSONDecoder().decode(Entry.self, from: Data($0.utf8)) }
    }

    /// Root mean square of frames [from, to) of one channel (nil: both), in dBFS.
    static func level(_ wav: PCMBuffer, _ from: Double, _ to: Double, channel: Int? = nil) -> Double {
        let a = max(0, Int(from * Double(wav.sampleRate))), b = min(wav.frameCount, Int(to * Double(wav.sampleRate)))
        guard b > a else { return -200 }
        var sum = 0.0
        for frame in a..<b {
            for c in 0..<wav.channels where channel == nil || channel == c {
                let v = Double(wav.samples[frame * wav.channels + c])
                sum += v * v
            }
        }
        let rms = (sum / Double((b - a) * (channel == nil ? wav.channels : 1))).squareRoot()
        return 20 * log10(max(rms, 1e-10))
    }

    /// Stretches of at least `minimum` seconds where nothing is said (no command, reply or problem sounding),
    /// with the beacon's state during them.
    static func quietStretches(_ entries: [Entry], length: Double, minimum: Double = 1.5) -> [(from: Double, to: Double, beacon: String)] {
        let sounding = entries.filter { ["command", "reply", "problem"].contains($0.kind) }
            .map { ($0.time, $0.end ?? $0.time) }.sorted { $0.0 < $1.0 }
        let changes = entries.filter { $0.kind == "beacon" }
        var out: [(Double, Double, String)] = []
        var cursor = 0.0
        for (start, end) in sounding + [(length, length)] {
            let from = cursor + 0.3, to = start - 0.1
            if to - from >= minimum {
                let before = changes.last { $0.time <= from }?.state ?? "off"
                let changesInside = changes.contains { $0.time > from && $0.time < to }
                if !changesInside { out.append((from, to, before)) }
            }
            cursor = max(cursor, end)
        }
        return out
    }

    /// The part of the bundled script with the beacon (set on Keskuskatu, muted, unmuted, asked for after the
    /// turn into Pohjoisesplanadi): 77 s of walk.
    @Test func theDemoWritesSpeechAndABeaconThatTurnsWithTheWalker() throws {
        let wavPath = Self.scratch("demo.wav")
        let result = try Soundscape.run(["demo", "--no-play", "--json", "--from", "2:47", "--until", "4:04",
                                         "--output", wavPath, "--db", Soundscape.helsinkiDatabase])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let entries = try Self.entries(result.stdout)

        // The recording: 48 kHz stereo, at least a minute, as long as the transcript says.
        let wav = try WAVFile.read(wavPath)
        #expect(wav.sampleRate == 48_000)
        #expect(wav.channels == 2)
        #expect(wav.duration >= 60, "the demo is \(wav.duration) s")
        let summary = try #require(entries.last { $0.kind == "summary" })
        #expect(abs((summary.seconds ?? 0) - wav.duration) < 0.2)

        // The commands were recognized as meant (the words given to the assistant are the recognizer's).
        let commands = entries.filter { $0.kind == "command" }
        let understood = commands.filter { c in c.intent != nil && c.intent == Self.intended[c.text?.lowercased() ?? ""] }
        let beaconSet = commands.contains { $0.intent == "set_beacon" && $0.slots?["place"] == "Esplanadinpuisto" }
        #expect(understood.count >= 4, "understood: \(commands.map { "\($0.text ?? "") → \($0.intent ?? "rejected")" })")
        #expect(beaconSet, "set beacon on Esplanadinpuisto was not understood")
        #expect(commands.contains { $0.intent == "mute_beacon" })

        // Speech where replies play while the beacon is not heard; silence between them.
        let replies = entries.filter { $0.kind == "reply" && ($0.end ?? $0.time) - $0.time > 0.8 }
        #expect(replies.count >= 5)
        let stretches = Self.quietStretches(entries, length: wav.duration)
        let beaconStates = entries.filter { $0.kind == "beacon" }
        func beacon(at t: Double) -> String { beaconStates.last { $0.time <= t }?.state ?? "off" }
        let spokenAlone = replies.filter { beacon(at: $0.time) != "on" && beacon(at: $0.end ?? $0.time) != "on" }
        #expect(spokenAlone.count >= 2, "replies while the beacon is silent: \(spokenAlone.count)")
        for reply in spokenAlone {
            let db = Self.level(wav, reply.time, reply.end ?? reply.time)
            #expect(db > -40, "no speech at \(reply.time)…\(reply.end ?? 0) s (\(db) dBFS): \(reply.text ?? "")")
        }

        // The beacon: heard in every quiet stretch while it is on, silent while it is muted or off.
        let on = stretches.filter { $0.beacon == "on" }
        let silent = stretches.filter { $0.beacon != "on" }
        #expect(on.count >= 3, "quiet stretches with the beacon on: \(on)")
        #expect(silent.count >= 1, "quiet stretches with the beacon muted or off: \(silent)")
        for s in on {
            let db = Self.level(wav, s.from, s.to)
            #expect(db > -45, "the beacon is not heard at \(s.from)…\(s.to) s (\(db) dBFS)")
        }
        for s in silent {
            let db = Self.level(wav, s.from, s.to)
            #expect(db < -70, "sound at \(s.from)…\(s.to) s with the beacon \(s.beacon) (\(db) dBFS)")
        }
        #expect(stretches.contains { $0.beacon == "muted" }, "no quiet stretch after \"mute beacon\": \(stretches)")

        // Left/right balance of the beacon changes as the walker turns from Keskuskatu into Pohjoisesplanadi.
        let balances = on.map { Self.level(wav, $0.from, $0.to, channel: 0) - Self.level(wav, $0.from, $0.to, channel: 1) }
        let spread = (balances.max() ?? 0) - (balances.min() ?? 0)
        #expect(spread >= 4, "interaural level differences of the beacon: \(balances) dB")
        // Walking south with the park ahead to the left, the left ear hears the beacon louder.
        #expect((balances.first ?? 0) >= 3, "interaural level differences of the beacon: \(balances) dB")
    }

    @Test func withoutASoundServerItStillWritesTheFile() throws {
        let wavPath = Self.scratch("noserver.wav")
        let scriptPath = Self.scratch("short-script.txt")
        try "0:01  where am i\n0:08  end\n".write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let result = try Soundscape.run(["demo", "--output", wavPath, "--script", scriptPath, "--db", Soundscape.helsinkiDatabase],
                                        environment: ["PULSE_SERVER": "unix:/nonexistent/soundscape-test"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("no sound server"), "\(result.stdout)")
        #expect(result.stdout.contains("you: \"where am i\""), "\(result.stdout)")
        let wav = try WAVFile.read(wavPath)
        #expect(wav.channels == 2 && wav.sampleRate == 48_000)
        #expect(wav.duration >= 8)
        #expect(Self.level(wav, 0, wav.duration) > -50, "the file is silent")
    }

    @Test func aBrokenScriptIsNamedWithItsLine() throws {
        let scriptPath = Self.scratch("broken-script.txt")
        try "0:05  where am i\nsoon  around me\n".write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let result = try Soundscape.run(["demo", "--no-play", "--output", Self.scratch("broken.wav"), "--script", scriptPath,
                                         "--db", Soundscape.helsinkiDatabase])
        #expect(result.status == 1)
        #expect(result.stdout.contains("\(scriptPath):2"), "\(result.stdout)")
        #expect(result.stdout.contains("soon"))
    }
}
