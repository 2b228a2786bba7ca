/// How a new callout group joins the queue (spec §1.6).
public enum QueueAction: String, Sendable, Equatable {
    /// Stop what is playing, drop everything waiting, and play this next. When nothing plays: just queue it.
    case interruptAndClear
    /// Drop everything waiting (what is playing finishes), then queue this.
    case clear
    /// Queue this after everything else.
    case enqueue
}
