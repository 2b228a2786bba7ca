import Callouts
import Foundation
import Geo

/// System callouts (spec §3.7, §9): repeat, help, announcements, GPS accuracy and signal, earcons, and the
/// answer to commands that are not available yet.
public final class SystemGenerator: ManualGenerator, AutomaticGenerator {
    /// How far back the last repeat went (0: the newest), and the newest callout then: when something new has
    /// been said since, "the one before" starts again from the newest.
    private var repeated: (back: Int, newest: UUID?) = (0, nil)

    public init() {}

    // MARK: manual

    public func respondsTo(_ event: any UserInitiatedEvent) -> Bool {
        event is RepeatCalloutEvent || event is ListCalloutHistoryEvent || event is HelpEvent || event is GenericAnnouncementEvent
            || event is UnavailableCommandEvent || event is GPSAccuracyEvent || event is BehaviorActivatedEvent
    }

    public func handle(_ event: any UserInitiatedEvent, context: GeneratorContext) -> HandledEventAction? {
        let table = context.table
        switch event {
        case let request as RepeatCalloutEvent:
            let history = context.history
            guard let newest = history.last else { return say(table("repeat.nothing"), label: "system.repeat") }
            let back = request.earlier ? (repeated.newest == newest.id ? repeated.back + 1 : 1) : 0
            guard let callout = history.back(back) else {
                return say(table("repeat.nothing_before", String(history.callouts.count)), label: "system.repeat")
            }
            repeated = (back, newest.id)
            return .playCallouts(CalloutGroup([callout], action: .interruptAndClear, label: "system.repeat",
                                              repeatingFrom: context.user.location))
        case let list as ListCalloutHistoryEvent:
            let history = context.history
            guard !history.isEmpty else { return say(table("repeat.nothing"), label: "system.history") }
            let callouts = (0..<min(list.count, history.callouts.count)).compactMap { history.back($0) }
            repeated = (callouts.count - 1, history.last?.id)
            return .playCallouts(CalloutGroup(callouts, action: .interruptAndClear, label: "system.history",
                                              calloutDelay: Self.listDelay, repeatingFrom: context.user.location))
        case is HelpEvent:
            let items = Self.helpKeys(context).map { table($0) }
            return say(table("help.commands", context.phrasing.list(items)), label: "system.help")
        case let announcement as GenericAnnouncementEvent:
            let callout = Callout.text(announcement.text, glyph: announcement.glyph, placement: announcement.placement)
            return .playCallouts(CalloutGroup([callout], action: announcement.action, label: "system.announcement"))
        case let unavailable as UnavailableCommandEvent:
            return .playCallouts(CalloutGroup([.text(table("status.not_available", unavailable.words), glyph: .invalidFunction)],
                                              action: .interruptAndClear, label: "system.unavailable"))
        case is GPSAccuracyEvent:
            guard let accuracy = context.user.accuracy else { return say(table("status.gps_accuracy_unknown"), label: "system.gps") }
            let d = context.phrasing.distances.string(meters: accuracy)
            let key = accuracy < 10 ? "status.gps_accuracy_good" : accuracy < 20 ? "status.gps_accuracy_fair" : "status.gps_accuracy_poor"
            return say(table(key, d), label: "system.gps")
        case is BehaviorActivatedEvent:
            return .noAction
        default:
            return nil
        }
    }

    /// The commands that do something now, as phrase keys: "repeat" only with something to repeat, "callouts
    /// off" while they are on (and the other way round), the beacon only when one is set.
    static func helpKeys(_ context: GeneratorContext) -> [String] {
        var keys = ["help.where_am_i", "help.around_me", "help.ahead_of_me"]
        if context.markers != nil { keys.append("help.nearby_markers") }
        if context.beacon != nil { keys.append("help.where_is_beacon") }
        keys += context.behaviorHelpKeys
        if context.map != nil && !context.behaviorNames.contains(PreviewBehavior.behaviorName) { keys.append("help.start_preview") }
        if !context.history.isEmpty { keys += ["help.repeat", "help.history"] }
        keys += ["help.stop", context.settings.automaticCallouts ? "help.callouts_off" : "help.callouts_on",
                 "help.gps_accuracy", "help.routes", "help.settings", "help.units", "help.undo", "help.sleep", "help.snooze",
                 "help.help", "help.quit"]
        return keys
    }

    /// Seconds between the callouts of "list the last five".
    static let listDelay = 0.5

    private func say(_ text: String, label: String) -> HandledEventAction {
        .playCallouts(CalloutGroup([.text(text)], action: .interruptAndClear, label: label))
    }

    // MARK: automatic

    public func respondsTo(_ event: any StateChangedEvent) -> Bool {
        event is GPSStatusChangedEvent || event is GlyphEvent
    }

    public func handle(_ event: any StateChangedEvent, context: GeneratorContext) -> HandledEventAction? {
        switch event {
        case let status as GPSStatusChangedEvent:
            let text = context.table(status.status == .lost ? "status.gps_lost" : "status.gps_restored")
            return .playCallouts(CalloutGroup([.text(text, glyph: .informationAlert)], action: .enqueue, label: "system.gps"))
        case let glyph as GlyphEvent:
            return .playCallouts(CalloutGroup([.glyph(glyph.glyph)], action: .enqueue, label: "system.glyph"))
        default:
            return nil
        }
    }
}
