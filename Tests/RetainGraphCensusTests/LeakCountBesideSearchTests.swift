import Dispatch
import Foundation
import RetainGraphCensus
import RetainGraphProcess
import RetainGraphTesting
import Testing

extension CensusTests {
  /// The forked leak count and the heap-wide operations of this process (a retainer search holds
  /// every live object while it reads).
  @Suite(.heapCensus) struct LeakCountBesideASearch {
    /// A count forked while a search held the objects counted the search's holds as holders from
    /// outside, and the leaks they held went unreported (a package's own loop was missed in one full
    /// run of the suite, beside another test's search). The count waits for the search to end, and
    /// finds the leak.
    @Test func aCountWaitsForASearchThatHoldsEveryObject() throws {
      let mark = HeapCensus.mark()
      let box = ScopedPairTraitCase.make(leaking: true)
      let holding = DispatchSemaphore(value: 0)
      let countWaits = DispatchSemaphore(value: 0)
      let ended = DispatchSemaphore(value: 0)
      Thread.detachNewThread {
        HeapWideRetains.during {
          // A strong hold, as the search's array of objects is.
          let held = box.object
          holding.signal()
          // Bounds the wait only: a count that does not wait finds nothing, below.
          _ = countWaits.wait(timeout: .now() + 30)
          withExtendedLifetime(held) {}
        }
        ended.signal()
      }
      holding.wait()
      let report = try HeapWideRetains.$observer.withValue(.init(auditWaits: { countWaits.signal() })) {
        try HeapCensus.leaks(since: mark, timeout: .seconds(60))
      }
      ended.wait()
      box.breakCycle()
      #expect(box.object == nil, "freed once broken")
      #expect(report.leaks.contains { $0.cycleTypes == ["ScopedPairTraitCase"] }, "\(report)")
    }
  }
}
