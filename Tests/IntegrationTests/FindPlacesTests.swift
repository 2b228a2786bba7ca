import App
import Audio
import Foundation
import Geo
import MapData
import ProcessTestSupport
import Testing

/// Going to places by voice and typed commands, through the real executable, map and sound server: the nearest of a
/// kind, choosing from the list, and a named place far away.
@Suite("Finding places and going there", .serialized)
struct FindPlacesTests {
    /// On Pohjoisesplanadi by Kauppatori, facing east.
    static let at = (latitude: 60.1690, longitude: 24.9520)

    // MARK: an oracle that shares no code with the program: osmium's view of the file, and spherical geometry

    static func haversine(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let r = 6_371_008.8, p1 = a.0 * .pi / 180, p2 = b.0 * .pi / 180
        let dp = (b.0 - a.0) * .pi / 180, dl = (b.1 - a.1) * .pi / 180
        let h = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * r * asin(min(1, sqrt(h)))
    }

    static func bearing(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let p1 = a.0 * .pi / 180, p2 = b.0 * .pi / 180, dl = (b.1 - a.1) * .pi / 180
        let y = sin(dl) * cos(p2), x = cos(p1) * sin(p2) - sin(p1) * cos(p2) * cos(dl)
        return (atan2(y, x) * 180 / .pi + 360).truncatingRemainder(dividingBy: 360)
    }

    /// The spec's eight relative directions (§3.1) for a bearing seen with a heading.
    static func direction(bearing: Double, heading: Double) -> String {
        let r = (bearing - heading + 360).truncatingRemainder(dividingBy: 360)
        switch r {
        case 15..<75: return "ahead to the right"
        case 75..<105: return "to the right"
        case 105..<165: return "behind to the right"
        case 165..<195: return "behind"
        case 195..<255: return "behind to the left"
        case 255..<285: return "to the left"
        case 285..<345: return "ahead to the left"
        default: return "ahead"
        }
    }

    struct Expected { var name: String; var target: (Double, Double); var distance: Double }

    struct Element { var id: String; var tags: [String: String] = [:]; var nodes: [String] = []; var latitude: Double?; var longitude: Double? }

