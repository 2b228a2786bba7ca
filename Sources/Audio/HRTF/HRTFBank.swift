import Foundation

/// Head-related filters for a grid of horizontal directions, precomputed at load for the render thread.
///
/// Each ear's impulse response from the SOFA file is split into a whole-sample delay (the time the
/// sound takes to reach that ear, which carries the interaural time difference) and a short filter
/// starting at the response's onset (which carries the level and spectral cues), trimmed to `taps`
/// samples with a raised-cosine tail. The filters are scaled so that, averaged over all directions,
/// each ear passes white noise at unit power: a source's loudness does not depend on the HRTF file.
///
/// Azimuths are in the listener's frame, degrees clockwise from ahead (90 = right ear).
public final class HRTFBank: @unchecked Sendable {
    public let sampleRate: Int
    /// Filter length per ear, a multiple of 8.
    public let taps: Int
    /// Number of directions on the grid (360 / resolution).
    public let directions: Int
    /// Largest per-ear delay in samples.
    public let maxDelay: Int
    /// Where the filters came from.
    public let sourceDescription: String

    /// filters[(direction * 2 + ear) * taps + k]; ear 0 = left, 1 = right.
    let filters: UnsafeMutablePointer<Float>
    /// delays[direction * 2 + ear] in samples.
    let delays: UnsafeMutablePointer<Int>

    /// Loads `sofaPath` with libmysofa at `sampleRate` and builds the grid.
    public convenience init(sofaPath: String = SOFAHRTF.debianDefaultPath, sampleRate: Int = 48_000,
                            taps: Int = 128, resolution: Double = 5) throws {
        let sofa = try SOFAHRTF(path: sofaPath, sampleRate: sampleRate)
        self.init(hrtf: sofa, taps: taps, resolution: resolution)
    }

    public convenience init(hrtf: SOFAHRTF, taps: Int = 128, resolution: Double = 5) {
        let count = max(4, Int((360 / resolution).rounded()))
        let pairs = (0..<count).map { hrtf.filter(azimuth: Double($0) * 360 / Double(count)) }
        self.init(pairs: pairs, sampleRate: hrtf.sampleRate, taps: taps, source: hrtf.path)
    }

    /// Builds the grid from impulse-response pairs at evenly spaced azimuths (pair i at i·360/count degrees).
    public init(pairs: [HRIRPair], sampleRate: Int, taps requestedTaps: Int = 128, source: String = "custom") {
        precondition(!pairs.isEmpty)
        let taps = max(8, (requestedTaps + 7) / 8 * 8)
        self.sampleRate = sampleRate
        self.taps = taps
        self.directions = pairs.count
        self.sourceDescription = source
        filters = .allocate(capacity: pairs.count * 2 * taps)
        filters.initialize(repeating: 0, count: pairs.count * 2 * taps)
        delays = .allocate(capacity: pairs.count * 2)
        delays.initialize(repeating: 0, count: pairs.count * 2)

        let preroll = 8
        let taper = taps / 4
        var maxD = 0
        var totalEnergy = 0.0
        for (d, pair) in pairs.enumerated() {
            let ears = [pair.left, pair.right]
            let extra = [pair.leftDelay, pair.rightDelay].map { Int((Double($0) * Double(sampleRate)).rounded()) }
            // Onset: first sample reaching 10 % of that ear's peak, less a little pre-ringing.
            let onsets = ears.map { ir -> Int in
                let peak = ir.map(abs).max() ?? 0
                let first = ir.firstIndex { abs($0) >= 0.1 * peak } ?? 0
                return max(0, first - preroll)
            }
            let arrival = zip(onsets, extra).map { $0 + $1 }
            let common = arrival.min() ?? 0
            for ear in 0..<2 {
                let ir = ears[ear]
                let dst = filters + (d * 2 + ear) * taps
                for k in 0..<taps {
                    let i = onsets[ear] + k
                    guard i < ir.count else { break }
                    var w: Float = 1
                    if k >= taps - taper {
                        let t = Float(k - (taps - taper) + 1) / Float(taper + 1)
                        w = 0.5 + 0.5 * cosf(.pi * t)
                    }
                    dst[k] = ir[i] * w
                    totalEnergy += Double(dst[k] * dst[k])
                }
                let delay = arrival[ear] - common
                delays[d * 2 + ear] = delay
                maxD = max(maxD, delay)
            }
        }
        maxDelay = maxD
        // Unit average power per ear over the grid.
        let meanEnergy = totalEnergy / Double(pairs.count * 2)
        let scale = meanEnergy > 0 ? Float(1 / meanEnergy.squareRoot()) : 1
        for i in 0..<(pairs.count * 2 * taps) { filters[i] *= scale }
    }

    deinit {
        filters.deallocate()
        delays.deallocate()
    }

    /// The grid index nearest to `azimuth` (degrees, any range). Safe on the render thread.
    @inline(__always)
    public func index(forAzimuth azimuth: Double) -> Int {
        guard azimuth.isFinite else { return 0 }
        var a = azimuth.truncatingRemainder(dividingBy: 360)
        if a < 0 { a += 360 }
        let i = Int((a * Double(directions) / 360).rounded())
        return i >= directions ? i - directions : i
    }

