/// What the assistant may do to the heading sources (the location stage's ``GeolocationManager`` in `run`).
/// "I am facing north" sets a manual heading; undoing it clears it again.
public protocol HeadingControl: Sendable {
    /// The user said which way they face (degrees from north). It holds until it expires or a turn shows.
    func setManualHeading(_ degrees: Double) async
    /// Forgets a manual heading (undo).
    func clearManualHeading() async
}
