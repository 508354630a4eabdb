import HapticKit

/// `hapticsynth info --paths`: the places the pattern library and the assets are looked for
/// when no option names them (DataFolders, in order), each marked found or not, and the one used.
struct DataPathsReport {
    struct Place: Codable {
        var path: String
        var origin: String
        var exists: Bool
    }
    struct Folder: Codable {
        var kind: String
        var used: String?
        var places: [Place]
    }

    let search: DataFolders

    func folders() -> [Folder] {
        DataFolders.Kind.allCases.map { kind in
            Folder(
                kind: kind.rawValue, used: search.find(kind)?.path,
                places: search.candidates(kind).map { Place(path: $0.path, origin: $0.origin, exists: DataFolders.isFolder($0.path)) })
        }
    }

    /// Prints the report; 0 (a folder not found is an answer, not a failure).
    func print(into output: inout some CommandOutput, json: Bool) -> Int32 {
        let folders = folders()
        if json {
            output.print(jsonText(folders))
            return 0
        }
        for folder in folders {
            let title = folder.kind == "Haptics" ? "pattern library (--haptics)" : "assets: sound effects, cue sheet, profiles (--assets)"
            output.print("\(title): \(folder.used.map(printable) ?? "none found")")
            for place in folder.places {
                output.print("  \(place.exists ? "found  " : "missing") \(printable(place.path))  (\(place.origin))")
            }
        }
        return 0
    }
}
