import Foundation
import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Synchronization
import Testing

@testable import RetainGraphCensus

/// Two objects that hold each other (or, fixed, the second holds the first weakly); one class per
/// case below, so that each case's cycle is told apart by its types.
class ScopedPairBase: @unchecked Sendable {
  var other: ScopedPairBase?
  weak var weakOther: ScopedPairBase?

  required init() {}

  /// A pair of `Self`, leaked (a cycle) or fixed (the back reference weak); a weak probe on it.
  static func make(leaking: Bool) -> WeakBox {
    let first = Self()
    let second = Self()
    first.other = second
    if leaking { second.other = first } else { second.weakOther = first }
    return WeakBox(first)
  }
}

final class ScopedPairInTest: ScopedPairBase, @unchecked Sendable {}
final class ScopedPairFixed: ScopedPairBase, @unchecked Sendable {}
final class ScopedPairInTask: ScopedPairBase, @unchecked Sendable {}
final class ScopedPairDetached: ScopedPairBase, @unchecked Sendable {}
final class ScopedPairOtherTest: ScopedPairBase, @unchecked Sendable {}
final class ScopedPairTraitCase: ScopedPairBase, @unchecked Sendable {}

final class Boxes: Sendable {
  let values = Mutex<[String: WeakBox]>([:])
}

final class WeakBox: Sendable {
  private weak let probe: ScopedPairBase?

  init(_ object: ScopedPairBase) { probe = object }

  var object: ScopedPairBase? { probe }

  /// Breaks the pair's cycle (the test's cleanup).
  func breakCycle() {
    probe?.other?.other = nil
    probe?.other = nil
  }
}

extension CensusTests {
  /// Leak scopes (issue 31.2): each scope's report holds the cycles made in it and no other, when
  /// scopes run in parallel; the `.noLeakedCycles` trait fails a test with its cycles' traces.
  @Suite struct LeakScopes {
    /// Three scopes at once: one leaks a cycle, one makes the fixed twin, one leaks a cycle in a
    /// `Task { }` it makes (the scope's) and another in `Task.detached` (no scope's).
    @Test func parallelScopesReportOnlyTheCyclesMadeInThem() async throws {
      let mark = HeapCensus.mark()
      let leaking = LeakScope()
      let fixed = LeakScope()
      let tasking = LeakScope()
      let boxes = Boxes()
      await withTaskGroup(of: Void.self) { group in
        group.addTask {
          await leaking.run {
            await Task.yield()
            let box = ScopedPairInTest.make(leaking: true)
            boxes.values.withLock { $0["inTest"] = box }
          }
        }
        group.addTask {
          await fixed.run {
            await Task.yield()
            let box = ScopedPairFixed.make(leaking: false)
            boxes.values.withLock { $0["fixed"] = box }
          }
        }
        group.addTask {
          await tasking.run {
            let inTask = await Task { ScopedPairInTask.make(leaking: true) }.value
            let detached = await Task.detached { ScopedPairDetached.make(leaking: true) }.value
            boxes.values.withLock {
              $0["inTask"] = inTask
              $0["detached"] = detached
            }
          }
        }
      }
      let made = boxes.values.withLock { $0 }
      defer { for box in made.values { box.breakCycle() } }
      // The runtime's word: the leaked pairs live on, the fixed one is gone.
      for name in ["inTest", "inTask", "detached"] { #expect(made[name]?.object != nil, "\(name) is kept") }
      #expect(made["fixed"]?.object == nil, "the fixed twin is freed")

      let ofLeaking = try HeapCensus.leaks(in: leaking)
      let ofFixed = try HeapCensus.leaks(in: fixed)
      let ofTasking = try HeapCensus.leaks(in: tasking)
      let all = try HeapCensus.leaks(since: mark)
      #expect(Self.types(ofLeaking) == [["ScopedPairInTest"]], "\(ofLeaking)")
      #expect(ofFixed.isEmpty, "\(ofFixed)")
      #expect(Self.types(ofTasking) == [["ScopedPairInTask"]], "\(ofTasking)")
      // The independent count, with no scope: the detached cycle is garbage too, only no scope's.
      #expect(
        Self.types(all).filter { $0.first?.hasPrefix("ScopedPair") == true }
          == [["ScopedPairDetached"], ["ScopedPairInTask"], ["ScopedPairInTest"]], "\(all)")
    }

