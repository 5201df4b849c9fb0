internal import Foundation
internal import Synchronization

/// Set when the task waiting for work that runs off the cooperative pool is cancelled: the work
/// looks at it (a forked child is then killed).
package final class CancellationFlag: Sendable {
  private let state = Atomic<Bool>(false)

  package init() {}

  /// Whether the waiting task was cancelled.
  package var isSet: Bool { state.load(ordering: .acquiring) }

  /// Marks the waiting task cancelled.
  package func set() { state.store(true, ordering: .releasing) }
}

/// A value handed to a thread of its own whose creator waits for it: the caller promises that the
/// value is not used elsewhere meanwhile (or, for a forked walk, that only its type and a frozen
/// copy of it are read).
package struct OffPoolBox<Value>: @unchecked Sendable {
  package var value: Value
  package init(_ value: Value) { self.value = value }
}

/// Blocking work (a forked walk waiting for its child, a heap-wide search) run on a thread of its
/// own, so that an `async` caller suspends instead of holding one of the cooperative pool's few
/// threads for the whole wait: other tasks (a server's request handlers, other tests) keep running.
package enum OffPool {
  /// Runs `work` on a new thread and suspends until it returns. When the calling task is cancelled,
  /// the flag `work` receives is set (it may stop early); `work` still runs to its end.
  /// - Parameter work: the blocking work; its argument tells whether the caller was cancelled.
  /// - Returns: what `work` returned.
  package static func run<T: Sendable>(_ work: @escaping @Sendable (CancellationFlag) -> T) async -> T {
    let flag = CancellationFlag()
    let pending = Pending(work)
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
        let thread = Thread { continuation.resume(returning: pending.run(flag)) }
        thread.name = "RetainGraph off-pool work"
        thread.start()
      }
    } onCancel: {
      flag.set()
    }
  }

  /// The work, dropped before its result is handed back: what it captured (the caller's objects)
  /// must not outlive the call while the thread winds down.
  private final class Pending<T>: @unchecked Sendable {
    private var work: (@Sendable (CancellationFlag) -> T)?

    init(_ work: @escaping @Sendable (CancellationFlag) -> T) { self.work = work }

    func run(_ flag: CancellationFlag) -> T {
      guard let work else { preconditionFailure("off-pool work run twice") }
      self.work = nil
      return work(flag)
    }
  }
}
