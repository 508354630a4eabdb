import ArgumentParser

/// Every verb of `hapticsynth`, in the order `--help` lists them. Add new verbs here
/// (and a file beside this one); tests walk this list for golden help texts. Each verb names
/// itself (`commandName`): without it ArgumentParser derives the name with
/// `String(describing:)`, a scan of every protocol conformance in the program per verb at
/// every start (a third of `--version`'s time before).
public enum HapticsynthSubcommands {
    public static let all: [any ParsableCommand.Type] = [
        Validate.self,
        Info.self,
        Render.self,
        Convert.self,
        Play.self,
        Devices.self,
        Rhythm.self,
        Plot.self,
        Serve.self,
        Send.self,
        Follow.self,
        StudioVerb.self,
    ]
}
