import CRetainGraphCensus
import Foundation
import RetainGraph
import RetainGraphCensus

// `slow-sweep` (ForkDuringSweepTests): a snapshot forked while another thread's census query sweeps a
// long table. The census table gets 100 chunks that each keep one live record (so every sweep reads
// them all), a thread sweeps them with a 50 ms pause per chunk (5 s with the lock held), and once it
// has started, this thread snapshots a small graph. It prints whether the sweep was still running
// when the snapshot returned: the fork's handler must get the lock between two chunks, not after
// the whole sweep.

final class SweepFiller {}
final class SweepRoot {
  var leaves = [SweepFiller(), SweepFiller()]
}

func runSlowSweep() -> Never {
  HeapCensus.start()
  var kept: [SweepFiller] = []
  kept.reserveCapacity(128)
  for index in 0..<(100 * 16_384) {
    let filler = SweepFiller()
    if index % 16_384 == 0 { kept.append(filler) }
  }
  let done = DispatchSemaphore(value: 0)
  let sweeper = Thread {
    rgc_test_delay_sweeps_on_this_thread(50_000)
    _ = HeapCensus.liveCount(of: SweepFiller.self)
    rgc_test_delay_sweeps_on_this_thread(0)
    done.signal()
  }
  sweeper.start()
  let waitUntil = ContinuousClock.now + .seconds(30)
  while rgc_test_delayed_sweeps_running() == 0 && ContinuousClock.now < waitUntil { usleep(1_000) }
  guard rgc_test_delayed_sweeps_running() == 1 else {
    print("the slow sweep did not start")
    exit(1)
  }
  let root = SweepRoot()
  do {
    let graph = try ObjectGraph(snapshotting: root, timeout: .seconds(60))
    let stillSweeping = rgc_test_delayed_sweeps_running() == 1
    print("snapshot of \(graph.nodeCount) nodes during the sweep: \(stillSweeping)")
  } catch {
    print("snapshot failed: \(error)")
  }
  done.wait()
  withExtendedLifetime(kept) {}
  exit(0)
}
