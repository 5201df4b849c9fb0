internal import RetainGraphProcess

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// Why ``ObjectGraph/init(snapshotting:options:timeout:)`` could not return a graph: the forked child
/// that walked it crashed, hung, exited early or wrote bytes that are not a graph, or the process
/// could not fork. Every message names what happened.
public enum ForkedWalkError: Error, CustomStringConvertible, Sendable, Equatable {
  /// The child was ended by a signal: it crashed (`SIGSEGV`, `SIGBUS`, `SIGILL`, `SIGABRT` from a
  /// Swift runtime trap) or something else killed it. A crashed child is replaced by a fresh fork
  /// (it may have copied an object another thread was changing) up to 5 times within the timeout:
  /// `tries` is how many children crashed, `signal` ended the last. `progress` is what the last
  /// child said it was doing when it crashed: the reader it was in ("reading the suspended frames
  /// of a task started in Feed.start()"), nil when it said nothing.
  case childCrashed(signal: Int32, tries: Int = 1, progress: String? = nil)
  /// The child did not send the whole graph within the timeout, and was killed with `SIGKILL`. A
  /// child can block forever on a lock that another thread held at the moment of the fork; on
  /// Linux such a child (asleep, no progress) is replaced by a fresh fork before the timeout:
  /// `tries` is how many children the call made in all. `progress` is what the last child said it
  /// was doing when it was killed (it was working, not blocked: "counting: 400,000 of 1,000,000
  /// objects read"); nil when it said nothing.
  case timedOut(after: Duration, tries: Int = 1, progress: String? = nil)
  /// The child exited with a non-zero status before sending the whole graph.
  case childExited(status: Int32)
  /// The child sent bytes that are not a graph: what is wrong, and where in the stream.
  case malformedData(String)
  /// A system call of the parent failed (`pipe`, `fork`, `poll`, `read`, `waitpid`).
  case systemCallFailed(String, errno: Int32)

  public var description: String {
    switch self {
    case .childCrashed(let signal, let tries, let progress):
      "forked walk failed: the forked child walking the graph was killed by signal \(signal)"
        + (Self.signalName(signal).map { " (\($0))" } ?? "")
        + (progress.map { " while \($0)" } ?? "")
        + (tries > 1 ? ", and so was each of the \(tries - 1) fresh forks after it (\(tries) tries)" : "")
    case .timedOut(let timeout, let tries, let progress):
      "forked walk failed: the forked child did not finish within \(timeout) and was killed"
        + (tries > 1
          ? " (\(tries) tries: each child before it crashed or blocked, and was replaced by a fresh fork)"
          : "")
        + (progress.map { "; it was still working: \($0)" }
          ?? "; it may have blocked on a lock that another thread held when the process forked")
    case .childExited(let status):
      "forked walk failed: the forked child exited with status \(status) before sending the whole graph"
        + (status == ForkedProcess.writeFailedStatus ? " (it could not write to the pipe)" : "")
    case .malformedData(let what):
      "forked walk failed: the forked child wrote malformed data: \(what)"
    case .systemCallFailed(let call, let code):
      "forked walk failed: \(call) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
  }

  private static func signalName(_ signal: Int32) -> String? {
    switch signal {
    case SIGSEGV: "SIGSEGV"
    case SIGBUS: "SIGBUS"
    case SIGILL: "SIGILL"
    case SIGABRT: "SIGABRT"
    case SIGFPE: "SIGFPE"
    case SIGTRAP: "SIGTRAP"
    case SIGKILL: "SIGKILL"
    case SIGTERM: "SIGTERM"
    default: nil
    }
  }
}
