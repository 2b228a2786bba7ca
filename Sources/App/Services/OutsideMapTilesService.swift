import Foundation
import MapData
import ServiceLifecycle

/// Sits between the location feed and the assistant: a fix outside the imported area first has the tiles around it
/// loaded (waiting at most `wait`, so a slow tile service never holds up the callouts for long), then goes on to the
/// assistant. The notice that tiles are in use, and a failure to load them, are said once.
public struct OutsideMapTilesService: Service {
    let tiles: OutsideMapTiles
    let input: AsyncStream<AssistantInput>
    let forward: AsyncStream<AssistantInput>.Continuation
    let say: @Sendable (String) async -> Void
    let problem: @Sendable (String) async -> Void
    let wait: Duration

    public init(tiles: OutsideMapTiles, input: AsyncStream<AssistantInput>, forward: AsyncStream<AssistantInput>.Continuation,
                wait: Duration = .seconds(5),
                say: @escaping @Sendable (String) async -> Void, problem: @escaping @Sendable (String) async -> Void) {
        self.tiles = tiles
        self.input = input
        self.forward = forward
        self.wait = wait
        self.say = say
        self.problem = problem
    }

    public func run() async {
        for await event in input.cancelOnGracefulShutdown() {
            if case .location(let position) = event, let fix = position.fix, !tiles.covers(fix.coordinate) {
                let tiles = self.tiles, problem = self.problem
                if let notice = await tiles.takeNotice() { await say(notice) }
                let load = Task {
                    let update = await tiles.update(fix.coordinate)
                    if let text = update.problem { await problem(text) }
                }
                // The fix goes on when the tiles are in, or after `wait` with the load still running.
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await load.value }
                    group.addTask { [wait] in try? await Task.sleep(for: wait) }
                    await group.next()
                    group.cancelAll()
                }
            }
            forward.yield(event)
        }
        forward.finish()
    }
}
