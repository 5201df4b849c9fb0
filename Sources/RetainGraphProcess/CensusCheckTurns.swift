internal import Dispatch
internal import Synchronization

/// Census checks take turns (each counts every live object in the process, so two at once would
/// count each other's objects), across threads and tasks: a synchronous check waits for its turn on
/// its thread, an `async` one suspends. A check made inside a check (a scenario that runs one
/// itself) shares its turn: the turn travels with the task (a task-local value), also into the
/// synchronous code it calls.
package final class CensusCheckTurns: Sendable {
  package static let shared = CensusCheckTurns()

  /// The turn the current task (or thread) holds.
  @TaskLocal private static var heldTurn: UInt64?

  private enum Waiter {
    case thread(DispatchSemaphore)
    case task(CheckedContinuation<Void, Never>)
  }

  private struct State {
    var holder: UInt64?
    var lastTurn: UInt64 = 0
    var waiting: [(turn: UInt64, waiter: Waiter)] = []
  }

  private let state = Mutex(State())

  private init() {}

  /// Runs `body` in this thread's turn, waiting for it (blocking the thread).
  package func exclusively<R>(_ body: () throws -> R) rethrows -> R {
    if let held = Self.heldTurn, state.withLock({ $0.holder == held }) { return try body() }
    let semaphore = DispatchSemaphore(value: 0)
    let (turn, mustWait) = state.withLock { state -> (UInt64, Bool) in
      state.lastTurn += 1
      let turn = state.lastTurn
      guard state.holder != nil else {
        state.holder = turn
        return (turn, false)
      }
      state.waiting.append((turn, .thread(semaphore)))
      return (turn, true)
    }
    if mustWait { semaphore.wait() }
    defer { pass() }
    return try Self.$heldTurn.withValue(turn) { try body() }
  }

  /// Runs `body` in this task's turn, suspending until it comes.
  package func exclusively<R>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
  ) async rethrows -> R {
    if let held = Self.heldTurn, state.withLock({ $0.holder == held }) { return try await body() }
    let turn = state.withLock { state -> UInt64 in
      state.lastTurn += 1
      return state.lastTurn
    }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready = state.withLock { state -> Bool in
        guard state.holder != nil else {
          state.holder = turn
          return true
        }
        state.waiting.append((turn, .task(continuation)))
        return false
      }
      if ready { continuation.resume() }
    }
    defer { pass() }
    return try await Self.$heldTurn.withValue(turn) { try await body() }
  }

  /// Hands the turn to the first waiter, or frees it.
  private func pass() {
    let next = state.withLock { state -> Waiter? in
      guard !state.waiting.isEmpty else {
        state.holder = nil
        return nil
      }
      let (turn, waiter) = state.waiting.removeFirst()
      state.holder = turn
      return waiter
    }
    switch next {
    case .thread(let semaphore): semaphore.signal()
    case .task(let continuation): continuation.resume()
    case nil: break
    }
  }
}
