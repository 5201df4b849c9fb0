import Foundation
import RetainGraph
import Testing

@testable import RetainGraphCensus

// Planted for the stop's sweep (issue 39.4).
final class StopSweepOld {
  let id: Int
  init(id: Int) { self.id = id }
}
final class StopSweepKept {}
final class StopSweepTemporary {}

/// A weak probe: whether the runtime still has the object.
private final class StopSweepProbe {
  weak var object: AnyObject?
  init(_ object: AnyObject) { self.object = object }
}

extension CensusTests {
  /// The last stop sweeps what its run wrote and a slice of older records, not the whole table
  /// (issue 39.4): the records it leaves, read without sweeping, and the counts a query gives,
  /// against what the test itself kept and the runtime's weak probes.
  @Suite struct StopSweep {
    /// How many records of `type` the table holds from `mark` on, dead or alive, as the last sweep
    /// left them.
    static func recorded<T: AnyObject>(_ type: T.Type, since mark: HeapCensus.Mark) -> Int {
      let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
      return CensusTable.recordedMetadataWithoutSweeping(since: mark.sequence).count { $0 == metadata }
    }

    @Test func aStopAfterASmallRunForgetsItsDeadAndCountsStayExact() {
      #expect(!HeapCensus.isRunning)
      let start = HeapCensus.mark()
      // 40,000 old objects over three chunks of the table, recorded by an earlier run.
      var old = HeapCensus.run { (0..<40_000).map { StopSweepOld(id: $0) } }
      let freed = old.prefix(100).map { StopSweepProbe($0) }
      let (kept, runMark): ([StopSweepKept], HeapCensus.Mark) = HeapCensus.run {
        let mark = HeapCensus.mark()
        // Frees of old objects, made in the run.
        old.removeFirst(100)
        let kept = (0..<50).map { _ in StopSweepKept() }
        // Allocated and freed in the run, last: this thread's batch still holds them at the stop.
        for _ in 0..<30 { withExtendedLifetime(StopSweepTemporary()) {} }
        return (kept, mark)
      }
      #expect(!HeapCensus.isRunning)
      // What the stop left, before any query sweeps: none of the run's dead, all of its living.
      #expect(Self.recorded(StopSweepTemporary.self, since: runMark) == 0)
      #expect(Self.recorded(StopSweepKept.self, since: runMark) == kept.count)
      // Counts per type, against the test's own count and the runtime.
      #expect(freed.allSatisfy { $0.object == nil })
      #expect(HeapCensus.liveCount(of: StopSweepOld.self, since: start) == old.count)
      #expect(old.count == 39_900)
      #expect(HeapCensus.liveCount(of: StopSweepKept.self, since: start) == kept.count)
      #expect(HeapCensus.liveCount(of: StopSweepTemporary.self, since: start) == 0)
      // After that query's whole sweep, no record of a freed old object is left either.
      #expect(Self.recorded(StopSweepOld.self, since: start) == old.count)
      withExtendedLifetime((old, kept)) {}
    }

    /// Old objects that die while the census runs are forgotten by later stops alone, a slice each,
    /// in turn: no query is needed for their memory to go back.
    @Test func stopsAloneForgetOldRecordsThatDiedInTurn() {
      #expect(!HeapCensus.isRunning)
      let start = HeapCensus.mark()
      var old = HeapCensus.run { (0..<20_000).map { StopSweepOld(id: $0) } }
      let probes = old.map { StopSweepProbe($0) }
      // A run that writes little frees them all; later empty runs sweep older slices.
      HeapCensus.run { old.removeAll() }
      #expect(probes.allSatisfy { $0.object == nil })
      // Every stop sweeps at least 1,024 older slots: going round the table once takes at most this
      // many. In a long-lived process that is many stops, and reading the table is costly (it
      // holds every record of the run): the records are read after 1, 2, 4, 8… stops.
      let bound = Int(HeapCensus.mark().sequence / 1_024) + 2
      var stops = 1
      var nextRead = 1
      while stops < bound {
        if stops == nextRead {
          if Self.recorded(StopSweepOld.self, since: start) == 0 { break }
          nextRead *= 2
        }
        HeapCensus.run {}
        stops += 1
      }
      #expect(Self.recorded(StopSweepOld.self, since: start) == 0, "after \(stops) stops")
      #expect(HeapCensus.liveCount(of: StopSweepOld.self, since: start) == 0)
    }
  }
}
