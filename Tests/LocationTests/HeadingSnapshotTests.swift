import Foundation
import Location
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

    /// A writer thread and reader threads hammer it; readers only ever see values that were written whole.
    @Test func readersNeverSeeATornValue() async {
        let s = HeadingSnapshot()
        let values: [Double] = (0..<64).map { Double($0) * 5.625 + 0.123456789 }
        let allowed = Set(values.map(\.bitPattern))
        let writer = Thread {
            for i in 0..<200_000 { s.store(presentation: values[i % 64], beacon: i % 3 == 0 ? nil : values[(i * 7) % 64]) }
        }
        writer.start()
        let bad = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    var bad = 0
                    for _ in 0..<200_000 {
                        if let p = s.presentation, !allowed.contains(p.bitPattern) { bad += 1 }
                        if let b = s.beacon, !allowed.contains(b.bitPattern) { bad += 1 }
                    }
                    return bad
                }
            }
            return await group.reduce(0, +)
        }
        #expect(bad == 0)
    }
}
