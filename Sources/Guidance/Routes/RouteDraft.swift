import Foundation
import Geo

/// A route being made by voice ("new route …", "add this place to the route", "save route"): nothing is in the
/// user database until it is saved, in one transaction.
public struct RouteDraft: Sendable, Hashable {
    /// A waypoint: a saved marker, or a place the user stood at (saved with the route as a marker of its own).
    public enum Stop: Sendable, Hashable {
        case marker(Marker)
        case place(name: String, coordinate: Coordinate)

        public var name: String {
            switch self {
            case .marker(let m): m.name
            case .place(let name, _): name
            }
        }

        public var coordinate: Coordinate {
            switch self {
            case .marker(let m): m.coordinate
            case .place(_, let c): c
            }
        }
    }

    public var name: String
    public var stops: [Stop]

    public init(name: String, stops: [Stop] = []) {
        self.name = name
        self.stops = stops
    }

    /// The stops in the other order.
    public var reversed: RouteDraft { RouteDraft(name: name, stops: stops.reversed()) }
}

/// The saved names closest to a name that matched none, for "No marker named Hone. Did you mean Home, …".
public enum NameSuggestions {
    /// Up to `limit` of `names`, closest first by edit distance over the normalized words (case, accents and
    /// punctuation ignored); a name that contains the asked words, or is contained in them, counts as close.
    /// Names further than half their length away are left out.
    public static func closest(to asked: String, among names: [String], limit: Int = 3) -> [String] {
        let q = Array(MarkerStore.normalize(asked))
        guard !q.isEmpty else { return Array(names.prefix(limit)) }
        let scored: [(String, Int)] = names.compactMap { name in
            let n = Array(MarkerStore.normalize(name))
            let containing = String(n).contains(String(q)) || String(q).contains(String(n))
            let d = containing ? min(1, editDistance(q, n)) : editDistance(q, n)
            return d <= max(q.count, n.count) / 2 ? (name, d) : nil
        }
        return scored.sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }.prefix(limit).map(\.0)
    }

    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
