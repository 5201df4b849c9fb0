import Foundation
import RetainGraphRuntime
import Synchronization
import Testing

@testable import RetainGraph

// Owners of tasks, as a new user writes them (issue 19). Each `make` starts the task, waits until
// it is suspended (or finished), and returns the owner with a `stop` that ends the task without
// touching the owner (cancel, or finish the stream), so that no test leaves a task running.

/// A stop action: ends a fixture's task.
typealias StopTask = @Sendable () -> Void

/// Waits until the task is suspended or finished, as its runtime state says. The wait is bounded
/// (60 s): a task that does not settle by then fails the test instead of being walked unsettled.
func waitUntilSettled<Success, Failure>(_ task: Task<Success, Failure>) async {
  let pointer = unsafeBitCast(task, to: UnsafeRawPointer.self)
  await waitFor("the task to settle") { isSettled(pointer) }
}

/// Whether the task at `pointer` is suspended (and not running) or finished.
func isSettled(_ pointer: UnsafeRawPointer) -> Bool {
  guard let state = TaskLayout.state(of: pointer) else { return false }
  return state.isComplete || (state.isSuspended && !state.isRunning)
}

/// Waits until `condition` holds, looking again every few milliseconds. Only bounded: when it still
/// does not hold 60 s on and 200 looks after that, the test fails. The looks count because this
/// loop and the tasks it waits for run on the same cooperative pool: other tests' blocking work
/// (forks waiting in their handlers for the walk's caches, seen for over a minute in whole-suite
/// runs) can starve both past the 60 s, and a task the pool then runs is queued behind this loop.
func waitFor(_ what: String, _ condition: () -> Bool) async {
  let deadline = ContinuousClock.now + .seconds(60)
  var looksPastTheDeadline = 0
  while !condition() {
    if ContinuousClock.now >= deadline {
      looksPastTheDeadline += 1
      guard looksPastTheDeadline <= 200 else {
        Issue.record("timed out waiting for \(what)")
        return
      }
    }
    try? await Task.sleep(for: .milliseconds(5))
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

/// The twin of the poller: `[weak self]` re-checked for each tick through a temporary
/// (`self?.ticks`), nothing strong across the sleep.
final class WeakPoller: @unchecked Sendable {
  var task: Task<Void, Never>?
  var ticks = 1
  func start() {
    task = Task { [weak self] in
      while !Task.isCancelled {
        guard let value = self?.ticks else { return }
        _ = value
        try? await Task.sleep(for: .seconds(3600))
      }
    }
  }

  static func make() async -> (AnyObject, StopTask) {
    let poller = WeakPoller()
    poller.start()
    guard let task = poller.task else { preconditionFailure("start() stores the task") }
    await waitUntilSettled(task)
    return (poller, { task.cancel() })
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

  /// The twin as it is most often written: `self?.` for each element.
  func startOptionalChainingPerElement() {
    task = Task { [weak self, stream] in
      for await value in stream {
        self?.total += value
      }
    }
  }

  /// Not a twin: the right side of an assignment through an optional chain runs only once the chain
  /// has succeeded, so `self?.total = await …` holds a strong `self` (a temporary, not a variable)
  /// across the await.
  func startAssigningAcrossAwait() {
    task = Task { [weak self, stream] in
      var iterator = stream.makeAsyncIterator()
      while !Task.isCancelled { self?.total = await iterator.next() ?? 0 }
    }
  }

  /// Not a twin: `self?.add(await …)` holds a strong `self` (a temporary) across the await of its
  /// argument.
  func startCallingAcrossAwait() {
    task = Task { [weak self, stream] in
      var iterator = stream.makeAsyncIterator()
      while !Task.isCancelled { self?.add(await iterator.next() ?? 0) }
    }
  }

  func add(_ value: Int) { total += value }

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
      // The loop takes the element before the next one (and before the walk).
      await waitFor("element \(value) to be taken") { consumer.total > value }
    }
    await waitUntilSettled(task)
    if finishing { await task.value }
    let continuation = consumer.continuation
    // Cancelled too: a loop over `iterator.next()` goes on after the stream finished.
    let stop: StopTask = {
      task.cancel()
      continuation.finish()
    }
    return (consumer, stop)
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
    await waitFor("the spinner to run") { spinner.ticks.load(ordering: .relaxed) > 0 }
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

/// A weak reference passed to child tasks, so that only a child's frame holds the owner strongly.
final class WeakOwner: @unchecked Sendable {
  weak var object: ChildTaskOwner?
  /// The owner's token (a value, not a reference): what its child tasks register under.
  let token: Int
  init(_ object: ChildTaskOwner) {
    self.object = object
    token = object.token
  }
}

/// The child tasks each `ChildTaskOwner` started, by the owner's token (never an object's address,
/// which a later owner reuses once the first is freed): each registers itself as it begins to poll,
/// so that `make` waits until every one of them is suspended in its sleep.
enum ChildTaskRegistry {
  private static let tasks = Mutex<[Int: [UInt]]>([:])
  private static let lastToken = Atomic<Int>(0)

  /// A token no other owner has.
  static func newToken() -> Int { lastToken.add(1, ordering: .relaxed).newValue }

  /// Registers the current task under `owner`.
  @inline(never)
  static func registerCurrentTask(under owner: Int) {
    let task = withUnsafeCurrentTask { $0.map { unsafeBitCast($0, to: UInt.self) } }
    guard let task else { return }
    tasks.withLock { $0[owner, default: []].append(task) }
  }

  /// The tasks registered under `owner`.
  static func tasks(of owner: Int) -> [UInt] { tasks.withLock { $0[owner] ?? [] } }

  /// Forgets the tasks registered under `owner`.
  static func forget(_ owner: Int) { _ = tasks.withLock { $0.removeValue(forKey: owner) } }
}

/// Child tasks (`async let`, a task group's) whose frames hold the owner: the stored parent task
/// captures only a weak reference, and each child polls with the owner it unwrapped once.
final class ChildTaskOwner: @unchecked Sendable {
  var task: Task<Void, Never>?
  var ticks = 0
  /// What its child tasks register under (`ChildTaskRegistry`).
  let token = ChildTaskRegistry.newToken()

  /// Unwraps once, then polls: the frame holds the owner across every sleep.
  @inline(never)
  static func poll(_ owner: ChildTaskOwner?) async {
    guard let owner else { return }
    ChildTaskRegistry.registerCurrentTask(under: owner.token)
    while !Task.isCancelled {
      owner.ticks += 1
      try? await Task.sleep(for: .seconds(3600))
    }
  }

  /// The twin: unwraps the weak reference for each tick; nothing strong across a sleep.
  @inline(never)
  static func pollWeakly(_ reference: WeakOwner) async {
    ChildTaskRegistry.registerCurrentTask(under: reference.token)
    while !Task.isCancelled {
      if let owner = reference.object { owner.ticks += 1 }
      try? await Task.sleep(for: .seconds(3600))
    }
  }

  /// The same twin through an unnamed temporary (`reference.object?.ticks += 1`).
  @inline(never)
  static func pollWeaklyThroughATemporary(_ reference: WeakOwner) async {
    ChildTaskRegistry.registerCurrentTask(under: reference.token)
    while !Task.isCancelled {
      reference.object?.ticks += 1
      try? await Task.sleep(for: .seconds(3600))
    }
  }

  func startAsyncLet() {
    let reference = WeakOwner(self)
    task = Task {
      async let polling: Void = ChildTaskOwner.poll(reference.object)
      await polling
    }
  }

  func startGroup(children: Int = 2) {
    let reference = WeakOwner(self)
    task = Task {
      await withTaskGroup(of: Void.self) { group in
        for _ in 0..<children { group.addTask { await ChildTaskOwner.poll(reference.object) } }
        await group.waitForAll()
      }
    }
  }

  func startGroupWeakly() {
    let reference = WeakOwner(self)
    task = Task {
      await withTaskGroup(of: Void.self) { group in
        group.addTask { await ChildTaskOwner.pollWeakly(reference) }
        await group.waitForAll()
      }
    }
  }

  func startGroupWeaklyThroughATemporary() {
    let reference = WeakOwner(self)
    task = Task {
      await withTaskGroup(of: Void.self) { group in
        group.addTask { await ChildTaskOwner.pollWeaklyThroughATemporary(reference) }
        await group.waitForAll()
      }
    }
  }

  /// Starts, and waits until the parent and every child are suspended (each child registered
  /// itself before its first tick).
  static func make(_ start: (ChildTaskOwner) -> Void, children: Int = 1) async -> (AnyObject, StopTask) {
    let owner = ChildTaskOwner()
    let id = owner.token
    start(owner)
    guard let task = owner.task else { preconditionFailure("start() stores the task") }
    await waitFor("\(children) child tasks to start") { ChildTaskRegistry.tasks(of: id).count >= children }
    await waitUntilSettled(task)
    await waitFor("the child tasks to reach their sleep") {
      ChildTaskRegistry.tasks(of: id).allSatisfy { UnsafeRawPointer(bitPattern: $0).map(isSettled) ?? false }
    }
    return (
      owner,
      {
        task.cancel()
        ChildTaskRegistry.forget(id)
      }
    )
  }
}