    /// The azimuth of grid point `index`.
    public func azimuth(ofIndex index: Int) -> Double { Double(index) * 360 / Double(directions) }

    /// A copy of one ear's trimmed filter and its delay (for tests and diagnostics).
    public func filter(index: Int, ear: Int) -> (taps: [Float], delay: Int) {
        let p = filters + (index * 2 + ear) * taps
        return (Array(UnsafeBufferPointer(start: p, count: taps)), delays[index * 2 + ear])
    }
}

/// Per-source spatialisation state: the input history the filters need and the direction last used.
/// Preallocated; `process` never allocates.
final class SpatialVoice {
    let bank: HRTFBank
    let blockSize: Int
    /// Past samples kept ahead of the current block.
    let past: Int
    /// history[0..<past] = earlier input, history[past..<past+blockSize] = the block being rendered.
    let history: UnsafeMutablePointer<Float>
    private let scratch: UnsafeMutablePointer<Float>   // 4 × blockSize: old L, old R, new L, new R
    /// Grid direction used in the last block; -1 before the first.
    private(set) var direction = -1

    init(bank: HRTFBank, blockSize: Int) {
        precondition(blockSize % 32 == 0, "the block size must be a multiple of 32 frames")
        self.bank = bank
        self.blockSize = blockSize
        past = (bank.taps + bank.maxDelay + 7) / 8 * 8
        history = .allocate(capacity: past + blockSize)
        history.initialize(repeating: 0, count: past + blockSize)
        scratch = .allocate(capacity: 4 * blockSize)
        scratch.initialize(repeating: 0, count: 4 * blockSize)
    }

    deinit {
        history.deallocate()
        scratch.deallocate()
    }

    /// Where the caller writes the next block of mono input.
    var input: UnsafeMutablePointer<Float> { history + past }

    func reset() {
        history.update(repeating: 0, count: past + blockSize)
        direction = -1
    }

    /// Filters the block in `input` for grid direction `target` and adds it to the interleaved stereo
    /// `output`, scaled by a gain ramping from `gainFrom` to `gainTo`. When the direction changed since
    /// the last block, the old and new filters' outputs are cross-faded over the block (no clicks).
    func process(target: Int, gainFrom: Float, gainTo: Float, output: UnsafeMutablePointer<Float>) {
        let n = blockSize
        let newL = scratch + 2 * n, newR = scratch + 3 * n
        convolve(direction: target, ear: 0, into: newL)
        convolve(direction: target, ear: 1, into: newR)
        let step = (gainTo - gainFrom) / Float(n)
        if direction >= 0 && direction != target {
            let oldL = scratch, oldR = scratch + n
            convolve(direction: direction, ear: 0, into: oldL)
            convolve(direction: direction, ear: 1, into: oldR)
            let invN = Float.pi / Float(n)
            for i in 0..<n {
                let w = 0.5 - 0.5 * cosf(invN * (Float(i) + 0.5))
                let g = gainFrom + step * Float(i)
                output[2 * i] += g * (oldL[i] + w * (newL[i] - oldL[i]))
                output[2 * i + 1] += g * (oldR[i] + w * (newR[i] - oldR[i]))
            }
        } else {
            for i in 0..<n {
                let g = gainFrom + step * Float(i)
                output[2 * i] += g * newL[i]
                output[2 * i + 1] += g * newR[i]
            }
        }
        direction = target
        // Slide the history: the newest `past` samples stay for the next block.
        history.update(from: history + n, count: past)
    }

    /// y[i] = Σ_k h[k] · x[i − delay − k], eight outputs per vector, four vectors at a time.
    @inline(__always)
    private func convolve(direction d: Int, ear: Int, into y: UnsafeMutablePointer<Float>) {
        let taps = bank.taps
        let h = bank.filters + (d * 2 + ear) * taps
        let delay = bank.delays[d * 2 + ear]
        let x = UnsafeRawPointer(history)
        let stride = MemoryLayout<Float>.stride
        var i0 = 0
        while i0 < blockSize {
            var a0 = SIMD8<Float>(), a1 = SIMD8<Float>(), a2 = SIMD8<Float>(), a3 = SIMD8<Float>()
            var base = past + i0 - delay
            for k in 0..<taps {
                let c = SIMD8<Float>(repeating: h[k])
                let p = x + base * stride
                a0 += c * p.loadUnaligned(as: SIMD8<Float>.self)
                a1 += c * p.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
                a2 += c * p.loadUnaligned(fromByteOffset: 64, as: SIMD8<Float>.self)
                a3 += c * p.loadUnaligned(fromByteOffset: 96, as: SIMD8<Float>.self)
                base -= 1
            }
            let out = UnsafeMutableRawPointer(y + i0)
            out.storeBytes(of: a0, as: SIMD8<Float>.self)
            out.storeBytes(of: a1, toByteOffset: 32, as: SIMD8<Float>.self)
            out.storeBytes(of: a2, toByteOffset: 64, as: SIMD8<Float>.self)
            out.storeBytes(of: a3, toByteOffset: 96, as: SIMD8<Float>.self)
            i0 += 32
        }
    }
}
