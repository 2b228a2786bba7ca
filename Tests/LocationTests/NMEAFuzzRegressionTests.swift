import Foundation
import Location
import Testing

/// Inputs the NMEA fuzzer (Fuzz/, `make fuzz`) found to crash the reader, kept so that they stay fixed.
@Suite struct NMEAFuzzRegressionTests {
    /// An RMC sentence whose time has sixty-odd digits of seconds: converting them to an Int trapped.
    @Test func sixtyDigitSecondsReadWithoutTrapping() {
        let text = String(decoding: Data(base64Encoded: "JEdQR0dBLDEyMDAzOS4wMCw2MDEwLjI2MDAsTiwwMjQ1Ni41Nzc3LEUsMSwwOSwwLjksMTUuMCxNLDE4LjAsTSwsKjVECiRHUFJNQywxMjAwODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4MzguMDAsQSw2MDEwLjI2MDAsTiwwMjQ1Ni41Nzc3LEUsMi43Miw5MC4wLDIxMTEyNiwsLEEqNUIKJEhDSERULDkwLjAsVCoxMAokR1BHR0EsMTIwMDM5LjAwLDYwMTAuMjb///////////////////////////////////////////////8wMCxOLDAyNDU2LjU3OTIsRSwxLDA5LDAuOSwxNS4wLE0sMTguMCxNLCwqNTcKJEdQUk1DLDEyMDAzOS4wMCxBLDYwMTAuMjYwMCxOLDAyNDU2LjU3OTIsRSwyLjcyLDEwMTExMjYsLCxBKjVCCiRIQ0hEVCw5MC4wLFQqMTAKJEdQRw==")!, as: UTF8.self)
        let result = NMEAReader.parse(text)
        // It reads to the end without trapping; the GGA fix before the broken sentence is kept.
        #expect(result.points.first?.coordinate.latitude ?? 0 > 60.17)
    }

    @Test func aTimeWithHugeSecondsGivesAPointWithoutATime() {
        let rmc = "GPRMC,1200999999999999999999999.00,A,6010.2600,N,02456.5200,E,2.72,90.0,211126,,,A"
        let sum = rmc.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        let result = NMEAReader.parse("$" + rmc + "*" + String(format: "%02X", sum) + "\n")
        #expect(result.points.count == 1)
        #expect(result.points.first?.time == nil)
    }
}
