import Behaviors
import Callouts
import Foundation
import Geo
import Location
import MapData

/// Street Preview as the assistant runs it: while it is active, the pipeline's user is the virtual walker of
/// ``PreviewBehavior``; real fixes and headings are kept here (for the return) instead of reaching the pipeline;
/// the listener of the 3-D sound stands where the walker stands and faces where it faces.
struct PreviewSession: Sendable {
    /// The last real fix, kept while previewing.
    var realFix: LocationFix?
}

extension Assistant {
    /// Whether Street Preview is running.
    public var isPreviewing: Bool { preview.value != nil }

    func perform(_ request: PreviewRequest) async {
        switch request {
        case .start(let place): await startPreview(at: place)
        case .end: await endPreview()
        case .move(let command):
            guard isPreviewing else { return problem(table("preview.not_running")) }
            processor.post(PreviewCommandEvent(command))
            await processor.flush()
            await listenerFollowsPipelineUser()
        }
    }

    /// Puts the walker on the road nearest the real position (facing along it the way the user faces), or nearest
    /// a named place; starting again while previewing starts afresh from there.
    private func startPreview(at place: String?) async {
        guard let map else { return problem(table("preview.no_map")) }
        let user = isPreviewing ? nil : await locatedUser()
        let realFix = preview.value?.realFix ?? user?.fix
        let origin: Coordinate
        let label: String
        if let place {
            guard let match = try? map.lookup(spokenName: place, near: realFix?.coordinate, limit: 1).first else {
                return problem(table("preview.place_unknown", place))
            }
            origin = match.feature.centroid
            label = match.feature.spokenName(language: table.language)
        } else {
            guard let realFix else { return problem(table("preview.no_position")) }
            origin = realFix.coordinate
            label = table("preview.here")
        }
        let heading = place == nil ? (user?.headings.collection ?? headings.pipelineHeadings?.collection) : nil
        guard let network = try? map.roadNetwork(),
              let walker = StreetPreviewWalker(network: network, near: origin, heading: heading) else {
            return problem(table("preview.no_road", label))
        }
        // From here on, real fixes are kept out of the pipeline.
        preview.set(PreviewSession(realFix: realFix))
        let behavior = PreviewBehavior(walker: walker)
        let start = behavior.startingPosition(now: pipelineNow)
        await processor.activateCustom(behavior, at: start)
        await processor.flush()
        await listenerFollowsPipelineUser()
    }

    /// Ends the preview: the real position goes back into the pipeline and is said ("Preview ended. Back at your
    /// real position: …"); the beacon is as it was.
    private func endPreview() async {
        guard let session = preview.value else { return problem(table("preview.not_running")) }
        await processor.deactivateCustom()
        preview.set(nil)
        guard let fix = session.realFix else {
            processor.post(GenericAnnouncementEvent(table("preview.ended_unknown")))
            return
        }
        headings.location = fix.coordinate
        processor.post(LocationUpdatedEvent(fix: fix, headings: headings.pipelineHeadings))
        processor.post(ExplorationEvent(.locate, lead: table("preview.ended")))
        await processor.flush()
        let facing = headings.isActive ? headings.listenerHeading : ((fix.speed ?? 0) >= 0.4 ? fix.course : nil)
        await output.moveListener(to: fix.coordinate, heading: facing)
    }

    /// While previewing, a real fix is only kept; returns whether it was.
    func keepDuringPreview(_ fix: LocationFix) -> Bool {
        preview.update { session in
            guard session != nil else { return false }
            session?.realFix = fix
            return true
        }
    }

    /// The 3-D listener stands where the pipeline's user (the walker) stands and faces where it faces.
    private func listenerFollowsPipelineUser() async {
        let user = await processor.currentUser
        if let location = user.location { await output.moveListener(to: location, heading: user.headings.collection) }
    }

    private func problem(_ text: String) {
        processor.post(GenericAnnouncementEvent(text, glyph: .invalidFunction))
    }
}
