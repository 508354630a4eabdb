// Every file a command reads, gathered in one place so that no output is ever written over one
// of them: the inputs, the `--profile` file, every profile file a `--layout` names (in any
// spelling: `H:p.json`, `FL=H:p.json*0.5`, a preset), the sounds a pattern plays, and the
// verb's own option files (`--per-sound`, a beat map). Files are compared by identity (device
// and inode, symbolic links followed) when the output is checked (`TemporaryOutputFile`).

import ArgumentParser
import HapticKit

/// The files a command reads.
struct CommandInputs {
    /// Their identities (a path that does not name an existing file is left out: it cannot be
    /// written over, and nothing was read from it).
    private(set) var identities: [FileIdentity] = []

    init() {}

    /// The files `paths` name.
    init(_ paths: [String]) { for path in paths { add(path) } }

    mutating func add(_ path: String?) {
        guard let path, let identity = FileIdentity(path: path), !identities.contains(identity) else { return }
        identities.append(identity)
    }

    /// `--profile` when it is a file, and every profile file `--layout` names.
    mutating func add(_ synthesis: SynthesisOptions) {
        addProfile(synthesis.profile)
        add(synthesis.channelLayout)
    }

    /// Every profile file `--layout` names.
    mutating func add(_ layout: LayoutOptions) {
        for name in layout.profileNames() { addProfile(name) }
    }

    /// A profile name that is not a built-in one is a file.
    mutating func addProfile(_ name: String) {
        if ActuatorProfile.builtIn(named: name) == nil { add(name) }
    }

    /// The sound files `file`'s audio events play (found as the renderer finds them).
    mutating func addSounds(of file: PatternFile, soundFolders: [String]) {
        let roots = [SynthesisOptions.assetsFolder()].compactMap { $0 } + soundFolders
        for reference in file.decoded.pattern.events.compactMap(\.waveformPath) {
            add(file.locateAudio(reference, roots: roots)?.path)
        }
    }

    /// These and `more`.
    func adding(_ more: CommandInputs) -> CommandInputs {
        var all = self
        for identity in more.identities where !all.identities.contains(identity) { all.identities.append(identity) }
        return all
    }
}

extension LayoutOptions {
    /// The profile names the layout gives (built-in names and files alike), each as the parser
    /// hands it over: the parser itself finds them, so no spelling or preset is missed.
    func profileNames() -> [String] {
        guard let layout else { return [] }
        var names: [String] = []
        let stand = ActuatorProfile.bassShaker
        _ = try? ChannelLayout.parse(layout) { (name: String) throws(ChannelLayoutError) -> ActuatorProfile in
            names.append(name)
            return stand
        }
        return names
    }
}
