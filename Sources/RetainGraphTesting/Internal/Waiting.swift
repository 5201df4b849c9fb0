internal import Dispatch
internal import Foundation
internal import RetainGraph
internal import RetainGraphProcess
internal import RetainGraphRuntime
internal import Synchronization

/// Waits until `isDone()` is true or `timeout` has passed, and tells which happened.
///
/// Checks at once, then at growing intervals (1 ms doubling to 50 ms), so a check that succeeds
/// returns promptly instead of sleeping a fixed time. On the main thread the main run loop runs in
/// between, so that work queued there (a release on `DispatchQueue.main`) can happen.
/// - Returns: true when `isDone()` became true in time.
func waitUntil(timeout: Duration, _ isDone: () -> Bool) -> Bool {
  let clock = ContinuousClock()
  let deadline = clock.now.advanced(by: timeout)
  var pause = Duration.milliseconds(1)
  while true {
    if isDone() { return true }
    let now = clock.now
    guard now < deadline else { return false }
    let step = min(pause, now.duration(to: deadline))
    let seconds = Double(step.components.seconds) + Double(step.components.attoseconds) * 1e-18
    if Thread.isMainThread {
      _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: seconds))
    }
    let left = clock.now.duration(to: min(now.advanced(by: step), deadline))
    if left > .zero {
      Thread.sleep(
        forTimeInterval: Double(left.components.seconds) + Double(left.components.attoseconds) * 1e-18)
    }
    pause = min(pause * 2, .milliseconds(50))
  }
}

/// The async twin of ``waitUntil(timeout:_:)``: suspends between checks instead of blocking, so
/// other tasks (one that releases the object) can run. Stops early when the task is cancelled.
func waitUntil(
  timeout: Duration, isolation: isolated (any Actor)? = #isolation, _ isDone: () -> Bool
) async -> Bool {
  let clock = ContinuousClock()
  let deadline = clock.now.advanced(by: timeout)
  var pause = Duration.milliseconds(1)
  while true {
    if isDone() { return true }
    await Task.yield()
    if isDone() { return true }
    let now = clock.now
    guard now < deadline, !Task.isCancelled else { return false }
    try? await Task.sleep(for: min(pause, now.duration(to: deadline)))
    pause = min(pause * 2, .milliseconds(50))
  }
}

/// Whether the caller is a block running on the main dispatch queue (the main actor's executor) on a
/// thread whose run loop cannot drain that queue: then a synchronous wait blocks every block queued
/// on `DispatchQueue.main` and every main-actor job until it returns.
///
/// On Linux the main queue is drained by whichever thread `dispatchMain()` hands it to, not by the
/// main thread's run loop, and a serial queue never runs a second block while one runs; so neither
/// spinning the run loop nor anything else lets the queue run from inside one of its blocks.
var isBlockingTheMainQueue: Bool {
  MainQueueMarker.isCurrent && !Thread.isMainThread
}

/// A value set on the main queue, read back to tell whether the current block runs on it.
private enum MainQueueMarker {
  static let key: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
  }()

  static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
}

// MARK: - Waiting for objects to be released

/// How long a check waits before it asks whether anything can still release a survivor.
let releaseGracePeriod = Duration.milliseconds(20)

/// How long past its timeout a wait goes on while heap-wide retains run (a census search's own
/// limit), and the step it goes on by.
let heapWideRetainAllowance = Duration.seconds(10)
let heapWideRetainStep = Duration.milliseconds(200)

/// How a wait for probed objects to go ended.
enum ReleaseWait: Equatable {
  /// Every probed object went.
  case released
  /// Survivors remain after `checkedAfter`, and nothing outside their graphs refers to any of their
  /// objects: no queued block, task, timer or other thread can release them, so the wait ended early.
  case unreleasable(checkedAfter: Duration, timeout: Duration)
  /// Survivors remain after the whole timeout.
  case timedOut(Duration)

  /// `is still alive 1.0 seconds after the test ended`, or, when the wait ended early, why it did.
  func stillAlive(_ verb: String = "is", after moment: String) -> String {
    switch self {
    case .released, .timedOut:
      let timeout = if case .timedOut(let timeout) = self { timeout } else { Duration.zero }
      return "\(verb) still alive \(timeout) after \(moment)"
    case .unreleasable(let checkedAfter, let timeout):
      return "\(verb) still alive after \(moment), and nothing can release "
        + "\(verb == "is" ? "it" : "them"): nothing outside "
        + "\(verb == "is" ? "its" : "their") graph refers to "
        + "\(verb == "is" ? "it" : "them") or to what \(verb == "is" ? "it holds" : "they hold") "
        + (checkedAfter < timeout
          ? "(checked after \(Self.milliseconds(checkedAfter)) ms instead of waiting \(timeout))"
          : "(checked after waiting \(timeout))")
    }
  }

