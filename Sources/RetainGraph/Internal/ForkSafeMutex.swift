#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// A lock around a process-wide cache that a forked child may use (the snapshot walk runs in one):
/// every such lock is taken by the forking thread just before `fork` and made anew in the child
/// (`pthread_atfork`), so a child never inherits a lock that another thread held. Swift's `Mutex`
/// cannot do this: on Linux it is a priority-inheritance futex that records its owner's thread id,
/// which in the child belongs to no thread, so locking it there traps.
final class ForkSafeMutex<Value>: @unchecked Sendable {
  private let lock: UnsafeMutablePointer<pthread_mutex_t>
  private var value: Value

  init(_ value: Value) {
    self.value = value
    lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    pthread_mutex_init(lock, nil)
    ForkSafeLocks.register(lock)
  }

  /// Calls `body` with the value, the lock held.
  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    return try body(&value)
  }
}

/// Every `ForkSafeMutex`'s lock, and the fork handlers that hold them across a fork.
private enum ForkSafeLocks {
  /// Guards `locks`; itself held across a fork, first.
  nonisolated(unsafe) static let registryLock: UnsafeMutablePointer<pthread_mutex_t> = {
    let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    pthread_mutex_init(lock, nil)
    pthread_atfork(prepareFork, resumeParentAfterFork, resetChildAfterFork)
    return lock
  }()
  nonisolated(unsafe) static var locks: [UnsafeMutablePointer<pthread_mutex_t>] = []

  static func register(_ lock: UnsafeMutablePointer<pthread_mutex_t>) {
    pthread_mutex_lock(registryLock)
    locks.append(lock)
    pthread_mutex_unlock(registryLock)
  }
}

private func prepareFork() {
  pthread_mutex_lock(ForkSafeLocks.registryLock)
  for lock in ForkSafeLocks.locks { pthread_mutex_lock(lock) }
}

private func resumeParentAfterFork() {
  for lock in ForkSafeLocks.locks.reversed() { pthread_mutex_unlock(lock) }
  pthread_mutex_unlock(ForkSafeLocks.registryLock)
}

private func resetChildAfterFork() {
  // The child's only thread is the one that forked, which held every lock: make them anew.
  for lock in ForkSafeLocks.locks { pthread_mutex_init(lock, nil) }
  pthread_mutex_init(ForkSafeLocks.registryLock, nil)
}
