import Foundation
import Speech
#if canImport(Glibc)
import Glibc
#endif

/// A keyboard key as push-to-talk, read from the kernel's input device (`/dev/input/eventN`; the user
/// must be in the `input` group). Holding the key talks: key down = press, key up = release. Works
/// without a terminal or a desktop, e.g. on a headless device with a USB keypad.
public final class EvdevKey: @unchecked Sendable {
    public let device: String
    public let keyCode: UInt16
    private let fd: Int32

    public struct DeviceError: Error, CustomStringConvertible { public var description: String }

    /// Key names the option accepts, with their Linux key codes (input-event-codes.h).
    public static let keyCodes: [String: UInt16] = [
        "KEY_RIGHTCTRL": 97, "KEY_LEFTCTRL": 29, "KEY_RIGHTALT": 100, "KEY_LEFTMETA": 125, "KEY_RIGHTMETA": 126,
        "KEY_SPACE": 57, "KEY_CAPSLOCK": 58, "KEY_SCROLLLOCK": 70, "KEY_PAUSE": 119, "KEY_INSERT": 110,
        "KEY_F9": 67, "KEY_F10": 68, "KEY_F11": 87, "KEY_F12": 88, "KEY_MENU": 139, "KEY_COMPOSE": 127,
        "KEY_PLAYPAUSE": 164, "KEY_KP0": 82, "KEY_KPENTER": 96,
    ]

    public static func code(named name: String) -> UInt16? {
        keyCodes[name.uppercased()] ?? keyCodes["KEY_" + name.uppercased()] ?? UInt16(name)
    }

    public init(device: String, key: UInt16, handler: @escaping @Sendable (PushToTalk) -> Void) throws {
        self.device = device
        self.keyCode = key
        let f = open(device, O_RDONLY)
        guard f >= 0 else {
            throw DeviceError(description: "cannot open \(device): \(String(cString: strerror(errno))) (is the user in the input group?)")
        }
        fd = f
        let t = Thread { [fd] in
            // struct input_event { struct timeval time; __u16 type; __u16 code; __s32 value; } = 24 bytes on 64-bit.
            let size = MemoryLayout<timeval>.size + 8
            var buffer = [UInt8](repeating: 0, count: size * 16)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { if n < 0 && errno == EINTR { continue }; return }
                var offset = 0
                while offset + size <= n {
                    let base = offset + MemoryLayout<timeval>.size
                    let type = UInt16(buffer[base]) | UInt16(buffer[base + 1]) << 8
                    let code = UInt16(buffer[base + 2]) | UInt16(buffer[base + 3]) << 8
                    let value = Int32(bitPattern: UInt32(buffer[base + 4]) | UInt32(buffer[base + 5]) << 8
                                      | UInt32(buffer[base + 6]) << 16 | UInt32(buffer[base + 7]) << 24)
                    if type == 1 && code == key {   // EV_KEY; value 1 down, 0 up, 2 auto-repeat
                        if value == 1 { handler(.press) } else if value == 0 { handler(.release) }
                    }
                    offset += size
                }
            }
        }
        t.name = "voice-evdev-key"
        t.start()
    }

    deinit { close(fd) }
}
