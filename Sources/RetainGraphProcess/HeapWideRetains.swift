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
/// The two exclude each other: no operation starts while an audit counts (audits are short: a walk
/// of at most 10,000 objects, with no suspension), and an audit counts only when none runs. An
/// audit that may wait waits for the running operations to end; a new operation holds back for an
/// audit that waits, but only for ``fairnessWait`` (so back-to-back searches do not starve an
/// audit, and an audit whose task cannot run — the cooperative pool's threads all blocked in such
/// waits — does not block every search: that starved an async check for minutes under load).
package enum HeapWideRetains {
  private struct State {
    /// Heap-wide operations running.
    var running = 0
    /// A token that changes whenever such an operation starts.
    var started: UInt64 = 0
    /// Audits that wait for the operations to end.
    var waiting = 0
    /// Audits that count (no operation runs meanwhile).
    var counting = 0
    /// The process these counts belong to: a forked child inherits them from threads it does not
    /// have, and starts again from zero.
    var process = getpid()

    mutating func forThisProcess() {
      let current = getpid()
      if process != current { self = State() }
    }
  }

  /// How long a new operation holds back for audits that wait (never for one that counts).
  static let fairnessWait: Duration = .milliseconds(200)

  /// Fork-safe: a census search also runs in a forked child (`retainers(isolating:timeout:)`), which
  /// must not inherit this lock held by another thread.
  private static let state = ForkSafeMutex(State())

  /// Whether the current task (or thread) already runs inside ``during(_:)``: a nested operation
  /// (a growth check's holder search, a sweep's searches) must not wait for audits that in turn
  /// wait for the outer one to end.
  @TaskLocal private static var isInside = false

  /// Whether the current task (or thread) runs inside ``during(_:)``.
  package static var isInsideRetain: Bool { isInside }

  /// What a test observes of the calls made in its own task (or thread): the moments it orders its
  /// threads by, instead of sleeps.
  package struct Observer: Sendable {
    /// An operation (``during(_:)``) could not start at once: an audit counts, or one waits.
    package var heldBack: @Sendable () -> Void
    /// An audit (``excluded(waitingUntil:_:)``) found operations running and waits for them.
    package var auditWaits: @Sendable () -> Void

    package init(
      heldBack: @escaping @Sendable () -> Void = {}, auditWaits: @escaping @Sendable () -> Void = {}
    ) {
      self.heldBack = heldBack
      self.auditWaits = auditWaits
    }
  }

  /// The observer of the current task (or thread); nil outside tests.
  @TaskLocal package static var observer: Observer?

  /// Starts an operation when no audit counts, and no audit waits unless `since` is past the
  /// ``fairnessWait``; false otherwise.
  private static func tryStart(since: ContinuousClock.Instant) -> Bool {
    let holdsBack = ContinuousClock.now - since < fairnessWait
    return state.withLock { state -> Bool in
      state.forThisProcess()
      guard state.counting == 0, state.waiting == 0 || !holdsBack else { return false }
      state.running += 1
      state.started &+= 1
      return true
    }
  }

  private static func end() { state.withLock { $0.running -= 1 } }

  /// Registers a waiting audit.
  private static func registerAudit() {
    state.withLock {
      $0.forThisProcess()
      $0.waiting += 1
    }
  }

  /// Turns a waiting audit into a counting one when no operation runs (one atomic step, so no
  /// operation starts in between); false while one runs.
  private static func tryCount() -> Bool {
    state.withLock { state -> Bool in
      guard state.running == 0 else { return false }
      state.waiting -= 1
      state.counting += 1
      return true
    }
  }

  private static func endWaiting() { state.withLock { $0.waiting -= 1 } }
  private static func endCounting() { state.withLock { $0.counting -= 1 } }

  /// Counts now when no operation runs (without registering a wait).
  private static func tryCountAtOnce() -> Bool {
    state.withLock { state -> Bool in
      state.forThisProcess()
      guard state.running == 0 else { return false }
      state.counting += 1
      return true
    }
  }

  /// Runs `body`, an operation that retains objects across the heap, once no audit counts (and
  /// after a short hold-back for audits that wait). Nested calls run at once.
  package static func during<Result>(_ body: () throws -> Result) rethrows -> Result {
    if isInside { return try body() }
    let since = ContinuousClock.now
    if !tryStart(since: since) {
      observer?.heldBack()
      while !tryStart(since: since) { usleep(1_000) }
    }
    defer { end() }
    return try $isInside.withValue(true) { try body() }
  }

  /// The async twin of ``during(_:)``: suspends (never blocks its thread) while it holds back, then
  /// holds the operation open across `body`'s suspensions (a rootless growth check holds the newest
  /// instance of each type it names through its holder searches).
  package static func during<Result>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
  ) async rethrows -> Result {
    if isInside { return try await body() }
    let since = ContinuousClock.now
    if !tryStart(since: since) {
      observer?.heldBack()
      while !tryStart(since: since) { try? await Task.sleep(for: .milliseconds(1)) }
    }
    defer { end() }
    return try await $isInside.withValue(true) { try await body() }
  }

  /// Runs `body`, an audit of reference counts, with no heap-wide operation running: it waits for
  /// the running ones to end until `deadline` (new ones hold back meanwhile, for a while). Calls
  /// `body` with false when one still runs at the deadline (or at once without a deadline).
  package static func excluded<Result>(
    waitingUntil deadline: ContinuousClock.Instant?, _ body: (_ quiet: Bool) throws -> Result
  ) rethrows -> Result {
    // Inside an operation, its own retains are never gone: no wait can make the counts quiet.
    guard !isInside else { return try body(false) }
    guard let deadline else {
      guard tryCountAtOnce() else { return try body(false) }
      defer { endCounting() }
      return try body(true)
    }
    registerAudit()
    if !tryCount() {
      observer?.auditWaits()
      while !tryCount() {
        guard ContinuousClock.now < deadline else {
          endWaiting()
          return try body(false)
        }
        usleep(1_000)
      }
    }
    defer { endCounting() }
    return try body(true)
  }

  /// The async twin of ``excluded(waitingUntil:_:)``: suspends (never blocks its thread) while it
  /// waits for the running operations to end; `body` then runs with none running and none starting.
  package static func excluded<Result>(
    waitingUntil deadline: ContinuousClock.Instant, isolation: isolated (any Actor)? = #isolation,
    _ body: (_ quiet: Bool) throws -> Result
  ) async rethrows -> Result {
    guard !isInside else { return try body(false) }
    registerAudit()
    if !tryCount() {
      observer?.auditWaits()
      while !tryCount() {
        guard ContinuousClock.now < deadline else {
          endWaiting()
          return try body(false)
        }
        try? await Task.sleep(for: .milliseconds(1))
      }
    }
    defer { endCounting() }
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
