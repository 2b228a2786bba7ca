import Location

/// `soundscape doctor`: which heading sources there are besides the GPS course. A laptop has none built in, so
/// no compass is a warning, not a failure, with what to do instead.
public struct HeadingCheck: DoctorCheck {
    public let part = "Heading"
    let probe: @Sendable () -> CompassProbe.Result

    public init(probe: @escaping @Sendable () -> CompassProbe.Result = { CompassProbe.detect() }) {
        self.probe = probe
    }

    public func run() async -> DoctorResult {
        let others = "GPS course while walking; a head tracker with run --head-tracker PORT (OpenTrack UDP); \"I am facing north\""
        switch probe() {
        case .present:
            return DoctorResult(part: part, status: .ok,
                                detail: "a compass (iio-sensor-proxy) gives the direction you face while you stand; also \(others)")
        case .denied(let reason):
            return DoctorResult(part: part, status: .warning, detail: "a compass is there but \(reason); meanwhile \(others)")
        case .notPresent(let reason):
            return DoctorResult(part: part, status: .warning, detail: "no compass (\(reason)); \(others)")
        }
    }
}
