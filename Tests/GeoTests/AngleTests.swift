import Testing
import Geo

@Suite("Angle")
struct AngleTests {
    @Test("normalized", arguments: [
        (0.0, 0.0), (359.5, 359.5), (360.0, 0.0), (725.0, 5.0), (-90.0, 270.0),
        (-360.0, 0.0), (-450.0, 270.0), (1_080.25, 0.25),
    ])
    func normalized(input: Double, expected: Double) {
        #expect(Angle.normalized(input) == expected)
    }

    @Test func normalizedNeverReturns360() {
        // -1e-15 + 360 rounds to 360 in double precision; must come back as 0.
        let r = Angle.normalized(-1e-15)
        #expect(r >= 0 && r < 360)
        #expect(Angle.normalized(.nan).isNaN)
        #expect(Angle.normalized(.infinity).isNaN)
    }

    @Test func relative() {
        #expect(Angle.relative(bearing: 10, heading: 350) == 20)
        #expect(Angle.relative(bearing: 350, heading: 10) == 340)
        #expect(Angle.relative(bearing: 90, heading: 90) == 0)
        #expect(Angle.relative(bearing: 0, heading: 270) == 90)
    }

    @Test("signedDifference", arguments: [
        (10.0, 350.0, 20.0), (350.0, 10.0, -20.0), (180.0, 0.0, 180.0), (0.0, 180.0, 180.0),
        (90.0, 90.0, 0.0), (0.0, 181.0, 179.0), (0.0, 179.0, -179.0), (-720.0, 45.0, -45.0),
    ])
    func signedDifference(a: Double, b: Double, expected: Double) {
        #expect(Angle.signedDifference(a, b) == expected)
    }
}
