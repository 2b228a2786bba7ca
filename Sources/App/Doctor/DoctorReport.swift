/// The outcome of one `soundscape doctor` check.
public struct DoctorResult: Sendable, Equatable {
    public enum Status: String, Sendable {
        /// Present and working.
        case ok = "OK"
        /// Works, but something is worth knowing (for example GPS has no fix yet).
        case warning = "WARN"
        /// Missing or broken: the user needs this.
        case failed = "FAIL"
    }

    public var part: String
    public var status: Status
    /// What was found, in plain words.
    public var detail: String
    /// What to do about it, when it is not OK.
    public var fix: String?

    public init(part: String, status: Status, detail: String, fix: String? = nil) {
        self.part = part
        self.status = status
        self.detail = detail
        self.fix = fix
    }

    /// One line for the terminal, e.g. "OK    Sound server     PulseAudio 16.1, default sink spk".
    public var line: String {
        let head = status.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0)
            + part.padding(toLength: 17, withPad: " ", startingAt: 0)
        return head + detail + (fix.map { ". To fix: \($0)" } ?? "")
    }
}

/// A check that `soundscape doctor` runs.
public protocol DoctorCheck: Sendable {
    var part: String { get }
    func run() async -> DoctorResult
}

public enum Doctor {
    /// Runs every check in order and returns the results; the exit status is non-zero when any failed.
    public static func run(_ checks: [any DoctorCheck], report: (DoctorResult) -> Void) async -> [DoctorResult] {
        var results: [DoctorResult] = []
        for check in checks {
            let result = await check.run()
            report(result)
            results.append(result)
        }
        return results
    }
}