    /// A scope's number is what the census recorded for the objects made in it, read back from
    /// the records (not only through the report).
    @Test func theCensusRecordsEachObjectsScope() async throws {
      let scope = LeakScope()
      let other = LeakScope()
      let (kept, keptElsewhere) = scope.run {
        let kept = ScopedPairFixed()
        let keptElsewhere = other.run { ScopedPairFixed() }
        return (kept, keptElsewhere)
      }
      let outside = HeapCensus.run { ScopedPairFixed() }
      #expect(LeakScope.isAvailable)
      let scopes = HeapCensus.recordedScopes(of: [kept, keptElsewhere, outside])
      #expect(scopes == [scope.id, other.id, 0])
      #expect(other.id > scope.id, "numbered in order")
    }

    /// A scope run inside another is its parent's too: the inner scope's cycle is reported for
    /// both, not for a scope run beside them.
    @Test func aCycleMadeInANestedScopeIsItsParentsToo() throws {
      let outer = LeakScope()
      let inner = LeakScope()
      let beside = LeakScope()
      let box = outer.run { inner.run { ScopedPairInTest.make(leaking: true) } }
      beside.run { _ = ScopedPairFixed.make(leaking: false) }
      defer { box.breakCycle() }
      #expect(box.object != nil, "the runtime keeps the pair")
      #expect(Self.types(try HeapCensus.leaks(in: inner)) == [["ScopedPairInTest"]])
      #expect(Self.types(try HeapCensus.leaks(in: outer)) == [["ScopedPairInTest"]])
      #expect(try HeapCensus.leaks(in: beside).isEmpty)
    }

    /// The trait, run as Swift Testing runs it, records one issue for the test's cycle, whose text
    /// is the cycle's trace and fix (compared whole); a test that leaves none records nothing.
    @Test func theTraitFailsATestThatLeavesACycleWithItsTrace() async throws {
      let trait = LeakedCyclesTrait()
      let test = try #require(Test.current)
      let made = Mutex<WeakBox?>(nil)
      let recorded = Mutex<[String]>([])
      try await withKnownIssue {
        try await trait.provideScope(for: test, testCase: Test.Case.current) {
          made.withLock { $0 = ScopedPairTraitCase.make(leaking: true) }
        }
      } matching: { issue in
        recorded.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
        return true
      }
      made.withLock { $0?.breakCycle() }
      let messages = recorded.withLock { $0 }
      #expect(messages.count == 1)
      assertGolden(messages.first ?? "", named: "trait-one-leaked-cycle")

      // The fixed twin passes: no issue (an unexpected one would fail this test).
      try await trait.provideScope(for: test, testCase: Test.Case.current) {
        _ = ScopedPairTraitCase.make(leaking: false)
      }
    }

    /// Another scope's cycle, made while the trait's test runs (here in a detached task), is not
    /// the test's: the trait records nothing, though the count finds the cycle.
    @Test func theTraitDoesNotBlameATestForAnotherScopesCycle() async throws {
      let trait = LeakedCyclesTrait()
      let test = try #require(Test.current)
      let other = LeakScope()
      let made = Mutex<WeakBox?>(nil)
      // An issue recorded here would fail this test.
      try await trait.provideScope(for: test, testCase: Test.Case.current) {
        let box = await Task.detached { other.run { ScopedPairOtherTest.make(leaking: true) } }.value
        made.withLock { $0 = box }
        _ = ScopedPairFixed.make(leaking: false)
      }
      defer { made.withLock { $0?.breakCycle() } }
      #expect(made.withLock { $0?.object } != nil, "the other scope's pair is kept")
      let report = try HeapCensus.leaks(in: other)
      #expect(Self.types(report) == [["ScopedPairOtherTest"]], "\(report)")
    }

