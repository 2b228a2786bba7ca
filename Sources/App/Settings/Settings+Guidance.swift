import Guidance

extension Settings {
    /// The guidance stage's view of the settings (the configuration file is the one source of truth).
    public var guidance: GuidanceSettings {
        var g = GuidanceSettings()
        _ = try? g.setBeaconOffDistance(Double(beaconOffDistance))
        g.delayedBeaconStart = beaconDelayedStart > 0 ? Double(beaconDelayedStart) : nil
        g.beaconDistanceCallouts = beaconDistance
        g.speakStreetNames = speakStreetNames
        g.decimalSeparator = decimalSeparator.isEmpty ? nil : decimalSeparator
        g.output = announcementOutput
        g.language = language
        return g
    }
}
