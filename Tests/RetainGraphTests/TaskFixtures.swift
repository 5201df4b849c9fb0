import Foundation
import Synchronization

@testable import RetainGraph

// Owners of tasks, as a new user writes them (issue 19). Each `make` starts the task, waits until
// it is suspended (or finished), and returns the owner with a `stop` that ends the task without
// touching the owner (cancel, or finish the stream), so that no test leaves a task running.

/// A stop action: ends a fixture's task.
typealias StopTask = @Sendable () -> Void

/// Waits (up to five seconds) until the task is suspended or finished, as its runtime state says.
func waitUntilSettled<Success, Failure>(_ task: Task<Success, Failure>) async {
  let pointer = unsafeBitCast(task, to: UnsafeRawPointer.self)
  for _ in 0..<500 {
    if let state = TaskLayout.state(of: pointer), state.isComplete || (state.isSuspended && !state.isRunning)
    {
      return
    }
    try? await Task.sleep(for: .milliseconds(10))
  }
}

/// A polling loop that sleeps between ticks: the task captures `self` strongly.
final class TaskPoller: @unchecked Sendable {
  var task: Task<Void, Never>?
  var ticks = 0
  func start() {
    task = Task {
      while !Task.isCancelled {
        self.ticks += 1
        try? await Task.sleep(for: .seconds(3600))
      }
    }
  }

  static func make() async -> (AnyObject, StopTask) {
    let poller = TaskPoller()
    poller.start()
    guard let task = poller.task else { preconditionFailure("start() stores the task") }
    await waitUntilSettled(task)
    return (poller, { task.cancel() })
  }

  /// The twin: cancelled, and finished, before its owner goes.
  static func makeCancelled() async -> (AnyObject, StopTask) {
    let poller = TaskPoller()
    poller.start()
    guard let task = poller.task else { preconditionFailure("start() stores the task") }
    await waitUntilSettled(task)
    task.cancel()
    await task.value
    return (poller, {})
  }
}

/// The same loop in a detached task.
final class DetachedPoller: @unchecked Sendable {
  var task: Task<Void, Never>?
  var ticks = 0
  func start() {
    task = Task.detached {
      while !Task.isCancelled {
        self.ticks += 1
        try? await Task.sleep(for: .seconds(3600))
      }
    }
  }

  static func make() async -> (AnyObject, StopTask) {
    let poller = DetachedPoller()
    poller.start()
    guard let task = poller.task else { preconditionFailure("start() stores the task") }
    await waitUntilSettled(task)
    return (poller, { task.cancel() })
  }
}

/// `for await` over a stream the object owns.
final class StreamConsumer: @unchecked Sendable {
  let stream: AsyncStream<Int>
  let continuation: AsyncStream<Int>.Continuation
  var task: Task<Void, Never>?
  var total = 0
  init() { (stream, continuation) = AsyncStream.makeStream(of: Int.self) }

  /// Captures `self` strongly.
  func start() {
    task = Task {
      for await value in self.stream { self.total += value }
    }
  }

  /// `[weak self]`, unwrapped once before the loop: the suspended frame holds a strong `self`.
  func startUnwrappingOnce() {
    task = Task { [weak self] in
      guard let self else { return }
      for await value in self.stream { self.total += value }
    }
  }

  /// The twin: `[weak self]` re-checked for each element; nothing strong across the await.
  func startRecheckingPerElement() {
    task = Task { [weak self, stream] in
      for await value in stream {
        guard let self else { return }
        self.total += value
      }
    }
  }

  /// The twin: a task that finished before the walk.
  func startFinishing() {
    task = Task { self.total += 1 }
  }

  static func make(_ start: (StreamConsumer) -> Void, elements: Int = 0, finishing: Bool = false) async -> (
    AnyObject, StopTask
  ) {
    let consumer = StreamConsumer()
    start(consumer)
    guard let task = consumer.task else { preconditionFailure("start() stores the task") }
    for value in 0..<elements {
      consumer.continuation.yield(1)
      // Let the loop take the element before the next one (and before the walk).
      for _ in 0..<500 where consumer.total <= value { try? await Task.sleep(for: .milliseconds(10)) }
    }
    await waitUntilSettled(task)
    if finishing { await task.value }
    let continuation = consumer.continuation
    return (consumer, { continuation.finish() })
  }
}

/// An actor that starts its own task (isolated to the actor), which calls back into it.
actor TickerActor {
  var task: Task<Void, Never>?
  var ticks = 0
  func start() {
    task = Task {
      while !Task.isCancelled {
        self.tick()
        try? await Task.sleep(for: .seconds(3600))
      }
    }
  }
  func tick() { ticks += 1 }

  static func make() async -> (AnyObject, StopTask) {
    let ticker = TickerActor()
    await ticker.start()
    guard let task = await ticker.task else { preconditionFailure("start() stores the task") }
    await waitUntilSettled(task)
    return (ticker, { task.cancel() })
  }
}

/// A task that never suspends: it is running whenever the walk looks.
final class Spinner: @unchecked Sendable {
  var task: Task<Void, Never>?
  let ticks = Atomic<Int>(0)
  func start() {
    task = Task.detached {
      while !Task.isCancelled { self.ticks.add(1, ordering: .relaxed) }
    }
  }

  static func make() async -> (Spinner, StopTask) {
    let spinner = Spinner()
    spinner.start()
    guard let task = spinner.task else { preconditionFailure("start() stores the task") }
    for _ in 0..<500 where spinner.ticks.load(ordering: .relaxed) == 0 {
      try? await Task.sleep(for: .milliseconds(10))
    }
    return (spinner, { task.cancel() })
  }
}

/// A stored `DispatchWorkItem` whose block captures `self`.
final class WorkItemOwner: @unchecked Sendable {
  var item: DispatchWorkItem?
  var runs = 0
  let name = "work"
  /// Only `self` captured: the block's closure context is the owner itself.
  func start() { item = DispatchWorkItem { self.runs += 1 } }
  /// `self` and a value: the closure has a context of its own.
  func startNamed() {
    let label = name
    item = DispatchWorkItem { self.runs += label.count }
  }
  /// The twin: `[weak self]`.
  func startWeak() { item = DispatchWorkItem { [weak self] in self?.runs += 1 } }
}
