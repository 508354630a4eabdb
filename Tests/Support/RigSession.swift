// Running a session through the sound-server rigs once more when something outside the code
// under test broke its recording (shared by the rig suites of several test targets).

/// Runs a rig session, and once more when the first one was not recorded whole.
///
/// `make test` runs the unit tests and a fuzzer beside the rig lane on two cores, and once in a
/// long while an engine xrun, a capture overrun or a server underrun leaves a gap that no
/// comparison survives. One such hiccup is printed and the session runs again; the caller still
/// requires the attempt it gets to be whole, so a session that breaks twice fails.
/// - Parameter gap: what broke the recording (engine xruns, capture overruns, server
///   underruns), nil when whole.
public func rigSession<Run>(_ label: String, gap: (Run) -> String?, _ session: () throws -> Run) throws -> Run {
    let first = try session()
    guard let broken = gap(first) else { return first }
    print("\(label): not recorded whole (\(broken)); running the session once more")
    return try session()
}