  private static func milliseconds(_ duration: Duration) -> Int {
    Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
  }
}

/// Waits until every probed object is gone, at most `timeout`. After ``releaseGracePeriod`` (and
/// every 100 ms after that) it audits the survivors' graphs: when nothing outside them refers to any
/// of their objects, nothing can ever release them, and it returns at once instead of waiting out
/// the timeout.
func waitForRelease(_ probes: [WeakProbe], timeout: Duration, options: GraphOptions) -> ReleaseWait {
  var schedule = ReleaseSchedule(timeout: timeout)
  while true {
    if waitUntil(timeout: schedule.nextWait, { probes.allSatisfy { !$0.isAlive } }) { return .released }
    // A census search running meanwhile is waited for, until the deadline.
    if let outcome = schedule.outcome(
      probes, options: options, cancelled: false, searchesUntil: schedule.deadline)
    {
      return outcome
    }
  }
}

/// The async twin of ``waitForRelease(_:timeout:options:)``: suspends between checks.
func waitForRelease(
  _ probes: [WeakProbe], timeout: Duration, options: GraphOptions,
  isolation: isolated (any Actor)? = #isolation
) async -> ReleaseWait {
  var schedule = ReleaseSchedule(timeout: timeout)
  while true {
    let gone = await waitUntil(timeout: schedule.nextWait) { probes.allSatisfy { !$0.isAlive } }
    if gone { return .released }
    // A census search running meanwhile is waited for (suspended, until the deadline).
    let cancelled = Task.isCancelled
    let outcome = await HeapWideRetains.excluded(waitingUntil: schedule.deadline) { _ in
      schedule.outcome(probes, options: options, cancelled: cancelled, searchesUntil: .now)
    }
    if let outcome { return outcome }
  }
}

/// Tests: called in the task (or thread) that set it when a wait for release goes on past its
/// timeout because a heap-wide retain runs or ran meanwhile.
enum ReleaseWaitObserver {
  @TaskLocal static var extendedForHeapWideRetains: (@Sendable () -> Void)?
}

/// When ``waitForRelease(_:timeout:options:)`` audits the survivors and when it gives up.
private struct ReleaseSchedule {
  let timeout: Duration
  let clock = ContinuousClock()
  let start: ContinuousClock.Instant
  var deadline: ContinuousClock.Instant
  var audit: ContinuousClock.Instant
  /// ``HeapWideRetains/quietToken`` when the wait began or was last extended.
  private var retainToken: UInt64?
  /// How far the wait may be extended past the timeout while heap-wide retains run.
  private let latestDeadline: ContinuousClock.Instant

  init(timeout: Duration) {
    self.timeout = timeout
    start = clock.now
    deadline = start.advanced(by: timeout)
    latestDeadline = deadline.advanced(by: heapWideRetainAllowance)
    audit = start.advanced(by: min(releaseGracePeriod, timeout))
    retainToken = HeapWideRetains.quietToken
  }

  /// At the deadline, whether to wait a little longer: a heap-wide retain (a census search in this
  /// process, which holds every live object while it reads) runs now or ran since the last look, so
  /// it may be what keeps the survivors. The wait goes on in steps of ``heapWideRetainStep`` while
  /// one runs, until ``heapWideRetainAllowance`` past the timeout.
  private mutating func extendedForHeapWideRetains(at now: ContinuousClock.Instant) -> Bool {
    let token = HeapWideRetains.quietToken
    guard now < latestDeadline, token == nil || token != retainToken else { return false }
    retainToken = token
    deadline = min(latestDeadline, now.advanced(by: heapWideRetainStep))
    audit = deadline
    ReleaseWaitObserver.extendedForHeapWideRetains?()
    return true
  }

  /// How long to wait for the objects before the next audit (or the deadline).
  var nextWait: Duration { max(.zero, clock.now.duration(to: min(audit, deadline))) }

