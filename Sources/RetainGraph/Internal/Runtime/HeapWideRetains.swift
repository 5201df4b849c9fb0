internal import RetainGraphSupport

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// Operations that hold a strong reference to every live object for a while (the census's retainer
/// search keeps the objects it reads alive). While one runs, every object's strong count is one
/// higher than its holders explain, so an audit of reference counts
/// (``ObjectGraph/auditOutsideReferences(of:callerReferences:options:knownWeakReferences:waitingForSearchesUntil:)``)
/// cannot conclude anything while one runs.
///
/// The two exclude each other: an audit that may wait waits for the running operations to end, and
/// no new one starts while an audit waits or counts (audits are short: a walk of at most 10,000
/// objects), so an audit is never starved by searches that follow each other.
package enum HeapWideRetains {
  private struct State {
    /// Heap-wide operations running.
    var running = 0
    /// A token that changes whenever such an operation starts.
    var started: UInt64 = 0
    /// Audits that wait for the operations to end, or count.
    var audits = 0
    /// The process these counts belong to: a forked child inherits them from threads it does not
    /// have, and starts again from zero.
    var process = getpid()

    mutating func forThisProcess() {
      let current = getpid()
      if process != current { self = State() }
    }
  }

  /// Fork-safe: a census search also runs in a forked child (`retainers(isolating:timeout:)`), which
  /// must not inherit this lock held by another thread.
  private static let state = ForkSafeMutex(State())

  /// Whether the current task (or thread) already runs inside ``during(_:)``: a nested operation
  /// (a growth check's holder search, a sweep's searches) must not wait for audits that in turn
  /// wait for the outer one to end.
  @TaskLocal private static var isInside = false

  /// Whether the current task (or thread) runs inside ``during(_:)``.
  package static var isInsideRetain: Bool { isInside }

  /// Starts an operation when no audit waits or counts; false when one does.
  private static func tryStart() -> Bool {
    state.withLock { state -> Bool in
      state.forThisProcess()
      guard state.audits == 0 else { return false }
      state.running += 1
      state.started &+= 1
      return true
    }
  }

  private static func end() { state.withLock { $0.running -= 1 } }

  /// Registers an audit: always when `waits`, else only when no operation runs.
  private static func registerAudit(waits: Bool) -> Bool {
    state.withLock { state -> Bool in
      state.forThisProcess()
      guard waits || state.running == 0 else { return false }
      state.audits += 1
      return true
    }
  }

  private static func unregisterAudit() { state.withLock { $0.audits -= 1 } }

  private static var isRunning: Bool { state.withLock { $0.running > 0 } }

  /// Runs `body`, an operation that retains objects across the heap, once no audit waits or counts.
  /// Nested calls run at once.
  package static func during<Result>(_ body: () throws -> Result) rethrows -> Result {
    if isInside { return try body() }
    while !tryStart() { usleep(1_000) }
    defer { end() }
    return try $isInside.withValue(true) { try body() }
  }

  /// The async twin of ``during(_:)``: suspends (never blocks its thread) while an audit waits or
  /// counts, then holds the operation open across `body`'s suspensions (a rootless growth check
  /// holds the newest instance of each type it names through its holder searches).
  package static func during<Result>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
  ) async rethrows -> Result {
    if isInside { return try await body() }
    while !tryStart() { try? await Task.sleep(for: .milliseconds(1)) }
    defer { end() }
    return try await $isInside.withValue(true) { try await body() }
  }

  /// Runs `body`, an audit of reference counts, with no heap-wide operation running: it waits for
  /// the running ones to end until `deadline` (and keeps new ones from starting meanwhile). Calls
  /// `body` with false when one still runs at the deadline (or at once without a deadline).
  package static func excluded<Result>(
    waitingUntil deadline: ContinuousClock.Instant?, _ body: (_ quiet: Bool) throws -> Result
  ) rethrows -> Result {
    // Inside an operation, its own retains are never gone: no wait can make the counts quiet.
    guard !isInside, registerAudit(waits: deadline != nil) else { return try body(false) }
    defer { unregisterAudit() }
    while isRunning {
      guard let deadline, ContinuousClock.now < deadline else { return try body(false) }
      usleep(1_000)
    }
    return try body(true)
  }

  /// The async twin of ``excluded(waitingUntil:_:)``: suspends (never blocks its thread) while it
  /// waits for the running operations to end; `body` then runs with none running and none starting.
  package static func excluded<Result>(
    waitingUntil deadline: ContinuousClock.Instant, isolation: isolated (any Actor)? = #isolation,
    _ body: (_ quiet: Bool) throws -> Result
  ) async rethrows -> Result {
    guard !isInside else { return try body(false) }
    _ = registerAudit(waits: true)
    defer { unregisterAudit() }
    while isRunning {
      guard ContinuousClock.now < deadline else { return try body(false) }
      try? await Task.sleep(for: .milliseconds(1))
    }
    return try body(true)
  }

  /// A token that changes whenever such an operation starts; nil while one runs.
  package static var quietToken: UInt64? {
    state.withLock {
      $0.forThisProcess()
      return $0.running == 0 ? $0.started : nil
    }
  }
}