    /// Nodes and ways of the Helsinki extract as `osmium cat -f opl` prints them (OPL escapes such as %20% decoded).
    static func osmiumElements() throws -> [Element] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["osmium", "cat", "-t", "node", "-t", "way", "-f", "opl",
                             TestServices.dataDirectory.appendingPathComponent("osm/Helsinki.osm.pbf").path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("osmium cat failed (\(process.terminationStatus))") }
        func unescape(_ s: Substring) -> String {
            var result = "", i = s.startIndex
            while i < s.endIndex {
                if s[i] == "%", let end = s[s.index(after: i)...].firstIndex(of: "%"),
                   let code = UInt32(s[s.index(after: i)..<end], radix: 16), let scalar = Unicode.Scalar(code) {
                    result.unicodeScalars.append(scalar)
                    i = s.index(after: end)
                } else {
                    result.append(s[i])
                    i = s.index(after: i)
                }
            }
            return result
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            let fields = line.split(separator: " ")
            var e = Element(id: String(fields[0]))
            for field in fields.dropFirst() {
                let rest = field.dropFirst()
                switch field.first {
                case "T":
                    for pair in rest.split(separator: ",") {
                        let kv = pair.split(separator: "=", maxSplits: 1)
                        if kv.count == 2 { e.tags[unescape(kv[0])] = unescape(kv[1]) }
                    }
                case "N": e.nodes = rest.split(separator: ",").map(String.init)
                case "x": e.longitude = Double(rest)
                case "y": e.latitude = Double(rest)
                default: break
                }
            }
            return e
        }
    }

    struct TestFailure: Error, CustomStringConvertible { var description: String; init(_ d: String) { description = d } }

    /// The pharmacies of the extract nearest `from`, as the file has them: each aimed at the nearest usable entrance of
    /// the building it stands in (entrance nodes on the building's outline that are not emergency, exit-only, service
    /// or private), else at itself; a name given twice within 25 m once.
    static func pharmacies(from: (Double, Double)) throws -> [Expected] {
        let elements = try osmiumElements()
        var nodes: [String: (Double, Double)] = [:]
        var tagsOf: [String: [String: String]] = [:]
        for e in elements where e.id.hasPrefix("n") {
            if let lat = e.latitude, let lon = e.longitude { nodes[e.id] = (lat, lon) }
            if !e.tags.isEmpty { tagsOf[e.id] = e.tags }
        }
        let buildings = elements.filter { (e: Element) -> Bool in
            guard e.id.hasPrefix("w"), let b = e.tags["building"], b != "no", e.nodes.count >= 4 else { return false }
            return e.nodes.first == e.nodes.last
        }
        func inside(_ p: (Double, Double), _ ring: [(Double, Double)]) -> Bool {
            var c = false
            var j = ring.count - 1
            for i in 0..<ring.count {
                let a = ring[i], b = ring[j]
                if (a.0 > p.0) != (b.0 > p.0), p.1 < a.1 + (p.0 - a.0) * (b.1 - a.1) / (b.0 - a.0) { c.toggle() }
                j = i
            }
            return c
        }
        var found: [Expected] = []
        for e in elements where e.id.hasPrefix("n") && (e.tags["amenity"] == "pharmacy" || e.tags["healthcare"] == "pharmacy") {
            guard let p = nodes[e.id] else { continue }
            var target = p
            for b in buildings {
                let ring = b.nodes.compactMap { nodes[$0] }
                guard ring.count == b.nodes.count, inside(p, ring) else { continue }
                let doors = b.nodes.filter { id in
                    guard let t = tagsOf[id], let kind = t["entrance"] else { return false }
                    return !["emergency", "exit", "service", "garage", "no"].contains(kind) && !["no", "private"].contains(t["access"] ?? "")
                }.compactMap { nodes[$0] }
                if let door = doors.min(by: { haversine(from, $0) < haversine(from, $1) }) { target = door; break }
            }
            found.append(Expected(name: e.tags["name:en"] ?? e.tags["name"] ?? "", target: target, distance: haversine(from, target)))
        }
        found.sort { $0.distance < $1.distance }
        var kept: [Expected] = []
        for f in found where !kept.contains(where: { $0.name == f.name && haversine($0.target, f.target) < 25 }) { kept.append(f) }
        return kept
    }

    struct Line: Decodable { var text: String; var soundType: String; var bearing: Double?; var distance: Double? }

    @Test func sayNearestPharmacyListsTheMapsPharmaciesWithTrueDistancesAndDirections() throws {
        let from = (Self.at.latitude, Self.at.longitude)
        let result = try Soundscape.run(["say", "nearest pharmacy", "--at", "\(from.0),\(from.1)", "--heading", "90",
                                         "--db", Soundscape.helsinkiDatabase, "--json", "--user-db", Soundscape.temporaryUserDatabase()])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try result.stdout.split(separator: "\n").map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        let items = lines.filter { $0.text.first?.isNumber == true && $0.soundType == "localized" }
        let expected = try Self.pharmacies(from: from)
        #expect(expected.count >= 5)
        #expect(items.count == min(5, expected.count), "\(result.stdout)")
        #expect(lines.first?.text == "The \(items.count) nearest pharmacies", "\(result.stdout)")
        for (i, (item, oracle)) in zip(items, expected).enumerated() {
            #expect(item.text.hasPrefix("\(i + 1). \(oracle.name)"), "\(item.text) — the file says \(oracle.name)")
            let distance = try #require(item.distance), bearing = try #require(item.bearing)
            #expect(abs(distance - oracle.distance) < 1 + oracle.distance * 0.003, "\(item.text): \(distance) m, the file \(oracle.distance) m")
            let trueBearing = Self.bearing(from, oracle.target)
            #expect(abs((bearing - trueBearing + 540).truncatingRemainder(dividingBy: 360) - 180) < 1, "\(item.text): \(bearing)° vs \(trueBearing)°")
            #expect(item.text.hasSuffix(", " + Self.direction(bearing: trueBearing, heading: 90)), "\(item.text)")
        }
    }

    @Test func numberTwoAfterNearestPharmacySetsTheBeaconOnTheSecond() throws {
        let userDB = Soundscape.temporaryUserDatabase()
        defer { try? FileManager.default.removeItem(atPath: userDB) }
        let result = try Soundscape.runTyped(["run", "--at", "\(Self.at.latitude),\(Self.at.longitude)", "--heading", "90",
                                              "--db", Soundscape.helsinkiDatabase, "--quiet", "--no-voice", "--user-db", userDB],
                                             lines: ["nearest pharmacy", "number two", "where is the beacon", "quit"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let second = try #require(lines.first { $0.hasPrefix("2. ") }, "\(result.stdout)")
        // "2. Erottajan Apteekki, entrance on Keskuskatu, 515 meters, behind": the name is all but the last two parts.
        let name = second.dropFirst(3).components(separatedBy: ", ").dropLast(2).joined(separator: ", ")
        #expect(!name.isEmpty)
        #expect(lines.contains { $0.hasPrefix("Beacon set on \(name), ") }, "\(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("Beacon on \(name), ") }, "\(result.stdout)")
        let first = try #require(lines.first { $0.hasPrefix("1. ") })
        #expect(!first.hasPrefix("1. \(name), "), "the first and second are different places: \(result.stdout)")
    }

    @Test func unknownKindsAndNamesAreSaidWithWhatIsKnownInstead() throws {
        let common = ["--at", "\(Self.at.latitude),\(Self.at.longitude)", "--db", Soundscape.helsinkiDatabase, "--quiet",
                      "--user-db", Soundscape.temporaryUserDatabase()]
        let kind = try Soundscape.run(["say", "nearest bakerys"] + common)
        #expect(kind.stdout.hasPrefix("I do not know the kind bakerys. I know bakeries"), "\(kind.stdout)")
        let name = try Soundscape.run(["say", "search stokman"] + common)
        #expect(name.stdout.hasPrefix("I could not find stokman. Did you mean Stockmann"), "\(name.stdout)")
        let choice = try Soundscape.run(["say", "number two"] + common)
        #expect(choice.stdout.hasPrefix("There is no list to choose from."), "\(choice.stdout)")
    }

    /// Spoken through the test microphone to `soundscape run` standing in Hakaniemi, 1.2 km north of the market square:
    /// "take me to the market square" is heard (the square is outside the names of places within a kilometre; its
    /// English name is among the landmarks of the whole map) and guidance starts.
    @Test func takeMeToAFarAwayPlaceBySpeechStartsGuidance() async throws {
        try TestServices.require()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let start = (60.1780, 24.9480)
        #expect(Self.haversine(start, (60.1675, 24.9525)) > 1000)
        let run = try await RunningAssistant.listening(dir: dir, at: Coordinate(latitude: start.0, longitude: start.1), heading: 180,
                                                      extraArguments: ["--user-db", Soundscape.temporaryUserDatabase()], settle: .milliseconds(500))
        defer { run.stop() }
        try await run.say("take me to the market square", thenWaitFor: "Walking route to")
        let text = run.output
        #expect(text.contains("voice: heard \"take me to"), "the command was not heard: \(text)")
        #expect(text.contains("Walking route to Market Square") || text.contains("Walking route to Kauppatori"), "\(text)")
    }

    /// Spoken 1.2 km from it: "take me to the American Bar", a bar that is neither among the names of places within a
    /// kilometre nor among the landmarks, so PocketSphinx can only hear the command with the nearest name it knows. The
    /// name comes from the Whisper transcript, is matched against every name in the map, read back with its distance and
    /// direction, and guidance starts.
    @Test func takeMeToAFarPlaceOutsideTheVocabularyBySpeechStartsGuidance() async throws {
        try TestServices.require()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let start = (60.1780, 24.9480)
        // Where the file has it (osmium), and that it is outside the live vocabulary at the start.
        let bar = try #require(try Self.osmiumElements().first { $0.tags["name"] == "American Bar" && $0.latitude != nil },
                               "the extract has no American Bar")
        #expect(Self.haversine(start, (bar.latitude!, bar.longitude!)) > 1000)
        let map = try SpatialDataView(path: Soundscape.helsinkiDatabase)
        let vocabulary = try NearbyPlaceNames.phrases(map: map, near: Coordinate(latitude: start.0, longitude: start.1))
            + LandmarkNames.phrases(map: map)
        #expect(!vocabulary.contains { $0.value.lowercased().contains("american") }, "the bar is in the vocabulary")

        let run = try await RunningAssistant.listening(dir: dir, at: Coordinate(latitude: start.0, longitude: start.1), heading: 180,
                                                       extraArguments: ["--user-db", Soundscape.temporaryUserDatabase()], settle: .milliseconds(500))
        defer { run.stop() }
        try await run.say("take me to the American Bar", thenWaitFor: "Walking route to")
        let text = run.output
        #expect(text.contains("the name is the transcript's"), "the name did not come from the transcript: \(text)")
        #expect(text.contains("Taking you to American Bar, "), "\(text)")
        #expect(text.contains("Walking route to American Bar"), "\(text)")
    }

    /// Spoken: "is there a pharmacy nearby", then "number two": the beacon goes on the second of the list.
    @Test func numberTwoSpokenAfterTheNearestPharmacySetsTheBeaconOnTheSecond() async throws {
        try TestServices.require()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try await RunningAssistant.listening(dir: dir, at: Coordinate(latitude: Self.at.latitude, longitude: Self.at.longitude), heading: 90,
                                                      extraArguments: ["--user-db", Soundscape.temporaryUserDatabase()], settle: .milliseconds(500))
        defer { run.stop() }
        // The choice is made while the list is still being read, as a walker who has heard enough would.
        try await run.say("is there a pharmacy nearby", thenWaitFor: "\n3. ")
        try await run.say("number two", thenWaitFor: "Beacon set on")
        let lines = run.output.split(separator: "\n").map(String.init)
        let second = try #require(lines.first { $0.hasPrefix("2. ") }, "no list: \(run.output)")
        let name = second.dropFirst(3).components(separatedBy: ", ").dropLast(2).joined(separator: ", ")
        #expect(lines.contains { $0.hasPrefix("Beacon set on \(name), ") }, "\(run.output)")
    }
}
