import Foundation
import Guidance
import Speech
import Synchronization

/// The names of the user's saved markers (`$markers`) or routes (`$routes`), for the recognizer: "take me to Home",
/// "start route Morning Walk". Read from the user database; the revision follows the database, so a marker saved,
/// renamed or deleted (by voice, typed, or another program) is listened for from the voice service's next look.
public final class SavedNames: SlotSource {
    public enum Kind: String, Sendable { case markers, routes }

    public let source: String
    private let kind: Kind
    private let state = Mutex<(store: UserStore?, attached: Int)>((nil, 0))

    public init(_ kind: Kind, store: UserStore? = nil) {
        self.kind = kind
        source = kind.rawValue
        state.withLock { $0.store = store }
    }

    /// The user database, once the program has opened it (voice input starts before it does).
    public func attach(_ store: UserStore?) {
        state.withLock { $0 = (store, $0.attached + 1) }
    }

    public func revision() async -> Int {
        let (store, attached) = state.withLock { ($0.store, $0.attached) }
        var hasher = Hasher()
        hasher.combine(attached)
        switch kind {
        case .markers: hasher.combine((try? store?.markers.revision()) ?? 0)
        case .routes: hasher.combine((try? store?.routes.revision()) ?? 0)
        }
        return hasher.finalize()
    }

    public func phrases() async -> [SlotPhrase] { names().map(SlotPhrase.init(name:)) }

    /// The saved names, as stored.
    public func names() -> [String] {
        guard let store = state.withLock({ $0.store }) else { return [] }
        switch kind {
        case .markers: return ((try? store.markers.all()) ?? []).map(\.name)
        case .routes: return ((try? store.routes.all()) ?? []).map(\.name)
        }
    }
}
