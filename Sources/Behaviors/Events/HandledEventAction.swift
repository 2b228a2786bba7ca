import Callouts

/// What a generator wants done after handling an event (spec §1.3). A generator returns nil when it did not
/// handle the event.
public enum HandledEventAction: Sendable {
    /// Queue the group with its queue action.
    case playCallouts(CalloutGroup)
    /// Feed more events into the processor, in order.
    case processEvents([any Event])
    /// Stop the speech and empty the queue, without a sound. In a batch of actions it wins over the rest.
    case interruptAndClearQueue
    /// Handled; nothing to do.
    case noAction
}
