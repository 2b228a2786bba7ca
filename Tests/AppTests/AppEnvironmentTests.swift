import App
import Foundation
import Testing

@Suite("The environment, read once")
struct AppEnvironmentTests {
    @Test("the cache folder follows XDG_CACHE_HOME, then HOME")
    func cacheFolder() {
        #expect(AppEnvironment.read(["XDG_CACHE_HOME": "/x/cache", "HOME": "/home/u"]).cacheDirectory == "/x/cache/soundscape")
        #expect(AppEnvironment.read(["XDG_CACHE_HOME": "rel", "HOME": "/home/u"]).cacheDirectory == "/home/u/.cache/soundscape")
    }

    @Test("the map database follows XDG_DATA_HOME, then HOME")
    func mapDatabase() {
        #expect(AppEnvironment.read(["XDG_DATA_HOME": "/x/data", "HOME": "/home/u"]).mapDatabase == "/x/data/soundscape/map.sqlite")
        #expect(AppEnvironment.read(["HOME": "/home/u"]).mapDatabase == "/home/u/.local/share/soundscape/map.sqlite")
        // A relative XDG_DATA_HOME is invalid per the spec and ignored.
        #expect(AppEnvironment.read(["XDG_DATA_HOME": "rel", "HOME": "/home/u"]).mapDatabase
                == "/home/u/.local/share/soundscape/map.sqlite")
    }

    @Test func theUserDatabaseTheControlSocketAndTheBusComeFromTheEnvironmentOrTheirDefaults() {
        let plain = AppEnvironment.read(["HOME": "/h", "XDG_RUNTIME_DIR": "/run/user/7"])
        #expect(plain.userDatabase == "/h/.local/share/soundscape/user.sqlite")
        #expect(plain.microphoneAdaptation == "/h/.local/share/soundscape/microphones.json")
        #expect(plain.controlSocket == "/run/user/7/soundscape/control.sock")
        #expect(plain.systemBus == nil)
        let named = AppEnvironment.read(["HOME": "/h", "SOUNDSCAPE_USER_DB": "/tmp/u.sqlite",
                                         "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/tmp/bus"])
        #expect(named.userDatabase == "/tmp/u.sqlite")
        #expect(named.systemBus == "unix:path=/tmp/bus")
    }

    @Test func theProgramsFilesFollowSoundscapeHomeAndData() {
        let environment = AppEnvironment.read(["HOME": "/h", "SOUNDSCAPE_HOME": "/opt/s", "SOUNDSCAPE_DATA": "/var/d"])
        #expect(environment.paths.grammars.path == "/opt/s/Grammars")
        #expect(environment.paths.whisperModel().path == "/var/d/whisper/ggml-tiny.en.bin")
        #expect(AppEnvironment.read(["SOUNDSCAPE_HOME": "/opt/s"]).paths.data().path == "/opt/s/.data")
    }
}
