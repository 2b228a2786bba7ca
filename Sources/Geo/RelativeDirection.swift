/// Where something is relative to the listener's facing direction.
///
/// The raw value is a phrasing key (e.g. "ahead_right"); string tables elsewhere turn it
/// into speech. Each static classifier below maps a relative angle (degrees, 0 = straight
/// ahead, clockwise, any real value; it is normalized first) to a direction. Sectors are
/// half-open: lower bound exclusive, upper bound inclusive, wrapping through 0/360.
public enum RelativeDirection: String, Sendable, CaseIterable {
    case ahead
    case aheadRight = "ahead_right"
    case right
    case behindRight = "behind_right"
    case behind
    case behindLeft = "behind_left"
    case left
    case aheadLeft = "ahead_left"

    /// The named classification schemes, for callers that pick one at run time.
    public enum Style: String, Sendable, CaseIterable {
        case combined, individual, leftRight, aheadBehind
    }

    /// 8-way: ahead (345,15], aheadRight (15,75], right (75,105], behindRight (105,165],
    /// behind (165,195], behindLeft (195,255], left (255,285], aheadLeft (285,345].
    public static func combined(relativeAngle: Double) -> RelativeDirection {
        classify(relativeAngle, [
            (15, .ahead), (75, .aheadRight), (105, .right), (165, .behindRight),
            (195, .behind), (255, .behindLeft), (285, .left), (345, .aheadLeft),
        ])
    }

    /// 4-way: ahead (315,45], right (45,135], behind (135,225], left (225,315].
    public static func individual(relativeAngle: Double) -> RelativeDirection {
        classify(relativeAngle, [(45, .ahead), (135, .right), (225, .behind), (315, .left)])
    }

    /// 4-way with wide sides, for roads at intersections:
    /// ahead (330,30], right (30,150], behind (150,210], left (210,330].
    public static func leftRight(relativeAngle: Double) -> RelativeDirection {
        classify(relativeAngle, [(30, .ahead), (150, .right), (210, .behind), (330, .left)])
    }

    /// 4-way with wide front and back:
    /// ahead (285,75], right (75,105], behind (105,255], left (255,285].
    public static func aheadBehind(relativeAngle: Double) -> RelativeDirection {
        classify(relativeAngle, [(75, .ahead), (105, .right), (255, .behind), (285, .left)])
    }

    /// Classifies with the given `style`.
    public static func from(relativeAngle: Double, style: Style) -> RelativeDirection {
        switch style {
        case .combined: combined(relativeAngle: relativeAngle)
        case .individual: individual(relativeAngle: relativeAngle)
        case .leftRight: leftRight(relativeAngle: relativeAngle)
        case .aheadBehind: aheadBehind(relativeAngle: relativeAngle)
        }
    }

    /// Direction of something at true `bearing` for a listener facing `heading`.
    public init(bearing: Double, heading: Double, style: Style = .combined) {
        self = Self.from(relativeAngle: Angle.relative(bearing: bearing, heading: heading), style: style)
    }

    /// Walks the sectors in increasing order of their inclusive upper bounds. Anything above
    /// the last bound wraps round into the first sector (which also straddles 0).
    /// Non-finite input is reported as the first sector (ahead).
    private static func classify(
        _ angle: Double, _ sectors: [(upper: Double, direction: RelativeDirection)]
    ) -> RelativeDirection {
        let r = Angle.normalized(angle)
        for sector in sectors where r <= sector.upper {
            return sector.direction
        }
        return sectors[0].direction
    }
}
