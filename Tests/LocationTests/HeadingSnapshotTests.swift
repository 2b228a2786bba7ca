import Foundation
import Location
import Synchronization
import Testing

@Suite struct HeadingSnapshotTests {
    @Test func storesAndClears() {
        let s = HeadingSnapshot()
        #expect(s.presentation == nil && s.beacon == nil && s.generation == 0)
        s.store(presentation: 123.25, beacon: 0)
        #expect(s.presentation == 123.25)
        #expect(s.beacon == 0)          // 0 (north) is a heading, not "none"
        #expect(s.generation == 1)
        s.store(presentation: nil, beacon: .nan)
        #expect(s.presentation == nil && s.beacon == nil)
    }

    /// A writer thread and two reader threads hammer it; readers only ever see values that were written whole.
    /// (Plain threads, like the audio thread, and not the cooperative pool.)
    @Test func readersNeverSeeATornValue() {
        let s = HeadingSnapshot()
        let values: [Double] = (0..<64).map { Double($0) * 5.625 + 0.123456789 }
        let allowed = Set(values.map(\.bitPattern))
        let bad = Atomic<Int>(0)
        let done = DispatchGroup()
        let writer = Thread {
            for i in 0..<100_000 { s.store(presentation: values[i % 64], beacon: i % 3 == 0 ? nil : values[(i * 7) % 64]) }
            done.leave()
        }
        let readers = (0..<2).map { _ in
            Thread {
                for _ in 0..<100_000 {
                    if let p = s.presentation, !allowed.contains(p.bitPattern) { bad.add(1, ordering: .relaxed) }
                    if let b = s.beacon, !allowed.contains(b.bitPattern) { bad.add(1, ordering: .relaxed) }
                }
                done.leave()
            }
        }
        for thread in [writer] + readers { done.enter(); thread.start() }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(bad.load(ordering: .relaxed) == 0)
        #expect(s.generation == 100_000)
    }
}
