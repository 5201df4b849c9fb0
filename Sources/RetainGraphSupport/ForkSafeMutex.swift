package import Synchronization

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
package final class ForkSafeMutex<Value>: @unchecked Sendable {
  private let lock: UnsafeMutablePointer<pthread_mutex_t>
  private var value: Value

  package init(_ value: Value) {
    self.value = value
    lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    pthread_mutex_init(lock, nil)
    ForkSafeLocks.register(lock)
  }

  /// The lock's address, which ``ForkSafeLocks/busyLockObserver`` is called with.
  package var lockAddress: UnsafeRawPointer { UnsafeRawPointer(lock) }

  /// Calls `body` with the value, the lock held.
  package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    return try body(&value)
  }
}

/// Every `ForkSafeMutex`'s lock, and the fork handlers that hold them across a fork.
///
/// Taking them before a fork must not deadlock with the threads that use them: a thread may make a
/// new `ForkSafeMutex` (and so take the registry lock) while it holds another one, and locks may
/// nest in any order. So the forking thread never waits for a lock while it holds the registry,
/// and never waits for one lock while it holds others: it tries each lock, and when one is busy it
/// lets go of every lock it took, waits for that one to be free, and starts again.
package enum ForkSafeLocks {
  /// Guards `locks`; held across a fork, taken last.
  nonisolated(unsafe) static let registryLock: UnsafeMutablePointer<pthread_mutex_t> = {
    let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    pthread_mutex_init(lock, nil)
    pthread_atfork(prepareFork, resumeParentAfterFork, resetChildAfterFork)
    return lock
  }()
  nonisolated(unsafe) static var locks: [UnsafeMutablePointer<pthread_mutex_t>] = []

  /// The same locks for the forked child's handler, in a plain buffer: the child must not make
  /// type metadata (iterating an array the first time does, in a debug build), which takes the
  /// runtime's locks that another thread of the parent may have held at the fork (seen: a child
  /// blocked in `swift_getTypeByMangledName` under `resetChildAfterFork`, on the conformance
  /// cache's lock).
  nonisolated(unsafe) static var childLocks = UnsafeMutablePointer<UnsafeMutablePointer<pthread_mutex_t>>
    .allocate(capacity: 16)
  nonisolated(unsafe) static var childLockCount = 0
  nonisolated(unsafe) static var childLockCapacity = 16

  /// Called (by tests) with a lock's address when a fork's handler finds it busy and is about to
  /// wait for it, holding no lock: the moment a thread holding it overlaps with the fork.
  /// (A `Mutex`, used in the parent only: the child never calls it.)
  package static let busyLockObserver = Mutex<(@Sendable (UnsafeRawPointer) -> Void)?>(nil)

  static func register(_ lock: UnsafeMutablePointer<pthread_mutex_t>) {
    pthread_mutex_lock(registryLock)
    locks.append(lock)
    if childLockCount == childLockCapacity {
      let grown = UnsafeMutablePointer<UnsafeMutablePointer<pthread_mutex_t>>.allocate(
        capacity: childLockCapacity * 2)
      grown.moveInitialize(from: childLocks, count: childLockCount)
      childLocks.deallocate()
      childLocks = grown
      childLockCapacity *= 2
    }
    (childLocks + childLockCount).initialize(to: lock)
    childLockCount += 1
    pthread_mutex_unlock(registryLock)
  }

  /// Takes every registered lock and then the registry, never waiting for one lock while it holds
  /// another (see the type's comment).
  static func lockAll() {
    while true {
      pthread_mutex_lock(registryLock)
      let all = locks
      pthread_mutex_unlock(registryLock)
      var held = 0
      while held < all.count, pthread_mutex_trylock(all[held]) == 0 { held += 1 }
      if held < all.count {
        for lock in all[..<held].reversed() { pthread_mutex_unlock(lock) }
        if let observer = busyLockObserver.withLock({ $0 }) { observer(UnsafeRawPointer(all[held])) }
        // Wait, holding nothing, until the busy lock's holder lets it go; then try again.
        pthread_mutex_lock(all[held])
        pthread_mutex_unlock(all[held])
        continue
      }
      pthread_mutex_lock(registryLock)
      if locks.count == all.count { return }  // none registered meanwhile: every lock is held
      pthread_mutex_unlock(registryLock)
      for lock in all.reversed() { pthread_mutex_unlock(lock) }
    }
  }
}

private func prepareFork() {
  ForkSafeLocks.lockAll()
}

private func resumeParentAfterFork() {
  for lock in ForkSafeLocks.locks.reversed() { pthread_mutex_unlock(lock) }
  pthread_mutex_unlock(ForkSafeLocks.registryLock)
}

private func resetChildAfterFork() {
  // The child's only thread is the one that forked, which held every lock: make them anew. A
  // plain loop over a plain buffer (see `ForkSafeLocks.childLocks`): no metadata is made here.
  let locks = ForkSafeLocks.childLocks
  let count = ForkSafeLocks.childLockCount
  var index = 0
  while index < count {
    pthread_mutex_init(locks[index], nil)
    index &+= 1
  }
  pthread_mutex_init(ForkSafeLocks.registryLock, nil)
}
