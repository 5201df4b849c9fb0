import Foundation
import RetainGraph
import RetainGraphCensus
import RetainGraphTesting
import Testing

/// Starts a task nobody stores whose child (a task group's, or an `async let`) reads a stream the
/// object owns, holding the object until the stream ends.
final class ChildTaskStarter: @unchecked Sendable {
  let feed: AsyncStream<Int>
  let continuation: AsyncStream<Int>.Continuation
  /// Yields once the child reads the feed: the test waits for it, no longer.
  let started: AsyncStream<Void>
  private let startedContinuation: AsyncStream<Void>.Continuation
  var handled = 0

  init() {
    (feed, continuation) = AsyncStream.makeStream()
    (started, startedContinuation) = AsyncStream.makeStream()
  }

  @inline(never)
  func startGroup() {
    Task {
      await withTaskGroup(of: Void.self) { group in
        group.addTask { await self.read() }
        await group.waitForAll()
      }
    }
  }

  @inline(never)
  func startAsyncLet() {
    Task {
      async let reading: Void = self.read()
      await reading
    }
  }

  func read() async {
    startedContinuation.yield()
    startedContinuation.finish()
    for await value in feed { handled += value }
  }
}

extension CensusTests {
  /// What the census names for child tasks (issue 19.1): a task group's child is created through
  /// `swift_task_create` and recorded like any task, so its closure is a holder beside the parent's;
  /// an `async let`'s child is created inside the concurrency runtime (`swift_asyncLet_begin`), which
  /// the census does not see, so only the parent task (whose closure captured the object for the
  /// child) is named.
  @Suite(.heapCensus) struct ChildTasks {
    @Test(arguments: ["startGroup", "startAsyncLet"])
    func childTaskHoldersAreNamed(_ start: String) async throws {
      weak var probe: ChildTaskStarter?
      let continuation: AsyncStream<Int>.Continuation
      do {
        let object = ChildTaskStarter()
        if start == "startGroup" { object.startGroup() } else { object.startAsyncLet() }
        var started = object.started.makeAsyncIterator()
        _ = await started.next()
        continuation = object.continuation
        probe = object
      }
      let object = try #require(probe)
      let report = HeapCensus.retainers(of: object)
      let parent =
        "running task started in ChildTaskStarter.\(start)() (closure #1 in ChildTaskStarter.\(start)())"
      let holders = Set(report.retainers.map(\.heldBy))
      if start == "startGroup" {
        // The child is started by `group.addTask` in the group's body closure, which an optimised
        // build inlines into the task's closure.
        #if DEBUG
          let groupBody = "closure #1 in closure #1 in ChildTaskStarter.startGroup()"
        #else
          let groupBody = "closure #1 in ChildTaskStarter.startGroup()"
        #endif
        let child =
          "running task started in \(groupBody) (closure #1 in closure #1 in closure #1 in ChildTaskStarter.startGroup())"
        #expect(holders == [.runtimeHolder(name: parent), .runtimeHolder(name: child)], "\(report)")
        // Both hold it directly: the path starts at either (a tie between two recorded tasks).
        #expect([.runtimeHolder(parent), .runtimeHolder(child)].contains(report.origin), "\(report)")
      } else {
        #expect(holders == [.runtimeHolder(name: parent)], "\(report)")
        #expect(report.origin == .runtimeHolder(parent), "\(report)")
      }
      // The stream ends, so do the child and its parent: the object goes.
      continuation.finish()
      _ = consume object
      for _ in 0..<500 where probe != nil { try await Task.sleep(for: .milliseconds(10)) }
      #expect(probe == nil)
    }
  }
}
