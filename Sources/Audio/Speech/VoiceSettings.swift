/// How espeak-ng should speak: voice name (e.g. "en-us", "en+f2", "fi"), rate in words per minute,
/// pitch and volume on espeak-ng's scales.
public struct VoiceSettings: Sendable, Hashable, Codable {
    public var voice: String
    /// Words per minute, 80…450.
    public var rate: Int
    /// 0…100, 50 is the voice's normal pitch.
    public var pitch: Int
    /// 0…200, 100 is normal.
    public var volume: Int

    public init(voice: String = "en-us", rate: Int = 175, pitch: Int = 50, volume: Int = 100) {
        self.voice = voice
        self.rate = min(max(rate, 80), 450)
        self.pitch = min(max(pitch, 0), 100)
        self.volume = min(max(volume, 0), 200)
    }
}
