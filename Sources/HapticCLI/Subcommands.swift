import ArgumentParser

/// Every verb of `hapticsynth`, in the order `--help` lists them. Add new verbs here
/// (and a file beside this one); tests walk this list for golden help texts.
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
