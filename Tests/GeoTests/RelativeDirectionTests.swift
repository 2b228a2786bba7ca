import Testing
import Geo

/// Every sector edge of every style: the edge value itself belongs to the lower sector
/// (upper bound inclusive) and a hair above it to the next one. The tables are written out
/// by hand from the specification, not derived from the implementation.
@Suite("RelativeDirection")
struct RelativeDirectionTests {
    @Test("combined (8-way)", arguments: [
        (0.0, RelativeDirection.ahead), (15.0, .ahead), (15.0001, .aheadRight),
        (45.0, .aheadRight), (75.0, .aheadRight), (75.0001, .right),
        (90.0, .right), (105.0, .right), (105.0001, .behindRight),
        (135.0, .behindRight), (165.0, .behindRight), (165.0001, .behind),
        (180.0, .behind), (195.0, .behind), (195.0001, .behindLeft),
        (225.0, .behindLeft), (255.0, .behindLeft), (255.0001, .left),
        (270.0, .left), (285.0, .left), (285.0001, .aheadLeft),
        (315.0, .aheadLeft), (345.0, .aheadLeft), (345.0001, .ahead),
        (359.9999, .ahead), (360.0, .ahead),
        // Out-of-range input is normalized first.
        (-15.0, .aheadLeft), (-14.9999, .ahead), (375.0, .ahead), (375.0001, .aheadRight), (810.0, .right),
    ])
    func combined(angle: Double, expected: RelativeDirection) {
        #expect(RelativeDirection.combined(relativeAngle: angle) == expected)
    }

    @Test("individual (4-way)", arguments: [
        (0.0, RelativeDirection.ahead), (45.0, .ahead), (45.0001, .right),
        (90.0, .right), (135.0, .right), (135.0001, .behind),
        (180.0, .behind), (225.0, .behind), (225.0001, .left),
        (270.0, .left), (315.0, .left), (315.0001, .ahead),
        (360.0, .ahead), (-45.0, .left), (-44.9999, .ahead),
    ])
    func individual(angle: Double, expected: RelativeDirection) {
        #expect(RelativeDirection.individual(relativeAngle: angle) == expected)
    }

    @Test("leftRight (intersections)", arguments: [
        (0.0, RelativeDirection.ahead), (30.0, .ahead), (30.0001, .right),
        (90.0, .right), (150.0, .right), (150.0001, .behind),
        (180.0, .behind), (210.0, .behind), (210.0001, .left),
        (270.0, .left), (330.0, .left), (330.0001, .ahead),
        (360.0, .ahead), (-30.0, .left), (-29.9999, .ahead),
    ])
    func leftRight(angle: Double, expected: RelativeDirection) {
        #expect(RelativeDirection.leftRight(relativeAngle: angle) == expected)
    }

    @Test("aheadBehind", arguments: [
        (0.0, RelativeDirection.ahead), (75.0, .ahead), (75.0001, .right),
        (90.0, .right), (105.0, .right), (105.0001, .behind),
        (180.0, .behind), (255.0, .behind), (255.0001, .left),
        (270.0, .left), (285.0, .left), (285.0001, .ahead),
        (360.0, .ahead), (-75.0, .left), (-74.9999, .ahead),
    ])
    func aheadBehind(angle: Double, expected: RelativeDirection) {
        #expect(RelativeDirection.aheadBehind(relativeAngle: angle) == expected)
    }

    @Test func fourWayStylesNeverProduceDiagonals() {
        let diagonals: Set<RelativeDirection> = [.aheadRight, .behindRight, .behindLeft, .aheadLeft]
        for tenth in 0..<3600 {
            let angle = Double(tenth) / 10
            #expect(!diagonals.contains(RelativeDirection.individual(relativeAngle: angle)))
            #expect(!diagonals.contains(RelativeDirection.leftRight(relativeAngle: angle)))
            #expect(!diagonals.contains(RelativeDirection.aheadBehind(relativeAngle: angle)))
        }
    }

    @Test func styleDispatchMatchesNamedFunctions() {
        for angle in stride(from: -30.0, through: 390.0, by: 7.5) {
            #expect(RelativeDirection.from(relativeAngle: angle, style: .combined) == .combined(relativeAngle: angle))
            #expect(RelativeDirection.from(relativeAngle: angle, style: .individual) == .individual(relativeAngle: angle))
            #expect(RelativeDirection.from(relativeAngle: angle, style: .leftRight) == .leftRight(relativeAngle: angle))
            #expect(RelativeDirection.from(relativeAngle: angle, style: .aheadBehind) == .aheadBehind(relativeAngle: angle))
        }
    }

    @Test func initFromBearingAndHeading() {
        // Target at bearing 10° while facing 350°: 20° to the right.
        #expect(RelativeDirection(bearing: 10, heading: 350) == .aheadRight)
        #expect(RelativeDirection(bearing: 10, heading: 350, style: .individual) == .ahead)
        // Facing east, a target due north is on the left.
        #expect(RelativeDirection(bearing: 0, heading: 90, style: .leftRight) == .left)
    }

    @Test func phrasingKeys() {
        #expect(RelativeDirection.allCases.map(\.rawValue) == [
            "ahead", "ahead_right", "right", "behind_right", "behind", "behind_left", "left", "ahead_left",
        ])
        #expect(RelativeDirection(rawValue: "behind_left") == .behindLeft)
    }
}
