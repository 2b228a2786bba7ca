import Foundation
import MapData

/// Where the map database is, and how to name the map to the user.
public enum MapPaths {
    /// A short name for the map: the imported extract's name ("Helsinki" from Helsinki.osm.pbf).
    public static func regionName(_ metadata: MapMetadata) -> String {
        if let region = metadata.values["region"], !region.isEmpty { return region }
        guard let file = metadata.sourceFile else { return "the imported area" }
        var name = URL(fileURLWithPath: file).lastPathComponent
        for suffix in [".osm.pbf", ".pbf", ".osm"] where name.hasSuffix(suffix) { name.removeLast(suffix.count) }
        return name.replacingOccurrences(of: "-latest", with: "").replacingOccurrences(of: "_", with: " ")
    }
}
