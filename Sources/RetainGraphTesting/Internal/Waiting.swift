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
