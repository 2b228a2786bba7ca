import Audio
import Behaviors
import Callouts
import Foundation
import Geo
import Logging

/// One thing the assistant says: words, where the thing it speaks of is (so it is heard from there), and an
/// earcon to lead it.
public struct Reply: Sendable, Equatable {
    public var text: String
    public var earcon: Earcon?
    /// Where it is heard from: straight ahead (2-D), at a place, at an angle or a compass bearing.
    public var soundType: SoundType

    public init(_ text: String, location: Coordinate? = nil, earcon: Earcon? = nil) {
        self.text = text
        self.earcon = earcon
        self.soundType = location.map { .localized($0) } ?? .standard
    }

    public init(_ text: String, earcon: Earcon?, soundType: SoundType) {
        self.text = text
        self.earcon = earcon
        self.soundType = soundType
    }

    /// The place spoken about, for localized replies.
    public var location: Coordinate? {
        if case .localized(let c) = soundType { return c }
        return nil
    }
}

/// Where the assistant's words go. Every reply is printed; it is also heard when there is a sound output.
public protocol ReplyOutput: Sendable {
    /// Prints the replies and has them said in order. With `interrupt`, whatever is playing or waiting stops first
    /// (a user's question interrupts; automatic callouts wait their turn).
    func say(_ replies: [Reply], interrupt: Bool) async
    /// Prints and speaks a problem; problems are never only logged.
    func problem(_ text: String) async
    /// Where the listener is and faces, for placing sounds around them.
    func moveListener(to location: Coordinate?, heading: Double?) async
    /// The heading that chooses the beacon's part (spec §2.2 beacon order); nil when there is none.
    func turnBeacon(to heading: Double?) async
    /// Returns when everything said has been played.
    func finish() async
    /// Plays one reply without printing it and returns when it has been heard: true when it played to its end,
    /// false when it was stopped or could not play. (The callout pipeline prints what it plays itself.)
    func play(_ reply: Reply) async -> Bool
    /// ``play(_:)`` for a callout of the coordinator's queue; `group` is its group's label (``EngineReplyOutput/problemLabel``
    /// for a problem), for outputs that tell them apart.
    func play(_ reply: Reply, group: String) async -> Bool
    /// Stops what plays now and what waits; with `hush`, the hush earcon plays.
    func stop(hush: Bool) async
    /// From now on replies and problems are callouts in the coordinator's one queue (it decides what interrupts
    /// what); what was said before is handed over in order.
    func route(through coordinator: CalloutCoordinator)
}

extension ReplyOutput {
    public func say(_ text: String, interrupt: Bool = false) async { await say([Reply(text)], interrupt: interrupt) }
    /// The beacon heading (spec §2.2), which chooses the beacon's part; outputs without a beacon ignore it.
    public func turnBeacon(to heading: Double?) async {}
    /// Outputs that only print have no queue to share.
    public func route(through coordinator: CalloutCoordinator) {}
    public func play(_ reply: Reply, group: String) async -> Bool { await play(reply) }
}

