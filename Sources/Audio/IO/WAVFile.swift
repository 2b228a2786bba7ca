import Foundation

/// Errors reading a WAV file; each names the file and what is wrong with it.
public enum WAVError: Error, CustomStringConvertible, Equatable {
    case unreadable(path: String, reason: String)
    case notWAV(path: String)
    case unsupportedFormat(path: String, format: Int, bits: Int)
    case missingChunk(path: String, chunk: String)

    public var description: String {
        switch self {
        case .unreadable(let p, let r): return "\(p): cannot read the file (\(r))"
        case .notWAV(let p): return "\(p): not a RIFF/WAVE file"
        case .unsupportedFormat(let p, let f, let b): return "\(p): unsupported WAV encoding (format \(f), \(b) bits); use 16-bit PCM or 32-bit float"
        case .missingChunk(let p, let c): return "\(p): the WAV file has no \"\(c)\" chunk"
        }
    }
}

/// Reads and writes RIFF/WAVE files: 16-bit PCM and 32-bit IEEE float, any channel count.
public enum WAVFile {
    public static func read(_ path: String) throws -> PCMBuffer {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw WAVError.unreadable(path: path, reason: error.localizedDescription)
        }
        return try decode(data, path: path)
    }

    public static func decode(_ data: Data, path: String = "<memory>") throws -> PCMBuffer {
        let bytes = [UInt8](data)
        func u32(_ o: Int) -> Int { Int(bytes[o]) | Int(bytes[o+1]) << 8 | Int(bytes[o+2]) << 16 | Int(bytes[o+3]) << 24 }
        func u16(_ o: Int) -> Int { Int(bytes[o]) | Int(bytes[o+1]) << 8 }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else {
            throw WAVError.notWAV(path: path)
        }
        var offset = 12
        var format = 0, channels = 0, rate = 0, bits = 0
        var payload: Range<Int>?
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset+4], as: UTF8.self)
            var size = u32(offset + 4)
            let body = offset + 8
            // A recorder killed mid-write leaves a data size of 0 or 0xFFFFFFFF: take what is there.
            if id == "data" && (size == 0 || body + size > bytes.count) { size = bytes.count - body }
            if id == "fmt " && body + 16 <= bytes.count {
                format = u16(body); channels = u16(body + 2); rate = u32(body + 4); bits = u16(body + 14)
                if format == 0xFFFE && size >= 26 { format = u16(body + 24) }   // WAVE_FORMAT_EXTENSIBLE
            } else if id == "data" {
                payload = body..<min(body + size, bytes.count)
            }
            offset = body + size + (size & 1)
        }
        guard channels > 0, rate > 0 else { throw WAVError.missingChunk(path: path, chunk: "fmt ") }
        guard let payload else { throw WAVError.missingChunk(path: path, chunk: "data") }
        var samples: [Float] = []
        switch (format, bits) {
        case (1, 16):
            samples.reserveCapacity(payload.count / 2)
            var i = payload.lowerBound
            while i + 1 < payload.upperBound {
                samples.append(Float(Int16(bitPattern: UInt16(bytes[i]) | UInt16(bytes[i+1]) << 8)) / 32768)
                i += 2
            }
        case (3, 32):
            samples.reserveCapacity(payload.count / 4)
            var i = payload.lowerBound
            while i + 3 < payload.upperBound {
                samples.append(Float(bitPattern: UInt32(u32(i))))
                i += 4
            }
        default:
            throw WAVError.unsupportedFormat(path: path, format: format, bits: bits)
        }
        samples.removeLast(samples.count % channels)
        return PCMBuffer(sampleRate: rate, channels: channels, samples: samples)
    }

    public enum Encoding: Sendable { case int16, float32 }

    public static func encode(_ buffer: PCMBuffer, encoding: Encoding = .int16) -> Data {
        let bytesPerSample = encoding == .int16 ? 2 : 4
        let dataSize = buffer.samples.count * bytesPerSample
        var out = Data(capacity: 44 + dataSize)
        func put32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { out.append(contentsOf: $0) } }
        func put16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { out.append(contentsOf: $0) } }
        out.append(contentsOf: Array("RIFF".utf8)); put32(36 + dataSize); out.append(contentsOf: Array("WAVE".utf8))
        out.append(contentsOf: Array("fmt ".utf8)); put32(16)
        put16(encoding == .int16 ? 1 : 3); put16(buffer.channels); put32(buffer.sampleRate)
        put32(buffer.sampleRate * buffer.channels * bytesPerSample); put16(buffer.channels * bytesPerSample); put16(bytesPerSample * 8)
        out.append(contentsOf: Array("data".utf8)); put32(dataSize)
        switch encoding {
        case .int16: for s in buffer.int16Samples { put16(Int(UInt16(bitPattern: s))) }
        case .float32: for s in buffer.samples { put32(Int(s.bitPattern)) }
        }
        return out
    }

    /// Writes atomically (temporary file, then rename), so a reader never sees half a file.
    public static func write(_ buffer: PCMBuffer, to path: String, encoding: Encoding = .int16) throws {
        try encode(buffer, encoding: encoding).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
