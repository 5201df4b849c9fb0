internal import RetainGraph
internal import Synchronization

/// The objects tracked during one test with the `.detectsLeaks` trait; the running test's registry
/// is a task-local value, so tests running in parallel never share one.
final class LeakRegistry: Sendable {
  @TaskLocal static var current: LeakRegistry?

  private struct Entry {
    var probe: SendableProbe
    var site: CallSite
  }

  private let entries = Mutex<[Entry]>([])

  func track(_ object: AnyObject, at site: CallSite) {
    let entry = Entry(probe: SendableProbe(probe: WeakProbe(object)), site: site)
    entries.withLock { $0.append(entry) }
  }

  /// Waits for every tracked object to go, then records an issue at the `track` call of each
  /// survivor, with why it is alive.
  func check(timeout: Duration, options: GraphOptions) async {
    let tracked = entries.withLock { entries in
      defer { entries.removeAll() }
      return entries.map { ($0.probe, $0.site) }
    }
    guard !tracked.isEmpty else { return }
    let wait = await waitForRelease(tracked.map(\.0.probe), timeout: timeout, options: options)
    guard wait != .released else { return }
    for (probe, site) in tracked {
      survivorFailure(
        probe.probe, wait: wait, options: options,
        subject: "\(probe.probe.typeName) (tracked for leaks)",
        after: "the test ended"
      )?.record(at: site)
    }
  }
}
