import Foundation
import RetainGraphSupport
import Synchronization
import Testing

@testable import RetainGraph

/// The fork handlers take every `ForkSafeMutex` before a fork. A thread that holds one of them
/// while it makes a new one, or that takes two of them in the order opposite to the one they were
/// made in, must not deadlock with a fork (a census search, which makes a symbol table's lock
/// inside the symbol cache's lock, hung beside a forked walk: the test run then grew to 24 GB).
/// Serialized: the observer of busy locks is one for the process.
@Suite(.serialized) struct ForkSafeMutexTests {
  @Test func aForkWhileAThreadMakesALockInsideAnotherDoesNotDeadlock() async throws {
    let outer = ForkSafeMutex(0)
    try await expectForkCompletes(beside: outer) { forkWaits in
      outer.withLock { value in
        forkWaits()
        value = ForkSafeMutex(1).withLock { $0 }
      }
    }
  }

  @Test func aForkWhileAThreadNestsLocksAgainstTheirOrderDoesNotDeadlock() async throws {
    let first = ForkSafeMutex(0)
    let second = ForkSafeMutex(0)
    try await expectForkCompletes(beside: second) { forkWaits in
      second.withLock { value in
        forkWaits()
        value = first.withLock { $0 + 1 }
      }
    }
  }

  /// Runs `holder` on a thread and a forked walk on another; both must end within 250 seconds (a
  /// deadlock never ends). `holder` takes `busy` and calls the function it is given, which returns
  /// once the fork's handler found `busy` held and waits for it: the two always overlap (no
  /// ordering by sleeps, which a loaded machine does not keep). It returns after 240 s at most: the
  /// fork's handler may reach `busy` late on a loaded machine, after waiting for other locks (30 s,
  /// then 85 s were not enough, once each in a whole-suite run: another thread may hold the symbol
  /// cache's lock while it reads a large image's symbols), but never without the overlap.
  private func expectForkCompletes(
    beside busy: ForkSafeMutex<Int>, _ holder: @escaping @Sendable (_ forkWaits: () -> Void) -> Void
  ) async throws {
    let overlapped = DispatchSemaphore(value: 0)
    let address = UInt(bitPattern: busy.lockAddress)
    ForkSafeLocks.busyLockObserver.withLock {
      $0 = { lock in
        if UInt(bitPattern: lock) == address { overlapped.signal() }
      }
    }
    defer { ForkSafeLocks.busyLockObserver.withLock { $0 = nil } }
    let holding = DispatchSemaphore(value: 0)
    let sawOverlap = ForkResult()
    let done = DispatchGroup()
    done.enter()
    Thread {
      holder {
        holding.signal()
        sawOverlap.set(.success(overlapped.wait(timeout: .now() + 240) == .success ? 1 : 0))
      }
      done.leave()
    }.start()
    await onThread { holding.wait() }
    done.enter()
    let forkResult = ForkResult()
    Thread {
      // A generous timeout: on a loaded machine forking this large test process and the child's
      // first page faults can take seconds; a deadlock never ends however long it is given.
      forkResult.set(
        Result { try ObjectGraph(snapshotting: [1, 2, 3] as [Int], timeout: .seconds(50)).nodeCount })
      done.leave()
    }.start()
    let waited = await onThread { done.wait(timeout: .now() + 250) }
    #expect(waited == .success, "the forked walk and the thread holding a lock deadlocked")
    if waited == .success {
      #expect(try forkResult.get().get() >= 1)
      #expect(try sawOverlap.get().get() == 1, "the fork's handler waited for the held lock")
    }
  }
}

private final class ForkResult: @unchecked Sendable {
  private let lock = NSLock()
  private var result: Result<Int, any Error>?
  func set(_ value: Result<Int, any Error>) { lock.withLock { result = value } }
  func get() throws -> Result<Int, any Error> { try #require(lock.withLock { result }) }
}
