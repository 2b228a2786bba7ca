import CMySofa
import Foundation

/// A pair of head-related impulse responses for one direction, at the HRTF's sample rate.
public struct HRIRPair: Sendable, Equatable {
    public var left: [Float]
    public var right: [Float]
    /// Extra delays in seconds that the SOFA file stores apart from the impulse responses (often 0).
    public var leftDelay: Float
    public var rightDelay: Float

    /// Energy of each ear's filter (sum of squares).
    public var leftEnergy: Float { left.reduce(0) { $0 + $1 * $1 } }
    public var rightEnergy: Float { right.reduce(0) { $0 + $1 * $1 } }
}

public enum HRTFError: Error, CustomStringConvertible, Equatable {
    case cannotOpen(path: String, code: Int32)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let code):
            let why: String
            switch code {
            case Int32(MYSOFA_READ_ERROR): why = "the file cannot be read"
            case Int32(MYSOFA_INVALID_FORMAT): why = "it is not a SOFA (HDF5) file"
            case Int32(MYSOFA_UNSUPPORTED_FORMAT): why = "its SOFA convention is not SimpleFreeFieldHRIR"
            default: why = "libmysofa error \(code)"
            }
            return "\(path): cannot load the HRTF: \(why)"
        }
    }
}

/// A head-related transfer function read from a SOFA file with libmysofa, resampled to the output rate.
///
/// Directions use the listener's frame, as everywhere in this program: azimuth in degrees clockwise from
/// straight ahead (90 = right ear, 270 = left ear), elevation in degrees up from the horizontal plane.
/// Loading takes a few hundred milliseconds; filter look-ups are sub-microsecond but must not happen on
/// the render thread (they allocate) — compute them ahead and hand the coefficients over.
public final class SOFAHRTF: @unchecked Sendable {
    /// The SOFA file shipped by Debian's libmysofa1 package (MIT KEMAR, normal pinna).
    public static let debianDefaultPath = "/usr/share/libmysofa/MIT_KEMAR_normal_pinna.sofa"

    public let path: String
    public let sampleRate: Int
    public let filterLength: Int
    private let easy: UnsafeMutablePointer<MYSOFA_EASY>
    private let lock = NSLock()   // libmysofa's interpolation scratch buffer is shared per handle

    public init(path: String = SOFAHRTF.debianDefaultPath, sampleRate: Int = 48_000) throws {
        var length: Int32 = 0
        var err: Int32 = 0
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw HRTFError.cannotOpen(path: path, code: Int32(MYSOFA_READ_ERROR))
        }
        guard let e = mysofa_open(path, Float(sampleRate), &length, &err), err == Int32(MYSOFA_OK) else {
            throw HRTFError.cannotOpen(path: path, code: err)
        }
        self.path = path
        self.sampleRate = sampleRate
        self.filterLength = Int(length)
        self.easy = e
    }

    deinit { mysofa_close(easy) }

    /// The interpolated filter pair for a direction in the listener's frame.
    public func filter(azimuth: Double, elevation: Double = 0) -> HRIRPair {
        // SOFA cartesian: x forward, y to the left, z up. Our azimuth turns clockwise (to the right).
        let az = azimuth * .pi / 180, el = elevation * .pi / 180
        let x = Float(cos(el) * cos(az)), y = Float(-cos(el) * sin(az)), z = Float(sin(el))
        var left = [Float](repeating: 0, count: filterLength)
        var right = [Float](repeating: 0, count: filterLength)
        var dl: Float = 0, dr: Float = 0
        lock.lock()
        mysofa_getfilter_float(easy, x, y, z, &left, &right, &dl, &dr)
        lock.unlock()
        return HRIRPair(left: left, right: right, leftDelay: dl, rightDelay: dr)
    }
}
