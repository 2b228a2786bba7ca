@testable import Audio
import Foundation
import Testing

/// The engine's real-time output into a real PulseAudio (the harness's null sink `spk`, and a private
/// server this suite starts, kills and restarts).
@Suite("Audio engine: PulseAudio output", .serialized)
struct AudioPulseOutputTests {
    static func rms(_ x: ArraySlice<Float>) -> Float { (x.reduce(0) { $0 + $1 * $1 } / Float(max(x.count, 1))).squareRoot() }

    /// First and last frame whose level (max of both channels, 10 ms windows) passes `threshold`.
    static func loudSpan(_ b: PCMBuffer, threshold: Float = 0.01) -> Range<Int>? {
        let window = 480
        var first: Int?, last: Int?
        for start in stride(from: 0, to: b.frameCount - window, by: window) {
            let slice = b.samples[(2 * start)..<(2 * (start + window))]
            if Self.rms(slice) > threshold { if first == nil { first = start }; last = start + window }
        }
        guard let first, let last else { return nil }
        return first..<last
    }

    @Test func aSpokenCalloutComesBackFromTheMonitorFromTheRightDirection() async throws {
        try TestServices.require()
        let text = "Bus stop, thirty meters to your right."
        // What it should be: the same callout rendered offline.
        let offline = try AudioEngine(configuration: .init(output: .offline), synthesizer: sharedSynthesizer)
        offline.setHeading(0)
        #expect(await offline.play(TTSSound(text), type: .relative(90)) == .completed)
        let expected = try #require(Self.loudSpan(offline.recording()))

        // The engine first (loading the HRTF takes a moment), then the recorder, then the callout.
        let engine = try AudioEngine(configuration: .init(output: .pulseAudio(.init(sink: TestServices.sink))),
                                     synthesizer: sharedSynthesizer)
        defer { engine.shutdown() }
        #expect(engine.status.connected)
        engine.setHeading(0)
        let recorder = try PulseSimpleStream(direction: .record, sampleRate: 48_000, channels: 2,
                                             device: "\(TestServices.sink).monitor", streamName: "audio engine test recorder")
        let seconds = Double(expected.upperBound) / 48_000 + 2
        let recording = Task.detached { try recorder.read(frames: Int(48_000 * seconds)) }
        try await Task.sleep(for: .milliseconds(300))
        let result = await engine.play(TTSSound(text), type: .relative(90))
        #expect(result == .completed)
        let capture = PCMBuffer(sampleRate: 48_000, channels: 2, samples: try await recording.value)
        guard let span = Self.loudSpan(capture) else {
            Issue.record("the monitor recorded only silence (\(capture.duration) s, RMS \(capture.rms()))")
            return
        }
        let left = Self.rms(capture.channel(0)[span]), right = Self.rms(capture.channel(1)[span])
        #expect(20 * log10(right / left) > 6, "a callout at +90° must be louder on the right: L \(left) R \(right)")
        let status = engine.status
        #expect(status.serverLatency.map { $0 < 0.05 } ?? false, "server latency \(String(describing: status.serverLatency))")
    }

    @Test func theStreamIsTaggedForRoutingAndDucking() async throws {
        try TestServices.require()
        let engine = try AudioEngine(configuration: .init(output: .pulseAudio(.init(sink: TestServices.sink, mediaRole: "a11y"))),
                                     synthesizer: nil)
        defer { engine.shutdown() }
        #expect(engine.status.connected)
        let inputs = try run("pactl", ["list", "sink-inputs"])
        #expect(inputs.contains("media.role = \"a11y\""), "\(inputs)")
        #expect(inputs.contains("application.name = \"Soundscape\""))
    }

    /// A private PulseAudio (same command line as scripts/with-test-services) that this test owns.
    /// Spawned with posix_spawn and reaped with waitpid (not Foundation's Process, whose child
    /// bookkeeping can hang when another Process is waited for meanwhile).
    final class PrivateServer {
        let directory: URL
        private(set) var pid: pid_t = 0
        var server: String { "unix:\(directory.path)/xdg/pulse/native" }

