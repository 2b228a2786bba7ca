/// Guidance: the audio beacon (DestinationManager), markers and routes in the user database, route
/// planning over the walking graph, maneuvers and their spoken announcements.
public enum GuidanceModule {
    public static let name = "Guidance"
}
