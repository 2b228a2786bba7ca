import Clocks

extension TestClock<Duration> {
    /// True while some task sleeps on this clock (asked after letting the other tasks run).
    public var hasSleepers: Bool {
        get async { (try? await checkSuspension()) == nil }
    }

    /// Returns once some task sleeps on this clock, so that an `advance` reaches it: the code under test has got to
    /// its wait, whatever real work (a refused connection, a thread) came before. Returns early if the test is
    /// cancelled (by its time limit).
    public func waitUntilSomethingSleeps() async {
        while !Task.isCancelled, await !hasSleepers {}
    }
}