/// Prints, and plays through the audio engine: speech and earcons placed in 3-D around the listener.
///
/// Owns no queue: a reply or problem is printed at once and becomes a callout in the pipeline's coordinator
/// (``route(through:)``), which plays it back through ``play(_:)``. What is said before the coordinator exists
/// (problems at start-up) waits in order and is handed over when it does.
/// When the sound server goes away it says so once, in print, and carries on; the engine reconnects by itself.
public actor EngineReplyOutput: ReplyOutput {
    /// Group labels of the callouts this output posts: printed when they were said, so not again when heard.
    public static let replyLabel = "system.reply"
    public static let problemLabel = "system.problem"

    private let engine: any SoundPlayer
    private let printLine: @Sendable (String) -> Void
    private var reportedNoSound = false
    private let checksConnection: Bool
    /// Carries callout groups, in the order they were said, to the coordinator (a marker: all before it are queued).
    private enum Handover: Sendable { case group(CalloutGroup), marker(CheckedContinuation<Void, Never>) }
    private nonisolated let handover: AsyncStream<Handover>.Continuation
    private nonisolated let handoverStream: AsyncStream<Handover>
    private nonisolated let coordinator = Locked<CalloutCoordinator?>(nil)

    /// - Parameters:
    ///   - checksConnection: watch the sound server and say when it goes away or comes back (live output).
    ///   - soundServerMissing: the caller found no sound server at start and has said so already.
    public init(engine: any SoundPlayer, checksConnection: Bool = true, soundServerMissing: Bool = false,
                printLine: @escaping @Sendable (String) -> Void = printReply) {
        self.engine = engine
        self.checksConnection = checksConnection
        self.reportedNoSound = soundServerMissing
        self.printLine = printLine
        (handoverStream, handover) = AsyncStream.makeStream(of: Handover.self)
    }

    public nonisolated func route(through coordinator: CalloutCoordinator) {
        let first = self.coordinator.update { current -> Bool in
            defer { current = coordinator }
            return current == nil
        }
        guard first else { return }
        Task { [handoverStream] in
            for await item in handoverStream {
                switch item {
                case .group(let group): await coordinator.enqueue(group)
                case .marker(let reached): reached.resume()
                }
            }
        }
    }

    public func say(_ replies: [Reply], interrupt: Bool) {
        reportSoundServer()
        for (index, reply) in replies.enumerated() {
            if !reply.text.isEmpty { printLine(reply.text) }
            submit(reply, action: interrupt && index == 0 ? .interruptAndClear : .enqueue, label: Self.replyLabel)
        }
    }

    public func problem(_ text: String) {
        reportSoundServer()
        printLine("Problem: \(text)")
        submit(Reply(text, earcon: .invalidFunction), action: .enqueue, label: Self.problemLabel)
    }

    private func submit(_ reply: Reply, action: QueueAction, label: String) {
        let callout = Callout.text(reply.text, glyph: reply.earcon.flatMap { Glyph(rawValue: $0.rawValue) },
                                   placement: CalloutOutputPlayer.placement(reply.soundType))
        handover.yield(.group(CalloutGroup([callout], action: action, label: label)))
    }

    public func moveListener(to location: Coordinate?, heading: Double?) {
        engine.setListener(location: location, heading: heading)
    }

    public func turnBeacon(to heading: Double?) {
        engine.setBeaconHeading(heading)
    }

    /// Waits until everything said has been played (nothing to wait for before the coordinator exists).
    public func finish() async {
        guard let coordinator = coordinator.value else { return }
        await withCheckedContinuation { handover.yield(.marker($0)) }
        await coordinator.waitUntilIdle()
    }

    public func play(_ reply: Reply) async -> Bool {
        reportSoundServer()
        let played = await engine.play(Self.sound(for: reply), type: reply.soundType) == .completed
        // The engine reconnects by itself; once a reply has played, "Sound is back" is printed at once, not
        // only when the next reply is asked for.
        reportSoundServer()
        return played
    }

    public func stop(hush: Bool) {
        engine.stopAll(hush: hush)
    }

    static func sound(for reply: Reply) -> any Sound {
        switch (reply.earcon, reply.text.isEmpty) {
        case (let earcon?, true): return GlyphSound(earcon)
        case (let earcon?, false): return ConcatenatedSound(GlyphSound(earcon), TTSSound(reply.text))
        case (nil, _): return TTSSound(reply.text)
        }
    }

    private func reportSoundServer() {
        guard checksConnection else { return }
        let status = engine.status
        let connected = status.connected
        // A connection still being made for the first time is not a loss.
        if !connected && !reportedNoSound && status.connections > 0 {
            reportedNoSound = true
            printLine("Problem: no sound server; replies are printed only until it is back.")
        } else if connected && reportedNoSound {
            reportedNoSound = false
            printLine("Sound is back.")
        }
    }
}

/// Prints only (no sound, tests, `--quiet`).
public struct PrintedReplyOutput: ReplyOutput {
    let printLine: @Sendable (String) -> Void
    public init(printLine: @escaping @Sendable (String) -> Void = printReply) { self.printLine = printLine }
    public func say(_ replies: [Reply], interrupt: Bool) async {
        for r in replies where !r.text.isEmpty { printLine(r.text) }
    }
    public func problem(_ text: String) async { printLine("Problem: \(text)") }
    public func moveListener(to location: Coordinate?, heading: Double?) async {}
    public func finish() async {}
    public func play(_ reply: Reply) async -> Bool { true }
    public func stop(hush: Bool) async {}
}

/// Writes a line to standard output at once (no stdio buffer), so that every reply reaches a pipe or the journal
/// (`journalctl`) as it is said. (`fflush(nil)` would also lock stdin, which the terminal reader holds while it
/// waits for a line.)
@Sendable public func printReply(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Writes a line to standard error without buffering surprises.
public func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
