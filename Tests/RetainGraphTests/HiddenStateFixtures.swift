import Foundation
import Synchronization

// Swift 6 owners that keep their state in a `Mutex` of a private type (issue 29, item 1): the
// compiler hides a noncopyable field's type from reflection, and name lookup cannot find private
// types. Each `make` starts what the owner holds and returns it with a `stop` that ends it
// without touching the owner (finish the stream, clear the handler through a weak reference).

/// The chat session: a task kept in a `Mutex` of a private struct, consuming a stream.
final class MutexSession: @unchecked Sendable {
  private struct State { var task: Task<Void, Never>? }
  private let state = Mutex(State())
  private let received = Mutex(0)

  func deliver(_ message: String) { received.withLock { $0 += message.count } }

  func start(_ stream: AsyncStream<String>) {
    let task = Task { for await message in stream { self.deliver(message) } }
    state.withLock { $0.task = task }
  }

  /// The twin: `[weak self]` in the task.
  func startWeakly(_ stream: AsyncStream<String>) {
    let task = Task { [weak self] in for await message in stream { self?.deliver(message) } }
    state.withLock { $0.task = task }
  }

  var task: Task<Void, Never>? { state.withLock { $0.task } }

  static func make(weakly: Bool = false) async -> (AnyObject, StopTask) {
    let (stream, continuation) = AsyncStream<String>.makeStream()
    let session = MutexSession()
    if weakly { session.startWeakly(stream) } else { session.start(stream) }
    if let task = session.task { await waitUntilSettled(task) }
    return (session, { continuation.finish() })
  }
}

/// The fixed session of the issue: `[weak self]`, and the task cancelled in `deinit`.
final class CancellingMutexSession: @unchecked Sendable {
  private struct State { var task: Task<Void, Never>? }
  private let state = Mutex(State())

  func deliver(_ message: String) {}

  func start(_ stream: AsyncStream<String>) {
    let task = Task { [weak self] in for await message in stream { self?.deliver(message) } }
    state.withLock { $0.task = task }
  }

  deinit { state.withLock { $0.task?.cancel() } }

  static func make() async -> (AnyObject, StopTask) {
    let (stream, continuation) = AsyncStream<String>.makeStream()
    let session = CancellingMutexSession()
    session.start(stream)
    if let task = session.state.withLock({ $0.task }) { await waitUntilSettled(task) }
    return (session, { continuation.finish() })
  }
}

/// A fileprivate struct at file scope in the Mutex.
fileprivate struct FileScopeState { var task: Task<Void, Never>? }

final class FileprivateStateSession: @unchecked Sendable {
  fileprivate let state = Mutex(FileScopeState())
  func deliver(_ message: String) {}

  static func make() async -> (AnyObject, StopTask) {
    let (stream, continuation) = AsyncStream<String>.makeStream()
    let session = FileprivateStateSession()
    let task = Task { for await message in stream { session.deliver(message) } }
    session.state.withLock { $0.task = task }
    await waitUntilSettled(task)
    return (session, { continuation.finish() })
  }
}

/// A private struct holding a closure, in the Mutex.
final class HandlerStateOwner: @unchecked Sendable {
  private struct Handlers { var onMessage: (@Sendable (String) -> Void)? }
  private let handlers = Mutex(Handlers())
  func deliver(_ message: String) {}

  func install(weakly: Bool) {
    if weakly {
      handlers.withLock { $0.onMessage = { [weak self] in self?.deliver($0) } }
    } else {
      handlers.withLock { $0.onMessage = { self.deliver($0) } }
    }
  }

  func clear() { handlers.withLock { $0.onMessage = nil } }

  static func make(weakly: Bool) -> (AnyObject, StopTask) {
    let owner = HandlerStateOwner()
    owner.install(weakly: weakly)
    return (owner, { [weak owner] in owner?.clear() })
  }
}

/// A Mutex inside a private noncopyable struct inside the class.
final class GuardedStateSession: @unchecked Sendable {
  private struct Guarded: ~Copyable { let task = Mutex<Task<Void, Never>?>(nil) }
  private let guarded = Guarded()
  func deliver(_ message: String) {}

  static func make() async -> (AnyObject, StopTask) {
    let (stream, continuation) = AsyncStream<String>.makeStream()
    let session = GuardedStateSession()
    let task = Task { for await message in stream { session.deliver(message) } }
    session.guarded.task.withLock { $0 = task }
    await waitUntilSettled(task)
    return (session, { continuation.finish() })
  }
}

/// A Mutex of a private enum whose payload is the task.
final class PhaseSession: @unchecked Sendable {
  private enum Phase {
    case idle
    case running(Task<Void, Never>)
  }
  private let phase = Mutex(Phase.idle)
  func deliver(_ message: String) {}

  static func make() async -> (AnyObject, StopTask) {
    let (stream, continuation) = AsyncStream<String>.makeStream()
    let session = PhaseSession()
    let task = Task { for await message in stream { session.deliver(message) } }
    session.phase.withLock { $0 = .running(task) }
    await waitUntilSettled(task)
    return (session, { continuation.finish() })
  }
}

/// A Mutex of a private generic struct.
final class BoxedSession: @unchecked Sendable {
  private struct Box<Value> { var value: Value }
  private let state = Mutex(Box<Task<Void, Never>?>(value: nil))
  func deliver(_ message: String) {}

  static func make() async -> (AnyObject, StopTask) {
    let (stream, continuation) = AsyncStream<String>.makeStream()
    let session = BoxedSession()
    let task = Task { for await message in stream { session.deliver(message) } }
    session.state.withLock { $0.value = task }
    await waitUntilSettled(task)
    return (session, { continuation.finish() })
  }
}

/// A private struct nested in a generic class (generic over the class's parameter), in the Mutex.
final class GenericMutexSession<Payload: Sendable>: @unchecked Sendable {
  private struct State {
    var task: Task<Void, Never>?
    var last: Payload?
  }
  private let state = Mutex(State())
  func deliver(_ message: Payload) { state.withLock { $0.last = message } }

  // The task captures `self` only: a closure of a generic class that also captures a value of a
  // generic type (`stream`) has a context the walk does not read yet (a note).
  let stream: AsyncStream<Payload>
  init(stream: AsyncStream<Payload>) { self.stream = stream }

  func start() -> Task<Void, Never> {
    let task = Task { for await message in self.stream { self.deliver(message) } }
    state.withLock { $0.task = task }
    return task
  }

  static func make(_ payload: Payload.Type) async -> (AnyObject, StopTask) {
    let (stream, continuation) = AsyncStream<Payload>.makeStream()
    let session = GenericMutexSession<Payload>(stream: stream)
    await waitUntilSettled(session.start())
    return (session, { continuation.finish() })
  }
}
