import Foundation
import HapticCLI
import HapticKit
import Testing

/// Where the pattern library and assets are found when no option names them (DataFolders): the
/// environment, the user's XDG data folder, ./Haptics, $XDG_DATA_DIRS, the install prefix; and
/// `rhythm` / `info --paths` run with a fake HOME and XDG folders, outside the repository.
@Suite("data folders: the installed library found by default")
struct DataFolderSearchTests {
    @Test("the places looked in, in order: environment, XDG_DATA_HOME, current folder, XDG_DATA_DIRS, the prefix")
    func order() {
        let search = DataFolders(
            environment: ["HOME": "/home/u", "XDG_DATA_HOME": "/data/home/", "XDG_DATA_DIRS": "/a:relative:/b/", "HAPTICSYNTH_HAPTICS": "/mine"],
            installPrefix: "/opt/hs")
        #expect(search.candidates(.haptics).map(\.path) == [
            "/mine", "/data/home/hapticsynth/Haptics", "Haptics", "/a/hapticsynth/Haptics", "/b/hapticsynth/Haptics", "/opt/hs/share/hapticsynth/Haptics",
        ])
        #expect(search.candidates(.assets).map(\.path) == [
            "/data/home/hapticsynth/Assets", "Assets", "/a/hapticsynth/Assets", "/b/hapticsynth/Assets", "/opt/hs/share/hapticsynth/Assets",
        ])
    }

    @Test("defaults: ~/.local/share, the current folder, then /usr/local/share and /usr/share; a relative XDG_DATA_HOME is ignored")
    func defaults() {
        let search = DataFolders(environment: ["HOME": "/home/u", "XDG_DATA_HOME": "rel", "XDG_DATA_DIRS": ""], installPrefix: nil)
        #expect(search.candidates(.assets).map(\.path) == [
            "/home/u/.local/share/hapticsynth/Assets", "Assets", "/usr/local/share/hapticsynth/Assets", "/usr/share/hapticsynth/Assets",
        ])
    }

    @Test("the install prefix of an installed program or library: two levels up")
    func prefixOfInstalledFile() {
        #expect(DataFolders.installPrefix(ofInstalledFile: "/usr/local/bin/hapticsynth") == "/usr/local")
        #expect(DataFolders.installPrefix(ofInstalledFile: "/usr/lib/libhapticsynth.so.0") == "/usr")
        #expect(DataFolders.installPrefix(ofInstalledFile: "/bin/hapticsynth") == "/")
        #expect(DataFolders.installPrefix(ofInstalledFile: "hapticsynth") == nil)
    }

    @Test("the first folder that exists wins; the user's before the system's")
    func firstExisting() throws {
        let temp = try TempFolder()
        let user = temp.url.appendingPathComponent("user").path, system = temp.url.appendingPathComponent("system").path
        try FileManager.default.createDirectory(atPath: system + "/hapticsynth/Haptics", withIntermediateDirectories: true)
        let search = DataFolders(environment: ["XDG_DATA_HOME": user, "XDG_DATA_DIRS": system], installPrefix: nil, currentFolder: temp.url.path)
        #expect(search.find(.haptics)?.path == system + "/hapticsynth/Haptics")
        try FileManager.default.createDirectory(atPath: user + "/hapticsynth/Haptics", withIntermediateDirectories: true)
        #expect(search.find(.haptics)?.path == user + "/hapticsynth/Haptics")
        #expect(search.find(.assets) == nil)
    }

    @Test("the user's folder comes before the current folder's ./Haptics")
    func userBeforeCurrentFolder() throws {
        let temp = try TempFolder()
        let user = temp.url.appendingPathComponent("user").path, work = temp.url.appendingPathComponent("work").path
        for folder in [user + "/hapticsynth/Haptics", work + "/Haptics"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let search = DataFolders(environment: ["XDG_DATA_HOME": user, "XDG_DATA_DIRS": "/nonexistent"], installPrefix: nil, currentFolder: work)
        #expect(search.find(.haptics)?.path == user + "/hapticsynth/Haptics")
    }

    @Test("a folder is listed once: the prefix /usr is /usr/share of XDG_DATA_DIRS; a link to a folder listed before")
    func noDuplicates() throws {
        let usr = DataFolders(environment: ["HOME": "/home/u"], installPrefix: "/usr/")
        let paths = usr.candidates(.haptics).map(\.path)
        #expect(paths == ["/home/u/.local/share/hapticsynth/Haptics", "Haptics", "/usr/local/share/hapticsynth/Haptics", "/usr/share/hapticsynth/Haptics"])

        let temp = try TempFolder()
        let real = temp.url.appendingPathComponent("real").path, link = temp.url.appendingPathComponent("link").path
        try FileManager.default.createDirectory(atPath: real + "/hapticsynth/Assets", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let linked = DataFolders(environment: ["XDG_DATA_HOME": real, "XDG_DATA_DIRS": link + ":" + real + "/"], installPrefix: nil, currentFolder: "/nonexistent")
        #expect(linked.candidates(.assets).map(\.path) == [real + "/hapticsynth/Assets", "/nonexistent/Assets"])
    }

    /// The environment of a run outside the repository: a fake HOME whose ~/.local/share holds
    /// the library, no system folder that has one.
    func fakeHome(_ temp: TempFolder) throws -> [String: String] {
        let data = temp.url.appendingPathComponent("home/.local/share/hapticsynth").path
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        for folder in ["Haptics", "Assets"] {
            try FileManager.default.copyItem(atPath: repositoryRoot.appendingPathComponent(folder).path, toPath: data + "/" + folder)
        }
        return ["PATH": "/usr/bin:/bin", "HOME": temp.url.appendingPathComponent("home").path,
                "XDG_DATA_DIRS": temp.url.appendingPathComponent("none").path, "LANG": "C"]
    }

    func run(_ arguments: [String], environment: [String: String], in folder: URL) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: hapticsynthBinary)
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = folder
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile(), errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    @Test("rhythm -o outside the repository uses the library in ~/.local/share/hapticsynth; info --paths says so")
    func rhythmFindsUserLibrary() throws {
        let temp = try TempFolder()
        var environment = try fakeHome(temp)
        let work = temp.url.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let rhythm = try run(["rhythm", "--beats", "2", "-o", "session.wav"], environment: environment, in: work)
        #expect(rhythm.status == 0, "\(rhythm.err)")
        #expect(FileManager.default.fileExists(atPath: work.appendingPathComponent("session.wav").path))

        let paths = try run(["info", "--paths"], environment: environment, in: work)
        let home = environment["HOME"]!
        #expect(paths.status == 0)
        #expect(paths.out.contains("pattern library (--haptics): \(home)/.local/share/hapticsynth/Haptics\n"), "\(paths.out)")
        #expect(paths.out.contains("missing Haptics  (current folder)"), "\(paths.out)")

        // Nothing anywhere: one line naming where it looked, exit 1, nothing written.
        environment["HOME"] = temp.url.appendingPathComponent("empty").path
        let bare = try run(["rhythm", "--beats", "2", "-o", "bare.wav"], environment: environment, in: work)
        #expect(bare.status == 1)
        #expect(bare.err.hasPrefix("rhythm: no pattern library found (looked in \(temp.url.path)/empty/.local/share/hapticsynth/Haptics, Haptics, "), "\(bare.err)")
        #expect(bare.err.split(separator: "\n").count == 1, "\(bare.err)")
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("bare.wav").path))
    }

    @Test("--profile NAME: actuators/NAME.json of the assets folder found (the user's), as the C library takes it")
    func profileByName() throws {
        let temp = try TempFolder()
        let environment = try fakeHome(temp)
        let mine = environment["HOME"]! + "/.local/share/hapticsynth/Assets/actuators/my-coil.json"
        try FileManager.default.copyItem(atPath: repositoryRoot.appendingPathComponent("Assets/actuators/voice-coil.json").path, toPath: mine)
        let pattern = repositoryRoot.appendingPathComponent("Haptics/heartbeat.ahap").path
        let named = try run(["render", pattern, "--profile", "my-coil", "-o", "named.wav"], environment: environment, in: temp.url)
        let path = try run(["render", pattern, "--profile", mine, "-o", "path.wav"], environment: environment, in: temp.url)
        #expect(named.status == 0 && path.status == 0, "\(named.err)\(path.err)")
        let bytes = { (name: String) in FileManager.default.contents(atPath: temp.url.appendingPathComponent(name).path) }
        #expect(bytes("named.wav") != nil && bytes("named.wav") == bytes("path.wav"))
        let missing = try run(["render", pattern, "--profile", "no-such-coil", "-o", "x.wav"], environment: environment, in: temp.url)
        #expect(missing.status != 0 && missing.err.contains("no-such-coil"), "\(missing.err)")
    }

    @Test("$HAPTICSYNTH_HAPTICS naming no folder is an error, not a fallback")
    func environmentFolderMissing() throws {
        let temp = try TempFolder()
        var environment = try fakeHome(temp)
        environment["HAPTICSYNTH_HAPTICS"] = "/nonexistent-haptics"
        let run = try run(["rhythm", "--beats", "2", "-o", "x.wav"], environment: environment, in: temp.url)
        #expect(run.status == 1)
        #expect(run.err == "rhythm: /nonexistent-haptics: no such folder ($HAPTICSYNTH_HAPTICS)\n", "\(run.err)")
    }

    @Test("info takes a file or --paths, not both and not neither")
    func infoArguments() {
        #expect(throws: (any Error).self) { try Info.parse([]) }
        #expect(throws: (any Error).self) { try Info.parse(["--paths", "x.ahap"]) }
        #expect((try? Info.parse(["--paths"])) != nil)
    }
}
