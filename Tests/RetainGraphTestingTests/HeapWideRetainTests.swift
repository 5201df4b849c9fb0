import Dispatch
import Foundation
import RetainGraph
import RetainGraphProcess
import Synchronization
import Testing

@testable import RetainGraphTesting

private final class Retained {
  var other: Retained?
}

/// Hands a test's object to a thread of its own.
private struct UncheckedSendable<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}

/// What holds a test's module from another thread, until that thread lets it go.
private final class ModuleHolder: @unchecked Sendable {
  var object: AnyObject?
}

/// A census that sees one growing type and records, at each call, whether a heap-wide retain was
/// made inside a heap-wide retain.
private final class RecordingCensus: CensusProvider, @unchecked Sendable {
  let instance = Retained()
  let calls = Mutex<[(String, Bool)]>([])
  private let generation = Mutex(0)

  private func record(_ call: String) {
    let inside = HeapWideRetains.isInsideRetain
    calls.withLock { $0.append((call, inside)) }
  }

  var isRunning: Bool { true }
  var hasStarted: Bool { true }
  func run(recordingBacktraces: Bool, _ body: () async throws -> Void) async rethrows { try await body() }
  func mark() -> UInt64 { 0 }
  func liveCounts(allocatedIn windows: [Range<UInt64>]) -> [String: (count: Int, newest: AnyObject?)] {
    record("liveCounts")
    let count = generation.withLock {
      $0 += 1
      return $0
    }
    return ["App.Retained": (count, instance)]
  }
  func liveObjects<T>(of type: T.Type) -> [AnyObject] { [] }
  func holders(of object: AnyObject) -> CensusHolderSearch {
    record("holders")
    return CensusHolderSearch(failure: "not searched")
  }
  func searchHolders(of object: AnyObject) async -> CensusHolderSearch {
    record("searchHolders")
    return CensusHolderSearch(failure: "not searched")
  }
  func exclusively<R>(_ body: () throws -> R) rethrows -> R { try body() }
  func inNewLeakScope<R>(_ body: () throws -> R) rethrows -> (result: R, scope: UInt32) { (try body(), 0) }
  func inNewLeakScope<R>(
    recordingBacktraces: Bool, _ body: () async throws -> R
  ) async rethrows -> (result: R, scope: UInt32) {
    (try await body(), 0)
  }
  func leakedCyclesProblem(
    inScope scope: UInt32, subject: String, place: String, timeout: Duration, knownFile: String?
  ) -> String? { nil }
  func withDispatchSourceHandlers(
    of source: UnsafeRawPointer, _ body: ([(block: UnsafeRawPointer, role: String)]) -> Void
  ) { body([]) }
}

/// A heap-wide retain (a census search, a growth check holding the newest instance of each type)
/// makes every object's strong count one higher than its holders explain; audits of reference counts
/// wait for it to end (issue 29, "the rootless growth check holds newest instances").
@Suite struct HeapWideRetainTests {
  /// The rootless growth check holds each type's newest instance while it counts and while it
  /// searches its holders: each of those calls runs as a heap-wide retain.
  @Test func theGrowthCheckHoldsNewestInstancesAsAHeapWideRetain() async {
    let census = RecordingCensus()
    var analysis = CensusGrowthAnalysis(census: census, allowances: [.type(Retained.self, survivors: 0...0)])
    for run in 0..<4 { analysis.count(after: UInt64(run)..<UInt64(run + 1)) }
    #expect(Self.failureOfTheSynchronousCheck(analysis) != nil)
    let asyncFailure = await analysis.failureNamingHolders()
    #expect(asyncFailure != nil)
    let calls = census.calls.withLock { $0 }
    #expect(Set(calls.map(\.0)) == ["liveCounts", "holders", "searchHolders"])
    let outside = calls.filter { !$0.1 }.map(\.0)
    #expect(outside.isEmpty, "called outside a heap-wide retain")
    #expect(!HeapWideRetains.isInsideRetain)
  }

  private static func failureOfTheSynchronousCheck(_ analysis: CensusGrowthAnalysis) -> LeakFailure? {
    analysis.failureNamingHolders()
  }

  /// A search nested in another (a growth check's holder search, the sweep's searches) runs at once,
  /// even while an audit waits for the outer one to end: before, the inner one waited for the audit,
  /// which waited for the outer one, until the audit's deadline passed.
  @Test func aNestedRetainDoesNotWaitForAnAuditWaitingForItsParent() {
    let owner = Retained()
    owner.other = Retained()
    owner.other?.other = owner
    defer { owner.other = nil }
    let outerStarted = DispatchSemaphore(value: 0)
    let outerEnded = DispatchSemaphore(value: 0)
    let auditWaits = DispatchSemaphore(value: 0)
    let sawTheAuditWait = Mutex(false)
    let nestedHeldBack = Mutex(false)
    Thread.detachNewThread {
      HeapWideRetains.during {
        outerStarted.signal()
        // The audit below registers and waits for this retain to end (the bound only fails it).
        let waited = auditWaits.wait(timeout: .now() + 30) == .success
        sawTheAuditWait.withLock { $0 = waited }
        HeapWideRetains.$observer.withValue(.init(heldBack: { nestedHeldBack.withLock { $0 = true } })) {
          HeapWideRetains.during {}
        }
      }
      outerEnded.signal()
    }
    outerStarted.wait()
    let audit = HeapWideRetains.$observer.withValue(.init(auditWaits: { auditWaits.signal() })) {
      ObjectGraph.auditOutsideReferences(
        of: owner, callerReferences: 0, options: GraphOptions(), knownWeakReferences: { _ in 0 },
        waitingForSearchesUntil: .now.advanced(by: .seconds(60)))
    }
    outerEnded.wait()
    #expect(sawTheAuditWait.withLock { $0 }, "the audit did not wait for the outer retain")
    #expect(!nestedHeldBack.withLock { $0 }, "the nested retain was held back by the audit")
    #expect(audit.incomplete == nil, "the audit counted once the retain ended")
  }

