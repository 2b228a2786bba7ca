import Foundation
import Location
import Logging
import ServiceLifecycle

/// Runs the assistant: greets, then feeds location events and commands into its pipeline as they come, until
/// the user quits, the input ends with nothing left to do, or the service group shuts down.
public struct AssistantService: Service {
    let assistant: Assistant
    let greeting: String
    let locations: AsyncStream<PositionEvent>
    let commands: AsyncStream<String>
    /// Headings from the location stage, when it has heading sources.
    let headings: AsyncStream<HeadingUpdate>?
    /// Stop when a simulated walk ends (for demos and tests).
    let stopAtEndOfWalk: Bool
    /// Ends the command input (finishes the stream `commands` reads): called when the walk ends and the run is to
    /// stop, so that the commands already given are handled before it does, and later ones are not taken.
    let endCommands: @Sendable () -> Void

    public init(assistant: Assistant, greeting: String, locations: AsyncStream<PositionEvent>,
                commands: AsyncStream<String>, headings: AsyncStream<HeadingUpdate>? = nil, stopAtEndOfWalk: Bool,
                endCommands: @escaping @Sendable () -> Void = {}) {
        self.assistant = assistant
        self.greeting = greeting
        self.locations = locations
        self.commands = commands
        self.headings = headings
        self.stopAtEndOfWalk = stopAtEndOfWalk
        self.endCommands = endCommands
    }

    public func run() async throws {
        await assistant.announce(greeting, glyph: .appLaunch)
        let assistant = self.assistant
        let stopAtEndOfWalk = self.stopAtEndOfWalk
        // Finished when every command given has been handled (the input ended, or "quit").
        let (handled, allHandled) = AsyncStream<Never>.makeStream()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in self.locations.cancelOnGracefulShutdown() {
                    await assistant.handle(event)
                    if event == .walkEnded && stopAtEndOfWalk {
                        // Commands typed or said before the end are answered, not dropped: no more are taken,
                        // and the run ends once those already given are handled.
                        self.endCommands()
                        for await _ in handled {}
                        return
                    }
                }
            }
            if let headings = self.headings {
                group.addTask {
                    for await update in headings.cancelOnGracefulShutdown() { await assistant.handle(update) }
                    // The location stage ended (a walk, or shutdown): wait for the others.
                    try? await gracefulShutdown()
                }
            }
            group.addTask {
                defer { allHandled.finish() }
                for await line in self.commands.cancelOnGracefulShutdown() {
                    if await !assistant.handle(command: line) { return }
                }
                allHandled.finish()
                // End of input: keep following the location until shutdown.
                try? await gracefulShutdown()
            }
            // The first task to finish (quit, or end of walk) ends the assistant.
            await group.next()
            group.cancelAll()
        }
        await assistant.settle()
    }
}