        init() throws {
            directory = try temporaryDirectory()
            for sub in ["xdg", "home"] {
                try FileManager.default.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
            }
            chmod(directory.appendingPathComponent("xdg").path, 0o700)
        }

        func start() throws {
            var env = ProcessInfo.processInfo.environment
            env["XDG_RUNTIME_DIR"] = directory.appendingPathComponent("xdg").path
            env["HOME"] = directory.appendingPathComponent("home").path
            env["PULSE_SERVER"] = server
            env["PULSE_COOKIE"] = directory.appendingPathComponent("cookie").path
            let args = ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit", "--use-pid-file=no",
                        "--log-target=file:\(directory.path)/pulse.log",
                        "--load=module-native-protocol-unix auth-anonymous=1",
                        "--load=module-null-sink sink_name=restartspk rate=48000 channels=2",
                        "--load=module-always-sink"]
            let cArgs = args.map { strdup($0) } + [nil]
            let cEnv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { (cArgs + cEnv).forEach { free($0) } }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            var child: pid_t = 0
            let rc = posix_spawnp(&child, "pulseaudio", &actions, nil, cArgs, cEnv)
            guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
            pid = child
            // Ready when a client can open a stream on its sink.
            for _ in 0..<100 {
                if (try? PulseSimpleStream(direction: .playback, sampleRate: 48_000, channels: 2, device: "restartspk",
                                           server: server, streamName: "readiness probe")) != nil { return }
                usleep(100_000)
            }
            throw POSIXError(.ETIMEDOUT)
        }

        func kill9() {
            guard pid > 0 else { return }
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            pid = 0
        }

        deinit {
            kill9()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func survivesTheServerRestartingAndPlaysAgain() async throws {
        try TestServices.require()
        let pulse = try PrivateServer()
        try pulse.start()
        let engine = try AudioEngine(configuration: .init(output: .pulseAudio(.init(server: pulse.server, sink: "restartspk"))),
                                     synthesizer: sharedSynthesizer)
        defer { engine.shutdown() }
        #expect(engine.status.connected)
        #expect(engine.status.connections == 1)
        engine.setHeading(0)

        // Kill the server in the middle of a 2 s sound: the sound still ends (the engine keeps time) and nothing crashes.
        let tone = (0..<96_000).map { 0.4 * Float(sin(2 * .pi * 440 * Double($0) / 48_000)) }
        let playing = Task { await engine.play(BufferSound(PCMBuffer(sampleRate: 48_000, channels: 1, samples: tone)), type: .relative(-90)) }
        try await Task.sleep(for: .milliseconds(500))
        pulse.kill9()
        try await Task.sleep(for: .milliseconds(300))
        #expect(!engine.status.connected)
        #expect(await playing.value == .completed)

        // Bring the server back: the engine reconnects by itself and plays again.
        try pulse.start()
        let deadline = Date().addingTimeInterval(8)
        while !(engine.status.connected && engine.status.connections >= 2) && Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(engine.status.connected && engine.status.connections >= 2, "reconnected: \(engine.status)")
        let recorder = try PulseSimpleStream(direction: .record, sampleRate: 48_000, channels: 2, device: "restartspk.monitor",
                                             server: pulse.server, streamName: "restart test recorder")
        let recording = Task.detached { try recorder.read(frames: 48_000 * 3) }
        try await Task.sleep(for: .milliseconds(200))
        #expect(await engine.play(TTSSound("Playing again after the restart."), type: .relative(-90)) == .completed)
        let capture = PCMBuffer(sampleRate: 48_000, channels: 2, samples: try await recording.value)
        let left = capture.rms(channel: 0), right = capture.rms(channel: 1)
        #expect(left > 0.005, "nothing came back after the restart (L \(left), R \(right))")
        #expect(left > right * 2, "the callout at −90° must be louder on the left")
    }
}
