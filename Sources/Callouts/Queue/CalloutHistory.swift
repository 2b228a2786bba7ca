/// The last callouts worth repeating, newest last, at most `capacity` (10, spec §1.9).
public struct CalloutHistory: Sendable {
    public let capacity: Int
    public private(set) var callouts: [Callout] = []

    public init(capacity: Int = 10) { self.capacity = capacity }

    /// Keeps `callout` if it is marked for the history.
    public mutating func record(_ callout: Callout) {
        guard callout.includeInHistory else { return }
        callouts.append(callout)
        if callouts.count > capacity { callouts.removeFirst(callouts.count - capacity) }
    }

    public var last: Callout? { callouts.last }
    /// `n` back from the newest (0 = newest).
    public func back(_ n: Int) -> Callout? {
        n >= 0 && n < callouts.count ? callouts[callouts.count - 1 - n] : nil
    }
    public var isEmpty: Bool { callouts.isEmpty }
    public mutating func removeAll() { callouts.removeAll() }
}
