import Foundation
import RetainGraph
import RetainGraphTesting
import Synchronization
import Testing

@testable import RetainGraphCensus

extension CensusTests {
  /// Searches beside threads that keep allocating (issue 20.4): a search copies the census's records
  /// and reads the copy with the table unlocked, so allocating threads keep sweeping meanwhile.
  @Suite(.heapCensus(recordingBacktraces: true)) struct Busy {
    @Test func searchBesideAllocatingThreadsFindsTheHolder() throws {
      let registry = CensusBusyRegistry.shared
      registry.targets = (0..<100).map { _ in CensusWidget() }
      defer { registry.targets = [] }
      let peakBefore = try peakResidentKilobytes()
      let stop = Atomic<Bool>(false)
      // The threads stop by themselves after 2 minutes, so that a search that hangs fails this test
      // instead of filling the memory with the threads' records.
      let deadline = ContinuousClock.now + .seconds(120)
      let finished = DispatchGroup()
      for pool in 0..<3 {
        finished.enter()
        Thread {
          while !stop.load(ordering: .relaxed), ContinuousClock.now < deadline {
            var local: [CensusTransient] = []
            for _ in 0..<1_000 { local.append(CensusTransient()) }
            registry.lock.lock()
            registry.pools[pool] = local
            registry.lock.unlock()
          }
          registry.lock.lock()
          registry.pools[pool] = []
          registry.lock.unlock()
          finished.leave()
        }.start()
      }
      let allocatedBefore = HeapCensus.mark()
      let report = HeapCensus.retainers(of: registry.targets[50])
      let allocatedDuring = HeapCensus.mark().sequence - allocatedBefore.sequence
      stop.store(true, ordering: .relaxed)
      finished.wait()
      #expect(report.origin == .global("CensusBusyRegistry.shared"))
      #expect(
        report.path == [
          TraceStep(
            holder: "CensusBusyRegistry", label: "targets[50]", kind: .element, target: "CensusWidget")
        ], "\(report.path)")
      #expect(report.holderPath == "CensusBusyRegistry.shared.targets[50]")
      #expect(
        report.allocationBacktrace?.contains { $0.contains("searchBesideAllocatingThreadsFindsTheHolder()") }
          == true)
      // The threads really allocated while it searched; the process did not grow without bound.
      #expect(allocatedDuring > 1_000)
      let grown = try peakResidentKilobytes() - peakBefore
      #expect(grown < 1_000_000, "peak resident memory grew by \(grown) kB during the search")
    }

    /// While one query reads its copy of the records, another thread's query (or sweep) takes the
    /// table's lock and finishes: before, the lock was held for the whole read.
    @Test func aQueryDoesNotHoldTheTableWhileItReads() {
      let answered = DispatchSemaphore(value: 0)
      let waited = CensusTable.withLiveRecords { _ -> DispatchTimeoutResult in
        Thread {
          _ = HeapCensus.liveCount(of: CensusWidget.self)
          answered.signal()
        }.start()
        return answered.wait(timeout: .now() + 20)
      }
      if waited == .timedOut { answered.wait() }
      #expect(waited == .success)
    }
  }
}

extension CensusTests {
  @Suite(.heapCensus) struct Backpressure {
    /// While the table is locked (a query copying the records, another thread's sweep), threads that
    /// keep allocating cannot sweep: before, the table then grew without bound, each sweep taking
    /// longer and letting more pile up (five searches beside three allocating threads reached 3 GB).
    /// Now a thread that makes a chunk once the table is 4 times its size after the last sweep waits
    /// for the lock and sweeps.
    ///
    /// The test holds the lock until the table says the thread waits (or the thread is done, which
    /// fails): no sleep decides when to look. The chunks are counted against the bound or, when
    /// other tests' threads had already taken the table past it, against the chunks in use when
    /// the lock was taken (a thread waits at its next chunk then). Before, the bound alone was
    /// compared: the table left past it by parallel tests (their sweeps abandoned while forks
    /// waited for the lock) failed this test with the thread waiting as it should.
    @Test func allocatingThreadsWaitOnceTheTableFallsFarBehind() {
      let made = Atomic<Int>(0)
      let finished = Atomic<Bool>(false)
      let chunkSlots = 1 << 14
      // Each thread allocating meanwhile may make one chunk past the bound before it waits.
      let slack = 16
      let (live, before, bound, waited, finishedWhileLocked) = CensusTable.whileLocked {
        let (before, bound) = CensusTable.chunks
        // Enough dying objects to pass the bound by 32 chunks if nothing stopped the thread.
        let enough = (max(bound - before, 0) + slack + 32) * chunkSlots
        Thread {
          CensusTable.countWaitsOnThisThread()
          for _ in 0..<enough {
            withExtendedLifetime(CensusTransient()) {}
            made.add(1, ordering: .relaxed)
          }
          finished.store(true, ordering: .releasing)
        }.start()
        // Until the thread waits for the lock or is done; the deadline only bounds a failing run.
        let deadline = ContinuousClock.now + .seconds(120)
        while CensusTable.waitsGoingOn == 0, !finished.load(ordering: .acquiring),
          ContinuousClock.now < deadline
        {
          usleep(1_000)
        }
        let waited = CensusTable.waitsGoingOn > 0
        return (CensusTable.chunks.live, before, bound, waited, finished.load(ordering: .acquiring))
      }
      while !finished.load(ordering: .acquiring) { usleep(10_000) }
      #expect(waited, "the thread never waited for the lock (\(made.load(ordering: .relaxed)) objects made)")
      #expect(!finishedWhileLocked, "the thread made every object while the table was locked")
      #expect(
        live <= max(bound, before) + slack,
        "\(live) chunks in use while locked (bound \(bound), \(before) in use when locked)")
    }
  }
}

/// The process's peak resident set size (VmHWM), in kilobytes.
private func peakResidentKilobytes() throws -> Int {
  let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
  let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
  return try #require(
    Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? ""))
}
