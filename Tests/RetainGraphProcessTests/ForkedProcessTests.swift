import Foundation
import Synchronization
import Testing

@testable import RetainGraphProcess

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The process machinery on its own, with no graph: the bytes a child sends, how a child that exits,
/// crashes or is cancelled fails, and that every child is reaped and its pipe closed. (What the forked
/// walk makes of these failures, `ForkedWalkError` and its messages, is tested in RetainGraphTests.)
@Suite struct ForkedProcessTests {
  @Test func theRunnerReturnsLargeAnswersExactly() throws {
    let size = 1 << 20 + 17  // many pipe buffers, not a multiple of any
    var expected = [UInt8](repeating: 0, count: size)
    for index in expected.indices { expected[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 9) }
    let traces = Traces()
    let bytes = try ForkedProcess.run(timeout: .seconds(10), trace: traces.add) { expected }
    #expect(bytes.count == size)
    #expect(bytes == expected)
    #expect(traces.all.last?.ending == .answered)
    expectNoLeftovers(traces.all)
    #expect(try ForkedProcess.run(timeout: .seconds(10)) { [] } == [])
  }

  /// A timeout far past any real one (a user's "no limit") is the longest poll, not an overflow;
  /// a deadline already passed still polls for a millisecond.
  @Test(arguments: [Duration.seconds(Int64.max / 2), .seconds(Int64.max)])
  func aTimeoutMeaningNoLimitIsTheLongestPoll(timeout: Duration) {
    #expect(ForkedProcess.Reader.milliseconds(timeout) == Int32.max)
    #expect(ForkedProcess.Reader.milliseconds(.zero - timeout) == 1)
    #expect(ForkedProcess.Reader.milliseconds(.microseconds(1)) == 1)
    #expect(ForkedProcess.Reader.milliseconds(.milliseconds(1500)) == 1500)
  }

