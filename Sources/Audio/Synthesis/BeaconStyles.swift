import Foundation

/// The beacon styles beyond Chime, Marimba and Classic. Each has its own instrument and rhythm, so that they are
/// told apart by ear, and its parts follow the spec's layouts (§4.3–4.4): the closer to straight ahead, the fuller
/// the pattern; behind is one low, sparse sound.
extension EarconSynthesizer {
    /// Four parts of soft square-wave pulses: two per beat ahead, one per beat offset, every other beat to the
    /// side, one low hum behind.
    static func pulse() -> BeaconStyle {
        let beats = 6
        let center = loop(beats: beats) { s, b in
            for half in 0..<2 { s.add(.softSquare, midi: 81, at: beat * (Double(b) + 0.5 * Double(half)), seconds: 0.07, gain: 0.2) }
        }
        let offset = loop(beats: beats) { s, b in
            s.add(.softSquare, midi: 79, at: beat * Double(b), seconds: 0.09, gain: 0.2)
        }
        let side = loop(beats: beats) { s, b in
            guard b % 2 == 0 else { return }
            s.add(.softSquare, midi: 74, at: beat * Double(b), seconds: 0.12, gain: 0.2)
        }
        let behind = loop(beats: beats) { s, b in
            guard b == 0 else { return }
            s.add(.softSquare, midi: 62, at: 0, seconds: 0.35, gain: 0.18)
        }
        return BeaconStyle(name: "Pulse", beatsPerPhrase: beats, sampleRate: sampleRate,
                           components: [center, offset, side, behind], componentNames: ["center", "offset", "side", "behind"],
                           intro: nil, outro: nil)
    }

    /// Three parts of falling "water drop" glides: a drop on every beat ahead, two per phrase offset, one slow
    /// low drop behind.
    static func drop() -> BeaconStyle {
        let beats = 6
        let center = loop(beats: beats) { s, b in
            s.addGlide(from: 2_300, to: 900, at: beat * Double(b), seconds: 0.1, gain: 0.4, noise: false)
        }
        let offset = loop(beats: beats) { s, b in
            guard b % 3 == 0 else { return }
            s.addGlide(from: 1_700, to: 700, at: beat * Double(b), seconds: 0.12, gain: 0.4, noise: false)
        }
        let behind = loop(beats: beats) { s, b in
            guard b == 0 else { return }
            s.addGlide(from: 700, to: 300, at: 0, seconds: 0.3, gain: 0.4, noise: false)
        }
        return BeaconStyle(name: "Drop", beatsPerPhrase: beats, sampleRate: sampleRate,
                           components: [center, offset, behind], componentNames: ["center", "offset", "behind"],
                           intro: nil, outro: nil)
    }

    /// Four parts of a plucked string in a syncopated (dotted) rhythm: the full figure ahead, its accents offset,
    /// two notes to the side, one low note behind.
    static func pluck() -> BeaconStyle {
        let beats = 6
        // Onsets in beats, with pitches: a figure that leans on the off-beats.
        let figure: [(Double, Int)] = [(0, 76), (0.75, 79), (1.5, 83), (2.5, 79), (3, 76), (3.75, 79), (4.5, 83), (5.25, 86)]
        let center = loop(beats: beats) { s, b in
            for (at, midi) in figure where Int(at) == b { s.add(.pluck, midi: midi, at: beat * at, seconds: 0.35, gain: 0.35) }
        }
        let offset = loop(beats: beats) { s, b in
            for (at, midi) in figure where Int(at) == b && [0, 1.5, 3, 4.5].contains(at) {
                s.add(.pluck, midi: midi, at: beat * at, seconds: 0.35, gain: 0.35)
            }
        }
        let side = loop(beats: beats) { s, b in
            guard b % 3 == 0 else { return }
            s.add(.pluck, midi: 71, at: beat * Double(b), seconds: 0.45, gain: 0.35)
        }
        let behind = loop(beats: beats) { s, b in
            guard b == 0 else { return }
            s.add(.pluck, midi: 52, at: 0, seconds: 0.7, gain: 0.4)
        }
        return BeaconStyle(name: "Pluck", beatsPerPhrase: beats, sampleRate: sampleRate,
                           components: [center, offset, side, behind], componentNames: ["center", "offset", "side", "behind"],
                           intro: nil, outro: nil)
    }

