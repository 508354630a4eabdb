/// When the analysis mode plays what it heard: the trade between latency and even timing.
public enum FollowTiming: String, Sendable, CaseIterable {
    /// The sound is analysed as it arrives, and each hit starts on the first sample of the next
    /// period rendered (the continuous layer follows the newest loudness the same way): the
    /// least latency, with up to a period of jitter (a hit heard early in a period's arrivals
    /// waits for that period's render as one heard late does).
    case earliest
    /// Every hit and every change of loudness one fixed delay after the sound (its spacing kept
    /// to the sample): the captured stream goes through the jitter queue and is analysed as it
    /// is played, about a period and the queue's reserve later than `earliest`.
    case steady
}
