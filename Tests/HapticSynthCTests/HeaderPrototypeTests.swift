import Foundation
import Testing

/// The C API's signatures, not only its names: hapticsynth.h's `hs_` prototypes and the layouts
/// of its public structs, normalized, must be the committed list
/// (Sources/CHapticSynth/hapticsynth.prototypes), so that a changed parameter or field is a
/// deliberate ABI change (the list is edited with it) rather than one no test notices.
@Suite struct HeaderPrototypeTests {
    static let header = repoRoot + "/Sources/CHapticSynth/include/hapticsynth.h"
    static let list = repoRoot + "/Sources/CHapticSynth/hapticsynth.prototypes"

    /// One line per `hs_` function ("int hs_player_stop(hs_player *player, double time);") and
    /// per struct with a body ("struct hs_engine_status { size_t struct_size; ... }"), sorted:
    /// comments and preprocessor lines dropped, whitespace collapsed, `*` bound to what
    /// follows it, parameter and field names kept as declared.
    static func prototypes(ofHeader text: String) -> [String] {
        var source = text
        // The C++ guard's `extern "C" {` and `}` are no declarations.
        while let open = source.range(of: "#ifdef __cplusplus"),
              let close = source.range(of: "#endif", range: open.upperBound..<source.endIndex) {
            source.removeSubrange(open.lowerBound..<close.upperBound)
        }
        source = source.replacingOccurrences(of: #"/\*[\s\S]*?\*/"#, with: " ", options: .regularExpression)
        source = source.replacingOccurrences(of: #"//[^\n]*"#, with: " ", options: .regularExpression)
        source = source.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }.joined(separator: "\n")
        for (pattern, replacement) in [(#"\s+"#, " "), (#"\s*(\*+)\s*"#, " $1"), (#"\(\s+"#, "("), (#"\s+\)"#, ")"),
                                       (#"\s*,\s*"#, ", "), (#"\s+;"#, ";"), (#"\s*\{\s*"#, " { "), (#"\s*\}\s*"#, " } ")] {
            source = source.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        // Top-level declarations: up to a `;` outside braces.
        var declarations: [String] = []
        var current = "", depth = 0
        for character in source {
            current.append(character)
            if character == "{" { depth += 1 }
            if character == "}" { depth -= 1 }
            if character == ";" && depth == 0 {
                declarations.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            }
        }
        var lines: [String] = []
        for declaration in declarations {
            if let body = declaration.range(of: #"^typedef struct (hs_\w+) \{ "#, options: .regularExpression) {
                let name = declaration[body].split(separator: " ")[2]
                let fields = declaration[body.upperBound...].prefix { $0 != "}" }.trimmingCharacters(in: .whitespaces)
                lines.append("struct \(name) { \(fields) }")
            } else if !declaration.contains("{"), declaration.range(of: #"\bhs_\w+\("#, options: .regularExpression) != nil {
                lines.append(declaration)
            }
        }
        return lines.sorted()
    }

    static func committed() throws -> [String] {
        try String(contentsOfFile: list, encoding: .utf8).split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    @Test("hapticsynth.h's prototypes and struct layouts are the committed hapticsynth.prototypes")
    func headerMatchesTheCommittedPrototypes() throws {
        let declared = Self.prototypes(ofHeader: try String(contentsOfFile: Self.header, encoding: .utf8))
        let committed = try Self.committed()
        let same = declared == committed  // the difference below, not both lists
        #expect(same, """
            hapticsynth.h's signatures changed (a deliberate ABI change updates Sources/CHapticSynth/hapticsynth.prototypes):
            added or changed: \(declared.filter { !committed.contains($0) })
            removed or changed: \(committed.filter { !declared.contains($0) })
            """)
        // One prototype per exported symbol, and the public structs all there.
        let names = declared.filter { !$0.hasPrefix("struct ") }.compactMap { line in
            line.range(of: #"hs_\w+(?=\()"#, options: .regularExpression).map { String(line[$0]) }
        }
        #expect(names.sorted() == (try LibraryBuildTests.committedSymbols()))
        let structs = declared.filter { $0.hasPrefix("struct ") }.map { $0.split(separator: " ")[1] }
        #expect(structs == ["hs_callbacks", "hs_channel_info", "hs_convert_options", "hs_engine_options", "hs_engine_status", "hs_render_options"])
    }

    @Test("the normalization sees a changed parameter type, an added field and a renamed field; not spacing or comments")
    func normalizationSeesSignatureChanges() throws {
        let base = """
            /* a header */
            typedef struct hs_thing {
                size_t struct_size; /** its size */
                int   count;
            } hs_thing;
            int hs_thing_get(const hs_thing* thing,
                             float *value);
            """
        let lines = Self.prototypes(ofHeader: base)
        #expect(lines == ["int hs_thing_get(const hs_thing *thing, float *value);",
                          "struct hs_thing { size_t struct_size; int count; }"])
        let respaced = base.replacingOccurrences(of: "/** its size */", with: "").replacingOccurrences(of: "    ", with: "\t")
        #expect(Self.prototypes(ofHeader: respaced) == lines)
        for changed in [base.replacingOccurrences(of: "float *value", with: "double *value"),
                        base.replacingOccurrences(of: "int   count;", with: "int count; int more;"),
                        base.replacingOccurrences(of: "int   count;", with: "int total;")] {
            #expect(Self.prototypes(ofHeader: changed) != lines, "\(changed)")
        }
    }
}
