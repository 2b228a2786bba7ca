import Audio
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
    /// Prints the replies and queues them for playing in order. With `interrupt`, whatever is playing or
    /// waiting stops first (a user's question interrupts; automatic callouts wait their turn).
    func say(_ replies: [Reply], interrupt: Bool) async
    /// Prints and speaks a problem; problems are never only logged.
    func problem(_ text: String) async
    /// Where the listener is and faces, for placing sounds around them.
    func moveListener(to location: Coordinate?, heading: Double?) async
    /// The heading that chooses the beacon's part (spec §2.2 beacon order); nil when there is none.
    func turnBeacon(to heading: Double?) async
    /// Returns when everything queued has been played.
    func finish() async
    /// Plays one reply without printing it and returns when it has been heard: true when it played to its end,
    /// false when it was stopped or could not play. (The callout pipeline prints what it plays itself.)
    func play(_ reply: Reply) async -> Bool
    /// Stops what plays now and what waits; with `hush`, the hush earcon plays.
    func stop(hush: Bool) async
}

extension ReplyOutput {
    public func say(_ text: String, interrupt: Bool = false) async { await say([Reply(text)], interrupt: interrupt) }
    /// The beacon heading (spec §2.2), which chooses the beacon's part; outputs without a beacon ignore it.
    public func turnBeacon(to heading: Double?) async {}
}

/// Prints, and plays through the audio engine: speech and earcons placed in 3-D around the listener.
///
/// Plays one reply after another on its own task, so the assistant never waits for speech to finish.
/// When the sound server goes away it says so once, in print, and carries on; the engine reconnects by itself.
public actor EngineReplyOutput: ReplyOutput {
    private let engine: AudioEngine
    private let printLine: @Sendable (String) -> Void
    private var queue: [(generation: Int, reply: Reply)] = []
    private var generation = 0
    private var worker: Task<Void, Never>?
    private var reportedNoSound = false
    private let checksConnection: Bool

    /// - Parameters:
    ///   - checksConnection: watch the sound server and say when it goes away or comes back (live output).
    ///   - soundServerMissing: the caller found no sound server at start and has said so already.
    public init(engine: AudioEngine, checksConnection: Bool = true, soundServerMissing: Bool = false,
                printLine: @escaping @Sendable (String) -> Void = printReply) {
        self.engine = engine
        self.checksConnection = checksConnection
        self.reportedNoSound = soundServerMissing
        self.printLine = printLine
    }

    public func say(_ replies: [Reply], interrupt: Bool) {
        if interrupt {
            generation += 1
            queue.removeAll()
            engine.stopAll()
        }
        reportSoundServer()
        for reply in replies {
            if !reply.text.isEmpty { printLine(reply.text) }
            queue.append((generation, reply))
        }
        if worker == nil { worker = Task { await self.drainQueue() } }
    }

    public func problem(_ text: String) {
        reportSoundServer()
        printLine("Problem: \(text)")
        queue.append((generation, Reply(text, earcon: .invalidFunction)))
        if worker == nil { worker = Task { await self.drainQueue() } }
    }

    public func moveListener(to location: Coordinate?, heading: Double?) {
        engine.setListener(location: location, heading: heading)
    }

    public func turnBeacon(to heading: Double?) {
        engine.setBeaconHeading(heading)
    }

    public func finish() async {
        while let worker {
            await worker.value
            if self.worker == worker { self.worker = nil }
        }
    }

    public func play(_ reply: Reply) async -> Bool {
        reportSoundServer()
        return await engine.play(Self.sound(for: reply), type: reply.soundType) == .completed
    }

    public func stop(hush: Bool) {
        generation += 1
        queue.removeAll()
        engine.stopAll(hush: hush)
    }

    private func drainQueue() async {
        while !queue.isEmpty {
            let job = queue.removeFirst()
            guard job.generation == generation else { continue }
            _ = await engine.play(Self.sound(for: job.reply), type: job.reply.soundType)
            // The engine reconnects by itself; once a reply has played, "Sound is back" is printed at once, not
            // only when the next reply is asked for.
            reportSoundServer()
        }
        worker = nil
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