    /// The trait in use: a test that makes objects and frees them passes.
    @Test(.noLeakedCycles) func aTestThatLeavesNoCyclePassesUnderTheTrait() {
      let box = ScopedPairFixed.make(leaking: false)
      #expect(box.object == nil)
    }

    /// `assertNoLeakedCycles` in its async form, in Swift Testing: one issue, at the caller's line,
    /// with the cycle its block left (compared whole).
    @Test func theAsyncAssertionFailsWithTheCycleItsBlockLeft() async {
      let made = Mutex<WeakBox?>(nil)
      let recorded = Mutex<[String]>([])
      await HeapCensus.run {
        await withKnownIssue {
          await assertNoLeakedCycles {
            await Task.yield()
            made.withLock { $0 = ScopedPairTraitCase.make(leaking: true) }
          }
        } matching: { issue in
          recorded.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
          return issue.sourceLocation?.fileName == "LeakScopeTests.swift"
        }
      }
      made.withLock { $0?.breakCycle() }
      #expect(made.withLock { $0?.object } == nil, "freed once broken")
      let messages = recorded.withLock { $0 }
      #expect(messages.count == 1)
      assertGolden(messages.first ?? "", named: "async-assertion-one-leaked-cycle")
    }

    /// `checkNoLeakedCycles` returns, as a value, the failure the assertion would report (its text
    /// the assertion's, naming the check), nil for a block that leaves no cycle; sync and async.
    @Test func theCheckReturnsTheAssertionsFailureAsAValue() async throws {
      let made = Mutex<[WeakBox]>([])
      let (leaking, clean) = HeapCensus.run {
        (
          checkNoLeakedCycles { made.withLock { $0.append(ScopedPairTraitCase.make(leaking: true)) } },
          checkNoLeakedCycles { made.withLock { $0.append(ScopedPairTraitCase.make(leaking: false)) } }
        )
      }
      let asyncLeaking = await HeapCensus.run {
        await checkNoLeakedCycles {
          await Task.yield()
          made.withLock { $0.append(ScopedPairTraitCase.make(leaking: true)) }
        }
      }
      made.withLock { boxes in boxes.forEach { $0.breakCycle() } }
      #expect(made.withLock { $0.allSatisfy { $0.object == nil } }, "freed once broken")
      #expect(clean == nil)
      for failure in [leaking, asyncLeaking] {
        let text = try #require(failure).description
        #expect(
          text.hasPrefix("The code checked by checkNoLeakedCycles left 1 leaked cycle behind"), "\(text)")
        #expect(text.contains("leaked cycle 1 of 1: 2 objects (ScopedPairTraitCase)"), "\(text)")
        #expect(failure?.graphs.isEmpty == true)
      }
      // Without a census: the failure says how to start one, and the block still runs.
      var ran = false
      let missing = checkNoLeakedCycles { ran = true }
      #expect(ran)
      #expect(
        missing?.description.hasPrefix("checkNoLeakedCycles counts every live object in the process") == true)
    }

    /// Without a census running for the test, the assertion does not pass in silence: it fails with
    /// how to start one, and still runs its block.
    @Test func theAssertionWithoutACensusSaysHowToStartOne() {
      let recorded = Mutex<[String]>([])
      var ran = false
      withKnownIssue {
        assertNoLeakedCycles { ran = true }
      } matching: { issue in
        recorded.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
        return true
      }
      #expect(ran)
      #expect(
        recorded.withLock { $0 } == [
          "assertNoLeakedCycles counts every live object in the process, which needs the heap census: add "
            + "`import RetainGraphCensus` to the test target and run the test under the census with the "
            + "`.heapCensus` trait, `HeapCensus.run { … }`, or `HeapCensus.start()` before the check."
        ])
    }

    static func types(_ report: LeakReport) -> [[String]] {
      report.leaks.map(\.cycleTypes).sorted { $0.joined() < $1.joined() }
    }
  }
}
