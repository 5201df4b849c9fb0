import Foundation
import RetainGraph
import RetainGraphCensus
import Synchronization

// `pool async` / `pool blocking`: whether the cooperative pool keeps serving while searches run
// (ForkedChildLifetimeTests and AsyncSearchTests run this in a process of its own, where no other
// test uses the pool). Four times as many searches as the machine has processors, and one more, run at once: forked
// snapshots and census holder searches whose children sleep for a second first (a test fault). A
// task on the pool counts its iterations (10 ms sleeps) meanwhile. `async` uses the async forms,
// `blocking` calls the synchronous ones from the same tasks. Prints one line:
// `ticks=N milliseconds=M cycles=C holder=PATH released=BOOL`.

final class PoolNode: @unchecked Sendable {
  var next: PoolNode?
}

final class PoolRegistry: @unchecked Sendable {
  static let shared = PoolRegistry()
  var items: [PoolNode] = []
}

func runPoolProgress(async useAsync: Bool) async {
  HeapCensus.start()
  defer { HeapCensus.stop() }
  // A two-node cycle for the snapshots; a registry entry for the holder searches.
  var head: PoolNode? = PoolNode()
  head?.next = PoolNode()
  head?.next?.next = head
  PoolRegistry.shared.items = [PoolNode()]
  let started = ContinuousClock.now
  let (during, results) = await search(head ?? PoolNode(), PoolRegistry.shared.items[0], async: useAsync)
  let elapsed = ContinuousClock.now - started
  // The answers, checked against the runtime: the cycle frees its nodes once broken.
  weak let probe = head
  head?.next?.next = nil
  head = nil
  PoolRegistry.shared.items = []
  let cycles = Set(results.compactMap(\.cycles)).sorted().map(String.init).joined(separator: ",")
  let holders = Set(results.compactMap(\.holder)).sorted().joined(separator: ",")
  let milliseconds =
    elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
  print(
    "ticks=\(during) milliseconds=\(milliseconds) cycles=\(cycles) holder=\(holders) released=\(probe == nil)"
  )
}

/// Runs the searches beside the ticker: the ticks counted while they ran, and their answers.
func search(_ first: PoolNode, _ searched: PoolNode, async useAsync: Bool) async -> (
  ticks: Int, results: [(cycles: Int?, holder: String?)]
) {
  let width = 4 * ProcessInfo.processInfo.activeProcessorCount + 1
  let ticks = Atomic<Int>(0)
  let stop = Atomic<Bool>(false)
  let ticker = Task {
    while !stop.load(ordering: .relaxed) {
      ticks.add(1, ordering: .relaxed)
      try? await Task.sleep(for: .milliseconds(10))
    }
  }
  // Let the ticker start, then count only while the searches run.
  try? await Task.sleep(for: .milliseconds(100))
  let before = ticks.load(ordering: .relaxed)
  let results = await withTaskGroup(of: (cycles: Int?, holder: String?).self) { group in
    for index in 0..<width {
      group.addTask {
        if index % 2 == 0 {
          let graph =
            useAsync
            ? try? await ObjectGraph.snapshot(
              of: first, timeout: .seconds(60), childFault: .hang(.seconds(1)), trace: nil)
            : try? ObjectGraph(
              snapshotting: first, timeout: .seconds(60), childFault: .hang(.seconds(1)), trace: nil)
          return (graph?.cycles.count, nil)
        }
        let report =
          useAsync
          ? try? await HeapCensus.searchRetainers(
            isolating: searched, timeout: .seconds(60), childFault: .hang(.seconds(1)))
          : try? HeapCensus.retainers(
            isolating: searched, timeout: .seconds(60), childFault: .hang(.seconds(1)))
        return (nil, report?.holderPath)
      }
    }
    var results: [(cycles: Int?, holder: String?)] = []
    for await result in group { results.append(result) }
    return results
  }
  let during = ticks.load(ordering: .relaxed) - before
  stop.store(true, ordering: .relaxed)
  _ = await ticker.value
  return (during, results)
}
