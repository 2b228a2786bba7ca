import Geo

/// What the program's output needs of the audio side: play a sound placed around the listener (one after
/// another), stop, and know where the listener is. ``AudioEngine`` is the real one; tests use a fake, so the
/// reply output and the callout pipeline above it run without a sound server and without waiting.
public protocol SoundPlayer: AnyObject, Sendable {
    /// Queues `sound` and returns when it has played (or was stopped, or failed).
    func play(_ sound: any Sound, type: SoundType) async -> PlaybackResult
    /// Stops the current sound and drops the queue; with `hush`, the hush earcon plays.
    func stopAll(hush: Bool)
    /// Where the listener is and faces (degrees from north); nil when unknown.
    func setListener(location: Coordinate?, heading: Double?)
    /// The heading that chooses the beacon's part; nil when there is none.
    func setBeaconHeading(_ degrees: Double?)
    /// Whether the sound server is there (for saying when it goes away and comes back).
    var status: AudioEngine.Status { get }
}

extension AudioEngine: SoundPlayer {
    /// Plays `sound` through the engine's ``SoundQueue``.
    @discardableResult
    public func play(_ sound: any Sound, type: SoundType = .standard) async -> PlaybackResult { await queue.play(sound, type: type) }
    public func stopAll(hush: Bool = false) { queue.stopAll(hush: hush) }
}
