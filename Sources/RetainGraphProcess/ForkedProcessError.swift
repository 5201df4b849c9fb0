/// Why ``ForkedProcess/run(timeout:standardError:trace:cancellation:body:)`` returned no bytes: its
/// children crashed, hung or exited early, one sent a truncated answer, or a system call failed.
///
/// The process machinery's own failure, with no words about what the child computed: the core turns
/// it into its public `ForkedWalkError`, one case to the case of the same name and values, which
/// words the message.
package enum ForkedProcessError: Error, Sendable, Equatable {
  /// A signal (not the parent's `SIGKILL`) ended the last child; `tries` children were made, each
  /// crashed or was replaced. `progress` is what the last child said it was doing when it crashed
  /// (``ForkedProgress``: the reader it was in), nil when it said nothing.
  case childCrashed(signal: Int32, tries: Int, progress: String? = nil)
  /// The last child did not finish within the timeout and was killed; `tries` children were made.
  /// `progress` is what the child last said it was doing (``ForkedProgress``), nil when it said
  /// nothing.
  case timedOut(after: Duration, tries: Int, progress: String? = nil)
  /// The child exited with a non-zero status before sending its whole answer
  /// (``ForkedProcess/writeFailedStatus`` when it could not write to the pipe).
  case childExited(status: Int32)
  /// The child sent a length past the limit, or exited before the length or the bytes it
  /// announced: what is wrong.
  case malformedData(String)
  /// A system call of the parent failed (`pipe`, `fork`, `poll`, `read`, `waitpid`), or the call
  /// was cancelled (``ForkedProcess/cancelled``).
  case systemCallFailed(String, errno: Int32)
}
