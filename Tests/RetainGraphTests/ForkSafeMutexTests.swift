import Foundation
import Testing

@testable import RetainGraph

/// The fork handlers take every `ForkSafeMutex` before a fork. A thread that holds one of them
/// while it makes a new one, or that takes two of them in the order opposite to the one they were
/// made in, must not deadlock with a fork (a census search, which makes a symbol table's lock
/// inside the symbol cache's lock, hung beside a forked walk: the test run then grew to 24 GB).
@Suite struct ForkSafeMutexTests {
  @Test func aForkWhileAThreadMakesALockInsideAnotherDoesNotDeadlock() async throws {
    let outer = ForkSafeMutex(0)
    try await expectForkCompletes {
      outer.withLock { value in
        Thread.sleep(forTimeInterval: 0.2)  // the fork's handlers start meanwhile
        value = ForkSafeMutex(1).withLock { $0 }
      }
    }
  }

  @Test func aForkWhileAThreadNestsLocksAgainstTheirOrderDoesNotDeadlock() async throws {
    let first = ForkSafeMutex(0)
    let second = ForkSafeMutex(0)
    try await expectForkCompletes {
      second.withLock { value in
        Thread.sleep(forTimeInterval: 0.2)
        value = first.withLock { $0 + 1 }
      }
    }
  }

  /// Runs `holder` on a thread and, 50 ms later, a forked walk on another; both must end within
  /// 90 seconds (a deadlock never ends).
  private func expectForkCompletes(_ holder: @escaping @Sendable () -> Void) async throws {
    let done = DispatchGroup()
    done.enter()
    Thread {
      holder()
      done.leave()
    }.start()
    try await Task.sleep(for: .milliseconds(50))
    done.enter()
    let forkResult = ForkResult()
    Thread {
      // A generous timeout: on a loaded machine forking this large test process and the child's
      // first page faults can take seconds; a deadlock never ends however long it is given.
      forkResult.set(
        Result { try ObjectGraph(snapshotting: [1, 2, 3] as [Int], timeout: .seconds(50)).nodeCount })
      done.leave()
    }.start()
    let waited = await onThread { done.wait(timeout: .now() + 90) }
    #expect(waited == .success, "the forked walk and the thread holding a lock deadlocked")
    if waited == .success { #expect(try forkResult.get().get() >= 1) }
  }
}

private final class ForkResult: @unchecked Sendable {
  private let lock = NSLock()
  private var result: Result<Int, any Error>?
  func set(_ value: Result<Int, any Error>) { lock.withLock { result = value } }
  func get() throws -> Result<Int, any Error> { try #require(lock.withLock { result }) }
}
