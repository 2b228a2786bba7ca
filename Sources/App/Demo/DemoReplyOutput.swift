import Audio
import Callouts
import Foundation
import Geo
import Synchronization

/// The demo's reply output: replies and problems are callouts in the coordinator's one queue, as in `run`; what
/// the coordinator plays is rendered through the offline audio engine (HRTF, earcons, the beacon underneath) and
/// written to the transcript with the time it starts in the recording and the direction it is heard from.
///
/// The engine renders offline: `play` returns when the sound has been rendered, so sounds follow each other
/// in the recording in the order they are played.
final class DemoReplyOutput: ReplyOutput {
    let engine: AudioEngine
    let transcript: DemoTranscript
    /// Hands replies and problems to the coordinator in order; prints nothing (the transcript is the demo's print).
    private let queue: EngineReplyOutput
    private let pose = Mutex<(location: Coordinate?, heading: Double?)>((nil, nil))
    private let beacon = Mutex<(state: (@Sendable () -> (String, String?))?, last: String?)>((nil, nil))

    /// The beacon's state now: "on" (heard), "muted" or "off", and its name. Set once Guidance is there.
    var beaconState: (@Sendable () -> (String, String?))? {
        get { beacon.withLock { $0.state } }
        set { beacon.withLock { $0.state = newValue } }
    }

    init(engine: AudioEngine, transcript: DemoTranscript) {
        self.engine = engine
        self.transcript = transcript
        queue = EngineReplyOutput(engine: engine, checksConnection: false, printLine: { _ in })
    }

    /// Seconds rendered into the recording so far.
    var now: Double { Double(engine.renderedFrames) / Double(engine.sampleRate) }

    var heading: Double? { pose.withLock { $0.heading } }

    func route(through coordinator: CalloutCoordinator) { queue.route(through: coordinator) }

    func say(_ replies: [Reply], interrupt: Bool) async { await queue.say(replies, interrupt: interrupt) }

    func problem(_ text: String) async { await queue.problem(text) }

    func finish() async { await queue.finish() }

    func moveListener(to location: Coordinate?, heading: Double?) async {
        pose.withLock { $0 = (location ?? $0.location, heading) }
        engine.setListener(location: location, heading: heading)
    }

    func play(_ reply: Reply) async -> Bool { await play(reply, group: "") }

    func play(_ reply: Reply, group: String) async -> Bool {
        let problem = group == EngineReplyOutput.problemLabel
        var entry = DemoTranscript.Entry(kind: problem ? "problem" : "reply", time: now)
        entry.text = reply.text.isEmpty ? reply.earcon.map { "(earcon \($0.rawValue))" } : reply.text
        let (location, heading) = pose.withLock { ($0.location, $0.heading) }
        if !problem {
            entry.heading = heading
            switch reply.soundType {
            case .localized(let place):
                if let location, location.distance(to: place) > 1 {
                    let bearing = location.bearing(to: place)
                    entry.bearing = bearing
                    if let heading { entry.direction = RelativeDirection(bearing: bearing, heading: heading).rawValue }
                }
            case .compass(let bearing):
                entry.bearing = bearing
                if let heading { entry.direction = RelativeDirection(bearing: bearing, heading: heading).rawValue }
            case .relative(let angle):
                entry.direction = RelativeDirection.combined(relativeAngle: angle).rawValue
            case .standard:
                break
            }
        }
        reportBeacon()
        let result = await engine.play(EngineReplyOutput.sound(for: reply), type: reply.soundType)
        entry.end = now
        if !reply.text.isEmpty || reply.earcon != nil { transcript.add(entry) }
        return result == .completed
    }

    /// Writes the beacon's state to the transcript when it changed (before and after every sound, and after
    /// every fix and command), so the transcript tells when the beacon is heard.
    func reportBeacon() {
        let change: (String, String?)? = beacon.withLock { b in
            guard let (state, place) = b.state?(), state != b.last else { return nil }
            defer { b.last = state }
            return b.last == nil && state == "off" ? nil : (state, place)
        }
        guard let (state, place) = change else { return }
        var entry = DemoTranscript.Entry(kind: "beacon", time: now)
        entry.state = state
        entry.place = place
        transcript.add(entry)
    }

    func stop(hush: Bool) async {
        engine.stopAll(hush: hush)
    }
}
