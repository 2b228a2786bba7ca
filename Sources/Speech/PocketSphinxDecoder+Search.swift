import CPocketSphinx
import Foundation

/// One word (or filler, or phone in a phone-loop search) of a decoded utterance.
public struct DecodedSegment: Sendable, Equatable {
    /// The word as the dictionary names it: "around(3)" for an alternative pronunciation, "<sil>",
    /// "[NOISE]", "<s>", "</s>" for fillers.
    public var word: String
    /// First and last 10 ms frame (inclusive).
    public var startFrame: Int
    public var endFrame: Int
    /// Acoustic score (log domain, natural units of the decoder's log base; more negative is worse).
    public var acousticScore: Int32
    public var languageScore: Int32

    public var frameCount: Int { endFrame - startFrame + 1 }
    /// The word without its "(2)" pronunciation number.
    public var baseWord: String {
        if let paren = word.firstIndex(of: "("), word.hasSuffix(")") { return String(word[..<paren]) }
        return word
    }
    public var isFiller: Bool { word.hasPrefix("<") || word.hasPrefix("[") || word.hasPrefix("++") || word == "SIL" }
}

extension PocketSphinxDecoder {
    /// The words of the last utterance with their frames and scores (after ``end()``).
    public func segments() -> [DecodedSegment] {
        var out: [DecodedSegment] = []
        var seg = ps_seg_iter(decoder)
        while let s = seg {
            var sf: Int32 = 0, ef: Int32 = 0, ascr: Int32 = 0, lscr: Int32 = 0, lback: Int32 = 0
            ps_seg_frames(s, &sf, &ef)
            _ = ps_seg_prob(s, &ascr, &lscr, &lback)
            let word = ps_seg_word(s).map { String(cString: $0) } ?? ""
            out.append(DecodedSegment(word: word, startFrame: Int(sf), endFrame: Int(ef), acousticScore: ascr, languageScore: lscr))
            seg = ps_seg_next(s)
        }
        return out
    }

    /// Makes a phone-loop search (every phone, weighted by a phonetic language model) the active one.
    /// Use a decoder of its own made with `-allphone_ci yes`: switching one decoder between a grammar and
    /// the phone loop, or a phone loop without `-allphone_ci`, hangs PocketSphinx 5prealpha.
    public func usePhoneLoop(languageModel: String, name: String = "phones") throws {
        if ps_set_allphone_file(decoder, name, languageModel) < 0 {
            throw RecognitionError(message: "the phone loop did not load from \(languageModel): \(lastLogErrors())")
        }
        if ps_set_search(decoder, name) < 0 { throw RecognitionError(message: "cannot switch to the phone loop") }
    }

    /// Makes keyphrase spotting the active search (a wake word such as "hey soundscape").
    public func useKeyphrase(_ phrase: String, name: String = "wake") throws {
        if ps_set_keyphrase(decoder, name, phrase) < 0 {
            throw RecognitionError(message: "the wake phrase \"\(phrase)\" did not load: \(lastLogErrors())")
        }
        if ps_set_search(decoder, name) < 0 { throw RecognitionError(message: "cannot switch to wake-word spotting") }
    }

    /// Loads a grammar as a search named `name` without switching to it (``switchSearch(to:)``).
    public func addGrammar(jsgf: String, name: String) throws {
        if ps_set_jsgf_string(decoder, name, jsgf) < 0 {
            throw RecognitionError(message: "the grammar did not load: \(lastLogErrors())")
        }
    }

    /// Makes the search `name` the active one; between utterances.
    public func switchSearch(to name: String) throws {
        if ps_set_search(decoder, name) < 0 { throw RecognitionError(message: "cannot switch to the search \"\(name)\"") }
    }

    /// Drops a search that is not the active one.
    public func removeSearch(_ name: String) {
        _ = ps_unset_search(decoder, name)
    }

    /// The best hypothesis so far, while an utterance is still being decoded.
    public func partialHypothesis() -> String {
        var score: Int32 = 0
        return ps_get_hyp(decoder, &score).map { String(cString: $0) } ?? ""
    }

    /// Whether the decoder's voice-activity detector hears speech in the current utterance.
    public var inSpeech: Bool { ps_get_in_speech(decoder) != 0 }

    /// Up to `count` distinct hypotheses of the last utterance, best first, with their path scores.
    public func nbest(_ count: Int) -> [(text: String, score: Int32)] {
        var out: [(String, Int32)] = []
        var it = ps_nbest(decoder)
        while let n = it, out.count < count * 4 {
            var score: Int32 = 0
            if let hyp = ps_nbest_hyp(n, &score) {
                let text = String(cString: hyp)
                if !out.contains(where: { $0.0 == text }) { out.append((text, score)) }
                if out.count >= count { ps_nbest_free(n); break }
            }
            it = ps_nbest_next(n)
        }
        return out
    }

    /// The pronunciation of a dictionary word (CMU phones), or nil.
    public func phones(of word: String) -> String? {
        guard let p = ps_lookup_word(decoder, word) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}

/// How far the best grammar path of an utterance is ahead of the best path that means something else,
/// worked out from its N-best hypotheses as they come, best first: the score of the first minus the score of
/// the first one for which `same` (given both word strings, pronunciation numbers and fillers removed) is
/// false. Speech the grammar contains usually has one clear winner; speech it does not contain fits several
/// paths about equally badly. When no other words appear within `limit` hypotheses, the gap to the last one
/// looked at (a lower bound).
struct NBestMargin {
    let limit: Int
    let same: (String, String) -> Bool
    private var best: (text: String, score: Int32)?
    private var last: Int32 = 0
    private var seen = 0
    /// Set once a rival meaning has been found.
    private(set) var rival: Int32?