  /// After a wait the survivors outlived: how the wait ends, or nil to wait again. Audited even at
  /// the deadline: a wait that could not run in time (a busy thread pool) still says whether
  /// anything could have released them.
  mutating func outcome(
    _ probes: [WeakProbe], options: GraphOptions, cancelled: Bool,
    searchesUntil searchDeadline: ContinuousClock.Instant
  ) -> ReleaseWait? {
    if survivorsAreUnreleasable(probes, options: options, searchesUntil: searchDeadline) {
      let now = clock.now
      return .unreleasable(checkedAfter: start.duration(to: now), timeout: timeout)
    }
    let now = clock.now
    if cancelled { return .timedOut(timeout) }
    if now >= deadline {
      if extendedForHeapWideRetains(at: now) { return nil }
      // Still alive at the timeout (and after it, when the wait went on): the message says the former.
      return .timedOut(timeout)
    }
    audit = now.advanced(by: .milliseconds(100))
    return nil
  }
}

/// Whether no reference from outside the survivors' graphs reaches any of their objects (the
/// probes' own weak references excepted). At most 20 survivors are audited; more are waited for.
private func survivorsAreUnreleasable(
  _ probes: [WeakProbe], options: GraphOptions, searchesUntil searchDeadline: ContinuousClock.Instant
) -> Bool {
  var probesByAddress: [UInt: Set<ObjectIdentifier>] = [:]
  for probe in probes {
    guard let object = probe.object else { continue }
    probesByAddress[UInt(bitPattern: ObjectIdentifier(object)), default: []].insert(ObjectIdentifier(probe))
  }
  let survivors = probes.filter(\.isAlive)
  guard !survivors.isEmpty, survivors.count <= 20 else { return false }
  var auditOptions = options
  auditOptions.maxNodes = min(options.maxNodes, 10_000)
  return survivors.allSatisfy { probe in
    isUnreleasable(probe, options: auditOptions, searchesUntil: searchDeadline) {
      probesByAddress[$0]?.count ?? 0
    }
  }
}

/// Audits the graph of one survivor, counting none of the references this code path holds to it
/// (see ``auditTemporaries(searchesUntil:)``).
@inline(never)
private func audit(
  _ probe: WeakProbe, options: GraphOptions, searchesUntil searchDeadline: ContinuousClock.Instant?,
  knownWeakReferences: (UInt) -> Int
) -> OutsideReferenceAudit? {
  guard let object = probe.object else { return nil }
  return withExtendedLifetime(object) {
    ObjectGraph.auditOutsideReferences(
      of: object, callerReferences: 0, options: options, knownWeakReferences: knownWeakReferences,
      waitingForSearchesUntil: searchDeadline)
  }
}

/// How many strong references ``audit(_:options:knownWeakReferences:)`` itself holds to the audited
/// object (its weak load, and whatever copies the build keeps), measured on an object whose only
/// other holder is known: the count differs between debug and release builds. Measured again until
/// a measurement succeeds (a census search running meanwhile makes it inconclusive).
private func auditTemporaries(searchesUntil searchDeadline: ContinuousClock.Instant) -> Int? {
  if let known = measuredAuditTemporaries.withLock({ $0 }) { return known }
  final class Control {}
  let control = Control()
  let probe = WeakProbe(control)
  let measured: Int? = withExtendedLifetime(control) {
    let result = audit(probe, options: GraphOptions(), searchesUntil: searchDeadline) { _ in 1 }
    guard let result, result.incomplete == nil, result.outsideReferences.count == 1,
      let root = result.outsideReferences.first, root.node == 0,
      root.counts.weak == 0, root.counts.unowned == 0, root.counts.strong >= 2
    else { return nil }
    // `control` is the one holder besides the audit.
    return root.counts.strong - 1
  }
  if let measured { measuredAuditTemporaries.withLock { $0 = measured } }
  return measured
}

private let measuredAuditTemporaries = Mutex<Int?>(nil)

/// Whether nothing outside the survivor's graph refers to any of its objects.
private func isUnreleasable(
  _ probe: WeakProbe, options: GraphOptions, searchesUntil searchDeadline: ContinuousClock.Instant,
  knownWeakReferences: (UInt) -> Int
) -> Bool {
  guard let temporaries = auditTemporaries(searchesUntil: searchDeadline),
    let result = audit(
      probe, options: options, searchesUntil: searchDeadline, knownWeakReferences: knownWeakReferences),
    result.incomplete == nil
  else { return false }
  return result.outsideReferences.allSatisfy {
    $0.node == 0 && $0.counts == ReferenceCounts(strong: temporaries, weak: 0, unowned: 0)
  }
}
