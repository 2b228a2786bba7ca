import Foundation
import Location
import Logging
import ServiceLifecycle

/// Runs the assistant: greets, then hands it its inputs (``AssistantInput``) as they come, until the user quits, the
/// input ends with nothing left to do, or the service group shuts down. Three lanes, so that a command waiting for the
/// first fix does not hold the fixes up: commands (spoken, typed, control socket), locations, headings.
public struct AssistantService: Service {
    let assistant: Assistant
    let greeting: String
    let locations: AsyncStream<AssistantInput>
    let commands: AsyncStream<AssistantInput>
    /// Headings from the location stage, when it has heading sources.
    let headings: AsyncStream<AssistantInput>?
    /// Stop when a simulated walk ends (for demos and tests).
    let stopAtEndOfWalk: Bool
    /// Ends the command input (finishes the stream `commands` reads): called when the walk ends and the run is to
    /// stop, so that the commands already given are handled before it does, and later ones are not taken.
    let endCommands: @Sendable () -> Void

    public init(assistant: Assistant, greeting: String, locations: AsyncStream<AssistantInput>,
                commands: AsyncStream<AssistantInput>, headings: AsyncStream<AssistantInput>? = nil, stopAtEndOfWalk: Bool,
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
                for await input in self.locations.cancelOnGracefulShutdown() {
                    _ = await assistant.handle(input)
                    if case .location(.walkEnded) = input, stopAtEndOfWalk {
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
                    for await input in headings.cancelOnGracefulShutdown() { _ = await assistant.handle(input) }
                    // The location stage ended (a walk, or shutdown): wait for the others.
                    try? await gracefulShutdown()
                }
            }
            group.addTask {
                defer { allHandled.finish() }
                for await input in self.commands.cancelOnGracefulShutdown() {
                    if await !assistant.handle(input) { return }
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