    /// Three parts of dry wooden taps: triplets ahead, one tap a beat offset, a low knock-knock behind.
    static func tap() -> BeaconStyle {
        let beats = 6
        let center = loop(beats: beats) { s, b in
            for k in 0..<3 { s.add(.wood, midi: k == 0 ? 88 : 84, at: beat * (Double(b) + Double(k) / 3), seconds: 0.06, gain: 0.5) }
        }
        let offset = loop(beats: beats) { s, b in
            s.add(.wood, midi: 84, at: beat * Double(b), seconds: 0.07, gain: 0.5)
        }
        let behind = loop(beats: beats) { s, b in
            guard b == 0 else { return }
            s.add(.wood, midi: 57, at: 0, seconds: 0.12, gain: 0.6)
            s.add(.wood, midi: 57, at: 0.16, seconds: 0.12, gain: 0.6)
        }
        return BeaconStyle(name: "Tap", beatsPerPhrase: beats, sampleRate: sampleRate,
                           components: [center, offset, behind], componentNames: ["center", "offset", "behind"],
                           intro: nil, outro: nil)
    }

    /// Four parts of high glassy chimes: a rising four-note ripple each beat ahead, two notes a beat offset, one to
    /// the side, a soft low swell twice a phrase behind.
    static func shimmer() -> BeaconStyle {
        let beats = 6
        let ripple = [86, 90, 93, 98]
        let center = loop(beats: beats) { s, b in
            for (k, midi) in ripple.enumerated() {
                s.add(.chime, midi: midi, at: beat * (Double(b) + Double(k) / 4), seconds: 0.2, gain: 0.18)
            }
        }
        let offset = loop(beats: beats) { s, b in
            s.add(.chime, midi: 86, at: beat * Double(b), seconds: 0.22, gain: 0.2)
            s.add(.chime, midi: 93, at: beat * (Double(b) + 0.5), seconds: 0.22, gain: 0.2)
        }
        let side = loop(beats: beats) { s, b in
            s.add(.chime, midi: 81, at: beat * Double(b), seconds: 0.3, gain: 0.22)
        }
        let behind = loop(beats: beats) { s, b in
            guard b % 3 == 0 else { return }
            s.add(.mellow, midi: 69, at: beat * Double(b), seconds: 0.9, gain: 0.3)
        }
        return BeaconStyle(name: "Shimmer", beatsPerPhrase: beats, sampleRate: sampleRate,
                           components: [center, offset, side, behind], componentNames: ["center", "offset", "side", "behind"],
                           intro: nil, outro: nil)
    }

    /// Three parts, slow: twelve beats (4.832 s) of soft, round tones for those who find the others busy; a slow
    /// melody on every other beat ahead, two notes offset, one low tone behind.
    static func glow() -> BeaconStyle {
        let beats = 12
        let melody = [72, 76, 79, 76, 74, 77]
        let center = loop(beats: beats) { s, b in
            guard b % 2 == 0 else { return }
            s.add(.mellow, midi: melody[b / 2], at: beat * Double(b), seconds: 0.7, gain: 0.4)
        }
        let offset = loop(beats: beats) { s, b in
            guard b % 6 == 0 else { return }
            s.add(.mellow, midi: 67, at: beat * Double(b), seconds: 0.8, gain: 0.4)
        }
        let behind = loop(beats: beats) { s, b in
            guard b == 0 else { return }
            s.add(.mellow, midi: 55, at: 0, seconds: 1.2, gain: 0.45)
        }
        return BeaconStyle(name: "Glow", beatsPerPhrase: beats, sampleRate: sampleRate,
                           components: [center, offset, behind], componentNames: ["center", "offset", "behind"],
                           intro: nil, outro: nil)
    }
}