    init(limit: Int, same: @escaping (String, String) -> Bool) {
        self.limit = limit
        self.same = same
    }

    /// Whether more hypotheses could still change the margin.
    var wantsMore: Bool { rival == nil && seen < limit }

    /// The margin so far; nil before the first hypothesis.
    var margin: Int32? { rival ?? best.map { $0.score - last } }

    /// Takes the next hypothesis (as PocketSphinx writes it, fillers and pronunciation numbers included).
    mutating func add(_ hypothesis: String, score: Int32) {
        guard wantsMore else { return }
        let text = hypothesis.split(separator: " ").filter { !($0.hasPrefix("<") || $0.hasPrefix("[")) }
            .map { w -> Substring in w.firstIndex(of: "(").map { w[..<$0] } ?? w }.joined(separator: " ")
        seen += 1
        last = score
        if let best {
            if !same(best.text, text) { rival = best.score - score }
        } else {
            best = (text, score)
        }
    }
}

extension PocketSphinxDecoder {
    /// The N-best margin (``NBestMargin``) of the last utterance, searched in this process. Building the
    /// lattice cannot be interrupted: a long noisy utterance against a big grammar can take seconds before the
    /// first hypothesis comes (``startMarginSearch(limit:same:)`` can be stopped). Nil when there is no lattice.
    public func nbestMargin(limit: Int = 30, same: @escaping (String, String) -> Bool = { $0 == $1 }) -> Int32? {
        var margin = NBestMargin(limit: limit, same: same)
        var it = ps_nbest(decoder)
        defer { if let n = it { ps_nbest_free(n) } }
        while let n = it, margin.wantsMore {
            var score: Int32 = 0
            if let hyp = ps_nbest_hyp(n, &score) { margin.add(String(cString: hyp), score: score) }
            it = ps_nbest_next(n)
        }
        return margin.margin
    }

    /// Starts the N-best margin search of the last utterance in a forked copy of this process (see
    /// `soundscape_fork_nbest`), so that it can be stopped when its answer would come too late and the
    /// decoder is free for the next utterance at once. Nil when the process cannot fork.
    public func startMarginSearch(limit: Int = 30, same: @escaping (String, String) -> Bool = { $0 == $1 }) -> ForkedMarginSearch? {
        ForkedMarginSearch(decoder: self, limit: limit, same: same)
    }
}

/// An N-best margin search running in a child process, which writes the hypotheses to a pipe as it finds them.
/// ``wait(for:)`` reads them until the margin is known or the time is up; then the child is killed (and reaped in
/// the background).
/// Not thread-safe: one thread waits.
public final class ForkedMarginSearch {
    private var pid: pid_t
    private var fd: Int32
    private var margin: NBestMargin
    private var pending: [UInt8] = []
    private var outcome: Int32??
    private let started: ContinuousClock.Instant

    init?(decoder: PocketSphinxDecoder, limit: Int, same: @escaping (String, String) -> Bool) {
        var fds: [Int32] = [0, 0]
        guard soundscape_pipe(&fds) == 0 else { return nil }
        started = .now
        let child = soundscape_fork_nbest(decoder.decoder, Int32(limit), fds[0], fds[1])
        close(fds[1])
        guard child > 0 else {
            close(fds[0])
            return nil
        }
        pid = child
        fd = fds[0]
        margin = NBestMargin(limit: limit, same: same)
    }

    deinit { stop() }

    /// The margin, or nil with `timedOut` when it was not known within `budget` of the start (nil: as long as it
    /// takes; zero: not at all). Either way the child has been killed when this returns; it is reaped soon after.
    public func wait(for budget: Duration?) -> (margin: Int32?, timedOut: Bool) {
        if let outcome { return (outcome, false) }
        guard pid > 0 else { return (nil, true) }   // stopped before, without an answer
        // From the fork on: copying a big process's page tables takes a few milliseconds of the budget.
        let deadline = budget.map { started + $0 }
        var chunk = [UInt8](repeating: 0, count: 4096)
        var written = false   // the child has written everything (or died): what has come is the answer
        while margin.wantsMore && !written {
            var timeout: Int32 = -1
            if let deadline {
                let left = deadline - ContinuousClock.now
                if left <= .zero { break }
                let (s, a) = left.components
                timeout = Int32(min(Int64(Int32.max), s * 1000 + (a + 999_999_999_999_999) / 1_000_000_000_000_000))
            }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, timeout) <= 0 { continue }   // interrupted or timed out: the deadline check ends the loop
            let n = read(fd, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { written = true } else { take(chunk[0..<n]) }
        }
        stop()
        guard written || !margin.wantsMore else { return (nil, true) }
        outcome = .some(margin.margin)
        return (margin.margin, false)
    }

    /// Splits what came into lines ("score words") and gives each to the margin.
    private func take(_ bytes: ArraySlice<UInt8>) {
        pending += bytes
        while let newline = pending.firstIndex(of: 10) {
            let line = String(decoding: pending[..<newline], as: UTF8.self)
            pending.removeSubrange(...newline)
            let parts = line.split(separator: " ", maxSplits: 1)
            guard let score = parts.first.flatMap({ Int32($0) }) else { continue }
            margin.add(parts.count > 1 ? String(parts[1]) : "", score: score)
        }
    }

    /// Kills the child if it is still running, closes the pipe, and has the child reaped off the caller's path:
    /// a killed copy of a big process takes milliseconds to tear down, and the decision should not wait for it.
    private func stop() {
        guard pid > 0 else { return }
        let child = pid
        kill(child, SIGKILL)
        close(fd)
        pid = 0
        fd = -1
        DispatchQueue.global(qos: .utility).async {
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        }
    }
}
