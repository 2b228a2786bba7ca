import Foundation
import ServiceLifecycle

/// Reads typed commands, one a line, from standard input, for keyboard users and for when there is no
/// microphone. Reading blocks, so it happens on its own thread; the lines come out of a stream.
public struct TerminalCommands: Service {
    private let continuation: AsyncStream<AssistantInput>.Continuation

    public init(continuation: AsyncStream<AssistantInput>.Continuation) {
        self.continuation = continuation
    }

    public func run() async throws {
        let continuation = self.continuation
        let thread = Thread {
            while let line = readLine(strippingNewline: true) {
                continuation.yield(.typed(line))
            }
            continuation.finish()
        }
        thread.name = "terminal-commands"
        thread.start()
        // The thread ends by itself at end of input; a shutdown simply stops listening to it.
        try? await gracefulShutdown()
    }
}