  /// A new retain holds back for an audit that waits only for a while (`fairnessWait`), never until
  /// the audit ends: an audit whose task cannot run (the cooperative pool's threads all blocked in
  /// such waits) once held every search back and starved an async check for minutes. It still
  /// never starts while an audit counts (`noSearchStartsWhileAnAuditCounts`). The first retain runs
  /// until the second has started (the audit waits for it meanwhile, and says so).
  @Test func aNewRetainHoldsBackForAWaitingAuditOnlyForAWhile() {
    let owner = Retained()
    let firstStarted = DispatchSemaphore(value: 0)
    let releaseFirst = DispatchSemaphore(value: 0)
    let firstEnded = Mutex(false)
    let auditWaits = DispatchSemaphore(value: 0)
    let audited = DispatchSemaphore(value: 0)
    let secondHeldBack = Mutex(false)
    let secondStartedWhileTheFirstRan = Mutex<Bool?>(nil)
    Thread.detachNewThread {
      HeapWideRetains.during {
        firstStarted.signal()
        // Bounds the wait only: a second retain that waits for the audit fails below.
        _ = releaseFirst.wait(timeout: .now() + 30)
        firstEnded.withLock { $0 = true }
      }
    }
    firstStarted.wait()
    let box = UncheckedSendable(owner)
    Thread.detachNewThread {
      // Waits for the first retain to end.
      HeapWideRetains.$observer.withValue(.init(auditWaits: { auditWaits.signal() })) {
        _ = ObjectGraph.auditOutsideReferences(
          of: box.value, callerReferences: 0, options: GraphOptions(), knownWeakReferences: { _ in 0 },
          waitingForSearchesUntil: .now.advanced(by: .seconds(60)))
      }
      audited.signal()
    }
    #expect(auditWaits.wait(timeout: .now() + 30) == .success, "the audit did not wait for the first retain")
    HeapWideRetains.$observer.withValue(.init(heldBack: { secondHeldBack.withLock { $0 = true } })) {
      HeapWideRetains.during {
        let firstRuns = !firstEnded.withLock { $0 }
        secondStartedWhileTheFirstRan.withLock { $0 = firstRuns }
      }
    }
    releaseFirst.signal()
    audited.wait()
    #expect(secondHeldBack.withLock { $0 }, "the second retain did not hold back for the waiting audit")
    #expect(secondStartedWhileTheFirstRan.withLock { $0 } == true, "the second retain waited for the first")
  }

  /// A census search in this process holds every live object while it reads, so a module it holds
  /// past a check's timeout is waited for while the search runs (at most 10 s more), not reported as
  /// retained from outside: README's `moduleIsReleased` failed so, beside `reloadingDoesNotLeak`'s
  /// searches, in 1 of 5 runs of the census tests under load. The retain lets the module go only
  /// once the check, past its timeout, has decided to wait on for it. The check runs on a thread of
  /// its own: while the retain runs, parallel tests' audits block their pool threads waiting for it,
  /// so a check that needed the cooperative pool to reach its decision could wait for them in turn.
  @Test func aCheckWaitsWhileAHeapWideRetainHoldsTheModule() async {
    let holder = ModuleHolder()
    let started = DispatchSemaphore(value: 0)
    let extended = DispatchSemaphore(value: 0)
    let heldPastTheTimeout = Mutex(false)
    let failure = await withCheckedContinuation { (done: CheckedContinuation<String?, Never>) in
      Thread.detachNewThread {
        let failure = ReleaseWaitObserver.$extendedForHeapWideRetains.withValue({ extended.signal() }) {
          checkNoLeaks(timeout: .milliseconds(200)) {
            let module = Retained()
            module.other = Retained()
            holder.object = module
            Thread.detachNewThread {
              HeapWideRetains.during {
                started.signal()
                // Bounds the wait only: a check that does not wait on fails below.
                let waited = extended.wait(timeout: .now() + 30) == .success
                heldPastTheTimeout.withLock { $0 = waited }
                holder.object = nil
              }
            }
            started.wait()
            return module
          }
        }
        done.resume(returning: failure.map { "\($0)" })
      }
    }
    #expect(failure == nil, "\(failure ?? "")")
    #expect(heldPastTheTimeout.withLock { $0 }, "the check did not wait on past its timeout for the retain")
  }

  /// An audit inside a heap-wide retain cannot be quiet (its own retain never ends before it):
  /// it says so at once instead of waiting for its deadline.
  @Test func anAuditInsideARetainIsIncompleteAtOnce() {
    let owner = Retained()
    let clock = ContinuousClock()
    let start = clock.now
    let audit = HeapWideRetains.during {
      ObjectGraph.auditOutsideReferences(
        of: owner, callerReferences: 0, options: GraphOptions(), knownWeakReferences: { _ in 0 },
        waitingForSearchesUntil: .now.advanced(by: .seconds(60)))
    }
    #expect(audit.incomplete != nil)
    #expect(clock.now - start < .seconds(30))
  }
}
