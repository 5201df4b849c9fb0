import Foundation

/// The object allocated by the allocation benchmark (shared by `retain-graph-bench`, which does not
/// link the heap census, and `retain-graph-census-bench`, which does).
final class AllocationProbe {
  var value = 0
}

/// Nanoseconds per allocate-and-free of a small object, the best of five runs of `count`.
@inline(never)
public func nanosecondsPerAllocation(count: Int) -> Double {
  var best = Double.infinity
  for _ in 0..<5 {
    let start = DispatchTime.now().uptimeNanoseconds
    var sum = 0
    for index in 0..<count {
      let probe = AllocationProbe()
      probe.value = index
      sum &+= blackHole(probe)
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
    precondition(sum != 42)
    best = min(best, elapsed / Double(count))
  }
  return best
}

/// Where each probe escapes to, so that it is allocated on the heap (not on the stack) and freed
/// when the next one replaces it.
nonisolated(unsafe) var sink: AllocationProbe?

/// Keeps the optimiser from removing the allocation or promoting it to the stack.
@inline(never)
func blackHole(_ probe: AllocationProbe) -> Int {
  sink = probe
  return probe.value
}
