import ArgumentParser

@main
struct Soundscape: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soundscape",
        abstract: "A hands-free, voice-controlled 3-D audio street assistant for blind and low-vision pedestrians.",
        discussion: """
            Map data © OpenStreetMap contributors (ODbL). Run `soundscape doctor` to check that speech, sound, \
            GPS, the HRTF and the map are all in place.
            """,
        subcommands: [RunCommand.self, ImportCommand.self, SayCommand.self, ListenCommand.self,
                      SimulateCommand.self, DoctorCommand.self, ConfigCommand.self, PttCommand.self, SoundsCommand.self,
                      DemoCommand.self, TilesCommand.self],
        defaultSubcommand: nil)
}
