import App
import ArgumentParser
import Audio
import Foundation
import Geo
import MapData
import Speech

/// `soundscape ptt press|release|toggle|cancel`: push-to-talk for a running assistant, for desktop and
/// window-manager keybindings (see the README section "Voice commands and push-to-talk").
struct PttCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ptt",
        abstract: "Push-to-talk for a running `soundscape run`: press, release, toggle or cancel listening.",
        discussion: """
            Bind it to a key: press on key down and release on key up (sway, i3, KDE), or toggle when the \
            desktop only reports key presses (GNOME). The assistant answers on the control socket \
            $XDG_RUNTIME_DIR/soundscape/control.sock (mode 0600).
            """)

    @Argument(help: "press, release, toggle or cancel.")
    var action: String

    @Option(help: "Control socket of the assistant (default: $XDG_RUNTIME_DIR/soundscape/control.sock).")
    var socket: String?

    @OptionGroup var global: GlobalOptions

    func run() throws {
        global.bootstrapLogging()
        guard let ptt = PushToTalk(rawValue: action.lowercased()) else {
            throw ValidationError("unknown action \"\(action)\": use press, release, toggle or cancel")
        }
        do {
            try ControlSocket.send(ptt.rawValue, to: socket ?? AppEnvironment.read().controlSocket)
        } catch {
            printError("soundscape ptt: \(error)")
            throw ExitCode(1)
        }
    }
}

/// Voice-input options of `soundscape run`.
struct VoiceOptions: ParsableArguments {
    @Flag(name: .customLong("no-voice"), help: "Do not listen to the microphone.")
    var noVoice = false

    @Option(help: "PulseAudio source to listen to (default: the default source, followed when it changes).")
    var mic: String?

    @Option(help: "Control socket for push-to-talk (default: $XDG_RUNTIME_DIR/soundscape/control.sock).")
    var controlSocket: String?

    @Option(help: "Listen hands-free after this wake phrase, e.g. \"hey soundscape\".")
    var wakeWord: String?

    @Option(help: "Input device for a hold-to-talk key, e.g. /dev/input/event3 (needs the input group).")
    var pttDevice: String?

    @Option(help: "The hold-to-talk key on --ptt-device (e.g. KEY_RIGHTCTRL, KEY_F12, or a key code).")
    var pttKey: String = "KEY_RIGHTCTRL"

    @Option(help: "End an utterance by itself after this many seconds of silence (voice-activity endpointing).")
    var endpoint: Double?

    func inputOptions(_ environment: AppEnvironment) throws -> VoiceInputOptions {
        guard let code = EvdevKey.code(named: pttKey) else { throw ValidationError("unknown key \(pttKey)") }
        return VoiceInputOptions(source: mic, controlSocket: controlSocket ?? environment.controlSocket,
                                 wakeWord: wakeWord, keyDevice: pttDevice, keyCode: code, endpointSilence: endpoint,
                                 adaptationFile: environment.microphoneAdaptation, recordingsDirectory: environment.voiceRecordings)
    }
}
