import Foundation

/// Windowed-sinc sample-rate conversion that takes its input piece by piece (for speech that arrives
/// while it is synthesized). Same kernel as ``Resampler`` (Blackman window), polyphase for the rational
/// ratio `to / from`. Not for the render thread: it allocates its output.
public final class StreamingResampler {
    public let inputRate: Int
    public let outputRate: Int
    private let up: Int
    private let down: Int
    private let halfTaps: Int
    private let width: Int
    private let taps: [Float]
    /// Input not yet fully consumed; `history[0]` is input sample number `historyStart`.
    private var history: [Float] = []
    private var historyStart = 0
    /// Next output sample, in units of 1/up input samples: n * down.
    private var nextOutput = 0
    private var inputCount = 0

    public init(from inputRate: Int, to outputRate: Int, zeroCrossings: Int = 12) {
        precondition(inputRate > 0 && outputRate > 0)
        self.inputRate = inputRate
        self.outputRate = outputRate
        var a = inputRate, b = outputRate
        while b != 0 { (a, b) = (b, a % b) }
        up = outputRate / a
        down = inputRate / a
        let cutoff = 0.97 * min(1.0, Double(outputRate) / Double(inputRate))
        halfTaps = Int((Double(zeroCrossings) / cutoff).rounded(.up))
        width = 2 * halfTaps
        var table = [Float](repeating: 0, count: up * width)
        for phase in 0..<up {
            let frac = Double(phase) / Double(up)
            var sum = 0.0
            var row = [Double](repeating: 0, count: width)
            for k in 0..<width {
                let x = Double(k - halfTaps + 1) - frac
                let t = x / Double(halfTaps)
                let window = abs(t) >= 1 ? 0 : 0.42 + 0.5 * cos(.pi * t) + 0.08 * cos(2 * .pi * t)
                let arg = .pi * cutoff * x
                let sinc = abs(arg) < 1e-12 ? 1 : sin(arg) / arg
                row[k] = cutoff * sinc * window
                sum += row[k]
            }
            for k in 0..<width { table[phase * width + k] = Float(row[k] / sum) }
        }
        taps = table
        // Pretend there was silence before the first sample, so output 0 lines up with input 0.
        history = [Float](repeating: 0, count: halfTaps)
        historyStart = -halfTaps
    }

    /// Feeds input samples and returns every output sample that can now be computed.
    public func process(_ input: UnsafeBufferPointer<Float>) -> [Float] {
        history.append(contentsOf: input)
        inputCount += input.count
        return produce(until: inputCount)
    }

    public func process(_ input: [Float]) -> [Float] { input.withUnsafeBufferPointer { process($0) } }

    /// Flushes the tail (pads with silence) and returns the remaining output.
    public func finish() -> [Float] {
        let total = Int((Double(inputCount) * Double(up) / Double(down)).rounded(.down))
        history.append(contentsOf: [Float](repeating: 0, count: width))
        var out = produce(until: inputCount + halfTaps)
        let already = nextOutput / down - out.count
        if already + out.count > total { out.removeLast(already + out.count - total) }
        return out
    }

    private func produce(until available: Int) -> [Float] {
        var out: [Float] = []
        // Output n needs input samples up to base + halfTaps, where base = floor(n*down/up).
        while true {
            let position = nextOutput
            let base = position / up
            if base + halfTaps >= available { break }
            let phase = position % up
            let start = base - halfTaps + 1 - historyStart
            var acc: Float = 0
            let row = phase * width
            for k in 0..<width {
                let i = start + k
                if i >= 0 && i < history.count { acc += history[i] * taps[row + k] }
            }
            out.append(acc)
            nextOutput += down
        }
        // Forget input that no future output needs.
        let keepFrom = nextOutput / up - halfTaps + 1 - historyStart
        if keepFrom > 4_096 {
            history.removeFirst(keepFrom)
            historyStart += keepFrom
        }
        return out
    }
}
