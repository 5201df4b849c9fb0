internal import Dispatch
internal import Foundation

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
