import Foundation

/// Makes pronunciations for words the dictionary lacks (Finnish street names, brand names).
public protocol Pronouncer: Sendable {
    /// CMU-phone pronunciations for each word, most likely first ("S T AA K M AH N"); words it cannot
    /// pronounce are left out.
    func pronunciations(for words: [String]) -> [String: [String]]
}

/// Pronunciations from espeak-ng's letter-to-sound rules: `espeak-ng -q --ipa -v VOICE` gives IPA for
/// each word, which ``IPAToCMU`` maps onto the acoustic model's 39 phones. Several voices give
/// alternatives: an English speaker's reading of a Finnish name (en-us, en) and the Finnish one (fi).
///
/// The espeak-ng program runs in a child process, once per batch, so it never shares the process-wide
/// espeak-ng library state with the speech output.
public struct EspeakPronouncer: Pronouncer {
    public var executable: String
    public var voices: [String]

    public init(executable: String = "/usr/bin/espeak-ng", voices: [String] = ["en-us", "en", "fi"]) {
        self.executable = executable
        self.voices = voices
    }

    public var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    public func pronunciations(for words: [String]) -> [String: [String]] {
        let words = words.filter { !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0 == "'" } }
        guard !words.isEmpty, isAvailable else { return [:] }
        var result: [String: [String]] = [:]
        for voice in voices {
            let ipa = ipaLines(words, voice: voice)
            for (word, line) in zip(words, ipa) {
                let phones = IPAToCMU.phones(line)
                guard !phones.isEmpty else { continue }
                let pron = phones.joined(separator: " ")
                if !(result[word] ?? []).contains(pron) { result[word, default: []].append(pron) }
            }
        }
        return result
    }

    /// One IPA line per word (a word per input line keeps espeak-ng's output aligned).
    func ipaLines(_ words: [String], voice: String) -> [String] {
        let batch = run(input: words.joined(separator: "\n") + "\n", voice: voice)
        if batch.count == words.count { return batch }
        // espeak-ng merged or split a line: fall back to one call per word.
        return words.map { run(input: $0 + "\n", voice: voice).joined(separator: " ") }
    }

    private func run(input: String, voice: String) -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-q", "--ipa", "-v", voice]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return [] }
        let writer = Thread {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

/// Maps espeak-ng's IPA onto the 39 CMU phones of the en-us acoustic model.
public enum IPAToCMU {
    /// Longest symbols first, so "aɪ" wins over "a".
    static let table: [(String, [String])] = [
        ("aɪə", ["AY", "ER"]), ("aʊə", ["AW", "ER"]),
        ("tʃ", ["CH"]), ("dʒ", ["JH"]), ("aɪ", ["AY"]), ("aʊ", ["AW"]), ("eɪ", ["EY"]), ("oʊ", ["OW"]), ("əʊ", ["OW"]),
        // espeak-ng's "sj", "tj"… ("suomalainen" as syoo-): with "S Y" in a name, "set beacon on school"
        // decoded as nothing (PocketSphinx 5prealpha); American English drops the y there anyway.
        ("sj", ["S"]), ("tj", ["T"]), ("dj", ["D"]), ("nj", ["N"]), ("lj", ["L"]), ("zj", ["Z"]), ("θj", ["TH"]),
        ("ɔɪ", ["OY"]), ("iə", ["IY", "AH"]), ("eə", ["EH", "R"]), ("ʊə", ["UH", "R"]), ("ɛɹ", ["EH", "R"]),
        ("au", ["AW"]), ("ai", ["AY"]), ("ei", ["EY"]), ("ou", ["OW"]), ("oi", ["OY"]), ("ie", ["IY", "EH"]),
        ("uo", ["UW", "OW"]), ("yø", ["UW", "ER"]),
        ("ɑ", ["AA"]), ("ɒ", ["AA"]), ("æ", ["AE"]), ("ʌ", ["AH"]), ("ə", ["AH"]), ("ɐ", ["AH"]), ("ɘ", ["AH"]),
        ("ɔ", ["AO"]), ("ɛ", ["EH"]), ("e", ["EH"]), ("ɚ", ["ER"]), ("ɝ", ["ER"]), ("ɜ", ["ER"]), ("ɪ", ["IH"]),
        ("ᵻ", ["IH"]), ("i", ["IY"]), ("ʊ", ["UH"]), ("u", ["UW"]), ("o", ["OW"]), ("a", ["AA"]), ("y", ["UW"]),
        ("ø", ["ER"]), ("œ", ["ER"]), ("ɵ", ["ER"]), ("ʉ", ["UW"]),
        ("b", ["B"]), ("d", ["D"]), ("ð", ["DH"]), ("f", ["F"]), ("ɡ", ["G"]), ("g", ["G"]), ("h", ["HH"]),
        ("k", ["K"]), ("l", ["L"]), ("ɫ", ["L"]), ("m", ["M"]), ("n", ["N"]), ("ŋ", ["NG"]), ("p", ["P"]),
        ("ɹ", ["R"]), ("r", ["R"]), ("ɾ", ["T"]), ("s", ["S"]), ("ʃ", ["SH"]), ("t", ["T"]), ("θ", ["TH"]),
        ("v", ["V"]), ("ʋ", ["V"]), ("w", ["W"]), ("j", ["Y"]), ("z", ["Z"]), ("ʒ", ["ZH"]), ("x", ["HH"]),
        ("ç", ["HH"]), ("χ", ["HH"]), ("c", ["K"]), ("q", ["K"]), ("ɲ", ["N", "Y"]), ("ʎ", ["L", "Y"]),
    ]

    /// The CMU phones for one word's IPA; marks espeak-ng adds (stress ˈ ˌ, length ː, syllable and
    /// tie marks, combining diacritics) are dropped, and a doubled phone (Finnish geminates) is kept once.
    public static func phones(_ ipa: String) -> [String] {
        let cleaned = ipa.unicodeScalars.filter { s in
            !(["ˈ", "ˌ", "ː", "ˑ", ".", "‿", "͡", "-", "'", " ", "_", "|", "ʔ"] as [Unicode.Scalar]).contains(s)
                && !(0x0300...0x036F).contains(s.value)
        }
        var rest = Substring(String(String.UnicodeScalarView(cleaned)))
        var out: [String] = []
        while !rest.isEmpty {
            if let (symbol, phones) = table.first(where: { rest.hasPrefix($0.0) }) {
                for p in phones where out.last != p || !isConsonant(p) { out.append(p) }
                rest = rest.dropFirst(symbol.count)
            } else {
                rest = rest.dropFirst()
            }
        }
        return out
    }

    static func isConsonant(_ p: String) -> Bool {
        !["AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW"].contains(p)
    }
}
