/// A short non-speech sound (earcon) a callout may lead with. The raw values are the earcon names the
/// Audio stage uses (`Earcon` there has the same raw values), so this stage names sounds without knowing how
/// they are made.
public enum Glyph: String, Sendable, Codable, CaseIterable {
    case appLaunch = "app_launch"
    case modeEnter = "mode_enter"
    case modeExit = "mode_exit"
    case hush
    case beaconFound = "beacon_found"
    case invalidFunction = "invalid_function"
    case calloutsOn = "callouts_on"
    case calloutsOff = "callouts_off"
    case sensePOI = "sense_poi"
    case senseMobility = "sense_mobility"
    case senseSafety = "sense_safety"
    case informationAlert = "information_alert"
    case senseLocation = "sense_location"
}
