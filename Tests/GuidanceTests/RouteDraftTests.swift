import Foundation
import Geo
import GRDB
@testable import Guidance
import Testing

/// Routes made by voice: saved in one transaction, put back as they were, measured to their end; and the names
/// offered when a spoken one matches nothing.
@Suite("Routes made by voice, and name suggestions")
struct RouteDraftTests {
    static let here = Coordinate(latitude: 60.1699, longitude: 24.9410)

    @Test func aDraftIsSavedWithItsPlacesAsTheRoutesOwnMarkersInOrder() throws {
        let store = try UserStore(inMemory: ())
        let home = try store.markers.create(name: "Home", at: Self.here)
        let b = Self.here.destination(bearing: 90, distance: 120)
        let draft = RouteDraft(name: "Way out", stops: [.marker(home), .place(name: "Kaivokatu", coordinate: b)])
        let route = try store.routes.save(draft)
        #expect(route.waypoints.map(\.name) == ["Home", "Kaivokatu"])
        #expect(route.waypoints[1].isTemporary && route.waypoints[1].coordinate == b)
        #expect(try store.markers.all().map(\.name) == ["Home"])
        #expect(try store.routes.save(draft.reversed).waypoints.map(\.name) == ["Kaivokatu", "Home"])
        #expect(throws: RouteStoreError.noWaypoints) { try store.routes.save(RouteDraft(name: "Empty")) }
    }

    @Test func aSaveThatFailsHalfwayLeavesNothingBehindAndTheReplacedRouteStays() throws {
        let store = try UserStore(inMemory: ())
        let old = try store.routes.save(RouteDraft(name: "Loop", stops: [.place(name: "A", coordinate: Self.here)]))
        // The second stop names a marker that is not in the database: the foreign key fails after the first stop's
        // marker, the route row and the old route's deletion were written.
        let ghost = Marker(name: "Ghost", coordinate: Self.here)
        let draft = RouteDraft(name: "Loop", stops: [.place(name: "B", coordinate: Self.here), .marker(ghost)])
        #expect(throws: (any Error).self) { try store.routes.save(draft, replacing: old.id) }
        #expect(try store.routes.all().map(\.id) == [old.id])
        #expect(try store.markers.all(includeTemporary: true).map(\.name) == ["A"])
    }

    @Test func aDeletedRouteIsRestoredWithItsOwnMarkers() throws {
        let store = try UserStore(inMemory: ())
        let route = try store.routes.save(RouteDraft(name: "Loop", stops: [.place(name: "A", coordinate: Self.here),
                                                                         .place(name: "B", coordinate: Self.here.destination(bearing: 0, distance: 50))]))
        #expect(try store.routes.delete(route.id))
        #expect(try store.markers.all(includeTemporary: true).isEmpty)
        try store.routes.restore(route)
        let back = try #require(try store.routes.route(id: route.id))
        #expect(back.waypoints.map(\.id) == route.waypoints.map(\.id))
        #expect(back.waypoints.map(\.coordinate) == route.waypoints.map(\.coordinate))
    }

    @Test func overwritingAMarkerKeepsItsIdAndItsPlaceInRoutes() throws {
        let store = try UserStore(inMemory: ())
        let home = try store.markers.create(name: "Home", at: Self.here)
        let route = try store.routes.save(RouteDraft(name: "Home run", stops: [.marker(home)]))
        var moved = home
        moved.coordinate = Self.here.destination(bearing: 180, distance: 30)
        moved.annotation = "green door"
        try store.markers.overwrite(moved)
        #expect(try store.routes.route(id: route.id)?.waypoints.first?.coordinate == moved.coordinate)
        #expect(try store.markers.marker(id: home.id)?.annotation == "green door")
        #expect(try store.markers.last()?.id == home.id)
    }

    @Test func theDistanceToTheEndGoesThroughEveryWaypointLeft() {
        let a = Self.here, b = a.destination(bearing: 90, distance: 100), c = b.destination(bearing: 0, distance: 60)
        var state = RouteGuidanceState(name: "Loop", waypoints: [a, b, c].enumerated().map { RouteWaypoint(name: "W\($0.offset)", coordinate: $0.element) })
        let start = a.destination(bearing: 270, distance: 40)
        #expect(abs(state.remainingDistance(from: start) - 200) < 0.5)
        state.index = 2
        #expect(abs(state.remainingDistance(from: b) - 60) < 0.5)
    }

    @Test func theClosestNamesAreOffered() {
        let names = ["Home", "Work", "Gym", "Bus stop home", "Friend's house"]
        #expect(NameSuggestions.closest(to: "hone", among: names) == ["Home"])
        #expect(NameSuggestions.closest(to: "bus stop", among: names) == ["Bus stop home"])
        #expect(NameSuggestions.closest(to: "friends house", among: names).first == "Friend's house")
        #expect(NameSuggestions.closest(to: "kauppatori", among: names).isEmpty)
        #expect(NameSuggestions.closest(to: "wor", among: names, limit: 1) == ["Work"])
    }
}
