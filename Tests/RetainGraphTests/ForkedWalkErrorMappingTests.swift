import RetainGraphProcess
import Testing

@testable import RetainGraph

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The process machinery (RetainGraphProcess) fails with its own `ForkedProcessError`; the core turns
/// it into the public `ForkedWalkError`, each case to the case of the same name and values, so the
/// messages users read stay the core's.
@Suite struct ForkedWalkErrorMappingTests {
  @Test func everyFailureOfTheMachineryIsTheLikeNamedForkedWalkError() {
    let pairs: [(ForkedProcessError, ForkedWalkError)] = [
      (.childCrashed(signal: SIGSEGV, tries: 1), .childCrashed(signal: SIGSEGV, tries: 1)),
      (.childCrashed(signal: SIGBUS, tries: 5), .childCrashed(signal: SIGBUS, tries: 5)),
      (
        .childCrashed(
          signal: SIGTRAP, tries: 5, progress: "reading the running task started in Feed.start()"),
        .childCrashed(signal: SIGTRAP, tries: 5, progress: "reading the running task started in Feed.start()")
      ),
      (.timedOut(after: .milliseconds(1500), tries: 1), .timedOut(after: .milliseconds(1500), tries: 1)),
      (.timedOut(after: .seconds(3), tries: 4), .timedOut(after: .seconds(3), tries: 4)),
      (
        .timedOut(after: .seconds(60), tries: 1, progress: "walking 1,000,000 objects"),
        .timedOut(after: .seconds(60), tries: 1, progress: "walking 1,000,000 objects")
      ),
      (.childExited(status: 3), .childExited(status: 3)),
      (.childExited(status: ForkedProcess.writeFailedStatus), .childExited(status: 70)),
      (
        .malformedData("the child exited after 3 of the 8 bytes"),
        .malformedData("the child exited after 3 of the 8 bytes")
      ),
      (.systemCallFailed("poll", errno: EINTR), .systemCallFailed("poll", errno: EINTR)),
    ]
    for (failure, expected) in pairs {
      #expect(ForkedWalkError(failure) == expected)
      #expect(ForkedWalkError(failure).description == expected.description)
    }
    // A child that said what it was doing was working: the message says so, and blames no lock.
    #expect(
      ForkedWalkError.timedOut(after: .seconds(60), progress: "walking 1,000,000 objects").description
        == "forked walk failed: the forked child did not finish within 60.0 seconds and was killed; it was "
        + "still working: walking 1,000,000 objects")
    #expect(
      ForkedWalkError.timedOut(after: .seconds(60)).description
        == "forked walk failed: the forked child did not finish within 60.0 seconds and was killed; it may "
        + "have blocked on a lock that another thread held when the process forked")
    // A child that crashed in a reader that said what it read: the message names it.
    #expect(
      ForkedWalkError.childCrashed(
        signal: SIGSEGV, tries: 1, progress: "reading the task started in Feed.start()"
      )
      .description
        == "forked walk failed: the forked child walking the graph was killed by signal 11 (SIGSEGV) while "
        + "reading the task started in Feed.start()")
    #expect(ForkedChild.cancelled == .systemCallFailed("cancelled", errno: ECANCELED))
    #expect(ForkedChild.tries == ForkedProcess.tries)
  }

  /// The failure comes through the core's `ForkedChild.run` as the public error (a child that exits
  /// early: its status).
  @Test func theCoresRunThrowsTheForkedWalkError() {
    #expect(throws: ForkedWalkError.childExited(status: 3)) {
      try ForkedChild.run(timeout: .seconds(10)) { () -> [UInt8] in _exit(3) }
    }
  }
}
