/// Operations that hold a strong reference to every live object for a while (the census's retainer
/// search keeps the objects it reads alive). While one runs, every object's strong count is one
/// higher than its holders explain, so an audit of reference counts
/// (``ObjectGraph/auditOutsideReferences(of:callerReferences:options:knownWeakReferences:)``)
/// cannot conclude anything: it asks whether one is running before and after it counts.
package enum HeapWideRetains {
  /// Fork-safe: a census search also runs in a forked child (`retainers(isolating:timeout:)`), which
  /// must not inherit this lock held by another thread.
  private static let state = ForkSafeMutex<(running: Int, started: UInt64)>((0, 0))

  /// Runs `body`, an operation that retains objects across the heap.
  package static func during<Result>(_ body: () throws -> Result) rethrows -> Result {
    state.withLock {
      $0.running += 1
      $0.started &+= 1
    }
    defer { state.withLock { $0.running -= 1 } }
    return try body()
  }

  /// A token that changes whenever such an operation starts; nil while one runs.
  package static var quietToken: UInt64? {
    state.withLock { $0.running == 0 ? $0.started : nil }
  }
}