  /// A child that exits with a status of its own before answering is that status, as the error and
  /// as the ending of its trace; a status of 0 with no answer is a truncated answer.
  @Test func aChildThatExitsEarlyIsItsExitStatus() {
    let traces = Traces()
    #expect(throws: ForkedProcessError.childExited(status: 3)) {
      try ForkedProcess.run(timeout: .seconds(10), trace: traces.add) { () -> [UInt8] in _exit(3) }
    }
    #expect(traces.all.last?.ending == .failed(.childExited(status: 3)))
    expectNoLeftovers(traces.all)
    #expect(throws: ForkedProcessError.malformedData("the child exited after 0 of the 8 bytes of the length"))
    {
      try ForkedProcess.run(timeout: .seconds(10)) { () -> [UInt8] in _exit(0) }
    }
  }

  /// A child that crashes inside a reader that says what it reads (``ForkedProgress/during(_:_:)``):
  /// the error carries that text, and what the child said before and after the reader is not it.
  @Test func aCrashNamesTheReaderTheChildWasIn() {
    #expect(
      throws: ForkedProcessError.childCrashed(
        signal: SIGSEGV, tries: ForkedProcess.tries, progress: "reading a test's memory")
    ) {
      try ForkedProcess.run(timeout: .seconds(30)) { () -> [UInt8] in
        ForkedProgress.report("walking")
        ForkedProgress.during("reading a test's memory") { _ = raise(SIGSEGV) }
        return []
      }
    }
    // Past the reader, the child says again what it said before.
    #expect(
      throws: ForkedProcessError.childCrashed(
        signal: SIGSEGV, tries: ForkedProcess.tries, progress: "walking")
    ) {
      try ForkedProcess.run(timeout: .seconds(30)) { () -> [UInt8] in
        ForkedProgress.report("walking")
        ForkedProgress.during("reading a test's memory") {}
        raise(SIGSEGV)
        return []
      }
    }
  }

  /// A child that crashes on every try is forked again until the last try, and the error names its
  /// signal and the tries: each child before the last crashed (or, under load, stalled on a lock
  /// held at the fork and was replaced); the last crashed.
  @Test func aChildThatCrashesOnEveryTryIsTriedFiveTimes() {
    let traces = Traces()
    #expect(throws: ForkedProcessError.childCrashed(signal: SIGSEGV, tries: ForkedProcess.tries)) {
      try ForkedProcess.run(timeout: .seconds(30), trace: traces.add) { () -> [UInt8] in
        raise(SIGSEGV)
        return []
      }
    }
    let endings = traces.all.map(\.ending)
    #expect(traces.all.map(\.attempt) == Array(1...ForkedProcess.tries))
    #expect(endings.last == .crashed(signal: SIGSEGV), "\(endings)")
    #expect(endings.allSatisfy { $0 == .crashed(signal: SIGSEGV) || $0 == .stalled }, "\(endings)")
    expectNoLeftovers(traces.all)
  }

  /// A flag set while the child works kills the child: the call throws `cancelled` at once (not at
  /// the timeout), and the child is reaped. A flag set before the call forks no child.
  @Test func aCancelledCallKillsItsChild() throws {
    let flag = CancellationFlag()
    let traces = Traces()
    // Cancelled once a child runs (the trace is called in the parent after each fork): the call
    // must notice while it waits for the child, not only before it forks.
    let traceThenCancel: @Sendable (ForkedProcess.Trace) -> Void = { trace in
      traces.add(trace)
      flag.set()
    }
    let start = ContinuousClock.now
    #expect(throws: ForkedProcess.cancelled) {
      try ForkedProcess.run(timeout: .seconds(60), trace: traceThenCancel, cancellation: flag) {
        () -> [UInt8] in
        sleep(60)  // asleep in a timer, not on a lock: never replaced as stalled
        return []
      }
    }
    #expect(ContinuousClock.now - start < .seconds(30))
    // A child blocked on a lock a parallel test's thread held at the fork is replaced first.
    let endings = traces.all.map(\.ending)
    #expect(endings.dropLast().allSatisfy { $0 == .stalled }, "\(endings)")
    #expect(endings.last == .failed(ForkedProcess.cancelled), "\(endings)")
    expectNoLeftovers(traces.all)

    let before = Traces()
    #expect(throws: ForkedProcess.cancelled) {
      try ForkedProcess.run(timeout: .seconds(10), trace: before.add, cancellation: flag) { [1] }
    }
    #expect(before.all.isEmpty)
  }

  /// A child asleep on a timer past the timeout is killed at the timeout (asleep on no lock, it is
  /// not replaced), and the error says how many children the call made: one, or more when a child
  /// blocked on a lock a parallel test's thread held at the fork was replaced before it.
  @Test func aChildPastTheTimeoutIsKilled() {
    let traces = Traces()
    let timeout = Duration.seconds(1)
    let error = #expect(throws: ForkedProcessError.self) {
      try ForkedProcess.run(timeout: timeout, trace: traces.add) { () -> [UInt8] in
        sleep(60)
        return []
      }
    }
    let endings = traces.all.map(\.ending)
    #expect(error == .timedOut(after: timeout, tries: traces.all.count), "\(endings)")
    #expect(endings.dropLast().allSatisfy { $0 == .stalled }, "\(endings)")
    #expect(endings.last == .failed(.timedOut(after: timeout, tries: traces.all.count)), "\(endings)")
    expectNoLeftovers(traces.all)
  }

  /// A child still working at the timeout is killed, and the error carries what it last said it was
  /// doing (``ForkedProgress``) rather than blaming a lock: the text whole, or cut at a character.
  @Test(arguments: ["counting: 400,000 of 1,000,000 objects", String(repeating: "é", count: 3000)])
  func aWorkingChildSaysWhatItWasDoing(said: String) {
    // Long enough that the last child has time to say it even after the earlier ones were taken as
    // stalled (a child starved of CPU for 250 ms on a loaded machine is replaced; the fifth runs to
    // the deadline): with 1 s, one loaded whole-suite run in many ended with a fresh child silent.
    let timeout = Duration.seconds(3)
    let error = #expect(throws: ForkedProcessError.self) {
      try ForkedProcess.run(timeout: timeout) { () -> [UInt8] in
        ForkedProgress.report("starting")
        ForkedProgress.report(said)
        var spins: UInt64 = 0
        while true { spins = spins &+ 1 }
      }
    }
    guard case .timedOut(let after, _, let progress)? = error else {
      Issue.record("not a timeout: \(String(describing: error))")
      return
    }
    #expect(after == timeout)
    let kept =
      said.utf8.count <= ForkedProgress.capacity
      ? said : String(repeating: "é", count: ForkedProgress.capacity / 2)
    #expect(progress == kept)
  }

  /// Outside a forked child, a report does nothing, and a child that says nothing leaves the
  /// timeout's progress nil.
  @Test func progressOutsideAChildIsNothing() {
    ForkedProgress.report("in the parent")
    #expect(ForkedProgress.page == nil)
    let error = #expect(throws: ForkedProcessError.self) {
      try ForkedProcess.run(timeout: .milliseconds(500)) { () -> [UInt8] in
        var spins: UInt64 = 0
        while true { spins = spins &+ 1 }
      }
    }
    guard case .timedOut(_, _, let progress)? = error else {
      Issue.record("not a timeout: \(String(describing: error))")
      return
    }
    #expect(progress == nil)
  }
}

/// The traces a call reports, gathered from the parent's thread.
final class Traces: Sendable {
  private let traces = Mutex<[ForkedProcess.Trace]>([])
  func add(_ trace: ForkedProcess.Trace) { traces.withLock { $0.append(trace) } }
  var all: [ForkedProcess.Trace] { traces.withLock { $0 } }
}

/// Every child's pipe is closed in this process and every child is gone: reaped, not a zombie.
func expectNoLeftovers(_ traces: [ForkedProcess.Trace], sourceLocation: SourceLocation = #_sourceLocation) {
  if traces.isEmpty { Issue.record("the run reported no child", sourceLocation: sourceLocation) }
  let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
  #expect(!descriptors.isEmpty, sourceLocation: sourceLocation)
  for trace in traces {
    let pipe = "pipe:[\(trace.pipeInode)]"
    let open = descriptors.filter {
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == pipe
    }
    #expect(
      open.isEmpty, "descriptors \(open) still refer to the call's pipe", sourceLocation: sourceLocation)
    var status: Int32 = 0
    #expect(waitpid(trace.pid, &status, WNOHANG) == -1 && errno == ECHILD, sourceLocation: sourceLocation)
    // kill(pid, 0) succeeds for a zombie too: ESRCH means no process at all.
    #expect(kill(trace.pid, 0) == -1 && errno == ESRCH, sourceLocation: sourceLocation)
  }
}
