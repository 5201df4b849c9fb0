import Dispatch
import Foundation
import RetainGraph
import RetainGraphCensus
import RetainGraphTesting
import Testing

// MARK: - Fixtures

/// Starts a task nobody stores, which reads a stream the object owns: the task holds the object
/// until the stream ends.
final class FireAndForget: @unchecked Sendable {
  let feed: AsyncStream<Int>
  let continuation: AsyncStream<Int>.Continuation
  var handled = 0

  init() { (feed, continuation) = AsyncStream.makeStream() }

  // Not inlined, so that the task is started here in optimised builds too.
  @inline(never)
  func start() {
    Task {
      for await value in self.feed { self.handle(value) }
    }
  }

  @inline(never)
  func startDetached() {
    Task.detached {
      for await value in self.feed { self.handle(value) }
    }
  }

  func startWeakly() {
    Task { [weak self, feed] in
      for await value in feed { self?.handle(value) }
    }
  }

  func handle(_ value: Int) { handled += value }
}

/// Starts a task that finishes at once.
final class QuickTask: @unchecked Sendable {
  var handled = 0

  func start() -> Task<Void, Never> {
    Task { self.handled += 1 }
  }
}

/// Queues work an hour from now on its own queue.
final class DelayedWork: @unchecked Sendable {
  let queue: DispatchQueue
  var fired = 0

  init(queue: DispatchQueue) { self.queue = queue }

  func start() {
    queue.asyncAfter(deadline: .now() + 3600) { self.fire() }
  }

  func startNow() {
    queue.async { self.fire() }
  }

  func fire() { fired += 1 }
}

/// Keeps a work item whose block captures the owner.
final class StoredWorkItem: @unchecked Sendable {
  var item: DispatchWorkItem?
  var ran = 0

  func start() {
    item = DispatchWorkItem { self.run() }
  }

  func run() { ran += 1 }
}

/// Keeps a timer source whose handlers capture the owner: the source (C storage) keeps them until
/// it is cancelled.
final class TimerSourceOwner: @unchecked Sendable {
  var source: (any DispatchSourceTimer)?
  var fired = 0

  func start(qos: DispatchQoS = .unspecified) {
    let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "census.source"))
    source.schedule(deadline: .now() + 3600, repeating: 3600)
    source.setEventHandler(qos: qos) { self.fire() }
    source.resume()
    self.source = source
  }

  func fire() { fired += 1 }
}

/// Waits (up to 10 s) for `condition`, yielding (shared by the census's queued-work and
/// dispatch-source tests).
func eventually(_ condition: () -> Bool) async -> Bool {
  for _ in 0..<1_000 {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(10))
  }
  return condition()
}

// MARK: - Tests

extension CensusTests {
  /// Holders the census does not see as objects: running tasks (recorded when `swift_task_create`
  /// is given a closure) and the blocks Dispatch keeps for queued work.
  @Suite(.heapCensus) struct QueuedWork {
    @Test func unstoredTaskReadingAStreamIsNamed() async throws {
      weak var probe: FireAndForget?
      let continuation: AsyncStream<Int>.Continuation
      do {
        let object = FireAndForget()
        object.start()
        continuation = object.continuation
        probe = object
      }
      // The runtime keeps it: the task waits in `for await`, holding its closure's context.
      let object = try #require(probe)
      let report = HeapCensus.retainers(of: object)
      let holder = "running task started in FireAndForget.start() (closure #1 in FireAndForget.start())"
      #expect(report.origin == .runtimeHolder(holder))
      #expect(
        report.descriptionWithoutCoincidences == """
          FireAndForget is referenced by 1 holder:
            \(holder).capture 1
          Shortest retainer path, held by a \(holder):
            \(holder)
              ↓ capture 1
            FireAndForget
          """)
      // The forked search (fork handlers keep the census's lock for tasks and blocks usable there).
      // (Its notes may differ: a global word that merely equals the address, at one moment or the other.)
      let isolated = try HeapCensus.retainers(isolating: object)
      #expect(
        isolated.origin == report.origin && isolated.retainers == report.retainers
          && isolated.path == report.path)
      // The stream ends, so does the task: its closure context goes, and the object with it.
      continuation.finish()
      _ = consume object
      #expect(await eventually { probe == nil })
    }

    @Test func assertDeallocatedNamesTheRunningTask() async throws {
      var continuation: AsyncStream<Int>.Continuation?
      defer { continuation?.finish() }
      let failure = try #require(
        await checkDeallocated(timeout: .milliseconds(20)) { () -> FireAndForget in
          let object = FireAndForget()
          object.start()
          continuation = object.continuation
          return object
        }
      ).description
      #expect(
        failure.contains(
          "Why: no retain cycle keeps FireAndForget alive; it is retained by a running task started in "
            + "FireAndForget.start() (closure #1 in FireAndForget.start())."))
    }

    @Test func detachedTaskIsNamed() async throws {
      weak var probe: FireAndForget?
      let continuation: AsyncStream<Int>.Continuation
      do {
        let object = FireAndForget()
        object.startDetached()
        continuation = object.continuation
        probe = object
      }
      let object = try #require(probe)
      let report = HeapCensus.retainers(of: object)
      #expect(
        report.holderPath
          == "a running task started in FireAndForget.startDetached() (closure #1 in FireAndForget.startDetached())"
      )
      continuation.finish()
      _ = consume object
      #expect(await eventually { probe == nil })
    }

    @Test func taskHoldingSelfWeaklyIsNotAHolder() {
      let object = FireAndForget()
      object.startWeakly()
      let continuation = object.continuation
      defer { continuation.finish() }
      let report = HeapCensus.retainers(of: object)
      // The task's closure is seen (a weak reference), but it does not keep the object.
      #expect(report.origin == .none)
      #expect(report.retainers.allSatisfy { $0.ownership == .weak })
      weak let probe = object
      _ = consume object
      #expect(probe == nil)
    }

    @Test func finishedTaskHoldsNothing() async {
      let object = QuickTask()
      await object.start().value
      #expect(object.handled == 1)
      let report = HeapCensus.retainers(of: object)
      // Only this test's variable holds it now.
      #expect(report.origin == .none)
      #expect(!report.description.contains("running task"))
      weak let probe = object
      _ = consume object
      #expect(probe == nil)
    }

    @Test func blockQueuedWithAsyncAfterIsNamedByItsQueue() throws {
      weak var probe: DelayedWork?
      do {
        let object = DelayedWork(queue: DispatchQueue(label: "census.delayed"))
        object.start()
        probe = object
      }
      // Leaked for the hour the block waits: Dispatch holds the block, the block the object.
      let object = try #require(probe)
      let report = HeapCensus.retainers(of: object)
      let holder =
        #"block queued on DispatchQueue(label: "census.delayed") from closure #1 in DelayedWork.start()"#
      #expect(report.origin == .runtimeHolder(holder))
      #expect(
        report.descriptionWithoutCoincidences == """
          DelayedWork is referenced by 1 holder:
            \(holder).capture 0
          Shortest retainer path, held by a \(holder):
            \(holder)
              ↓ capture 0
            DelayedWork
          """)
      #expect(
        report.dot() == #"""
          digraph "retain-graph" {
            graph [rankdir=LR, charset="UTF-8", fontname="Helvetica", fontsize=12, labelloc=t, label="DelayedWork: shortest retainer path, held by a block queued on DispatchQueue(label: \"census.delayed\") from closure #1 in DelayedWork.start()", nodesep=0.35, ranksep=0.5, newrank=true];
            node [shape=box, style="rounded,filled", fillcolor="#f4f6f8", color="#4a5866", fontname="Helvetica", fontsize=11];
            edge [fontname="Helvetica", fontsize=10, color="#333333"];
            "n0" [label="DelayedWork", tooltip="DelayedWork", penwidth=2.5];
            "n1" [label="block queued on\nDispatchQueue(label:\n\"census.delayed\"… #1 in…", tooltip="block queued on DispatchQueue(label: \"census.delayed\") from closure #1 in DelayedWork.start()", shape=cds, style=filled, fillcolor="#fff4dd"];
            "n1" -> "n0" [label="capture 0"];
          }

          """#)
    }

    @Test func workThatRanHoldsNothing() {
      let object = DelayedWork(queue: DispatchQueue(label: "census.now"))
      object.startNow()
      object.queue.sync {}
      #expect(object.fired == 1)
      let report = HeapCensus.retainers(of: object)
      #expect(report.origin == .none)
      #expect(!report.description.contains("block"))
      weak let probe = object
      _ = consume object
      #expect(probe == nil)
    }

    @Test func storedWorkItemsBlockIsNamed() throws {
      weak var probe: StoredWorkItem?
      do {
        let object = StoredWorkItem()
        object.start()
        probe = object
      }
      // A cycle: the owner keeps the item, whose block keeps the owner. The walk reads the item's
      // block field (its closure's capture), and the census names the block it recorded.
      let object = try #require(probe)
      let report = HeapCensus.retainers(of: object)
      let holder = "DispatchWorkItem block from closure #1 in StoredWorkItem.start()"
      #expect(report.origin == .runtimeHolder(holder))
      #expect(
        report.descriptionWithoutCoincidences == """
          StoredWorkItem is referenced by 2 holders:
            DispatchWorkItem._block (closure) → capture 0
            \(holder).capture 0
          Shortest retainer path, held by a \(holder):
            \(holder)
              ↓ capture 0
            StoredWorkItem
          """)
      object.item = nil
      _ = consume object
      #expect(probe == nil)
    }

    @Test func workItemThatRanAndWasDroppedHoldsNothing() {
      let object = StoredWorkItem()
      let queue = DispatchQueue(label: "census.item")
      do {
        let item = DispatchWorkItem { object.run() }
        queue.async(execute: item)
        queue.sync {}
      }
      #expect(object.ran == 1)
      let report = HeapCensus.retainers(of: object)
      #expect(report.origin == .none)
      weak let probe = object
      _ = consume object
      #expect(probe == nil)
    }

    /// A dispatch source keeps its event handler until it is cancelled: the census names the
    /// handler (libdispatch's copy of the Swift block), with or without a DispatchWorkItem made
    /// for a QoS, and cancelling the source lets the owner go (weak probe).
    @Test(arguments: [DispatchQoS.unspecified, .utility])
    func sourceEventHandlerIsNamed(_ qos: DispatchQoS) async throws {
      weak var probe: TimerSourceOwner?
      let source: any DispatchSourceTimer
      do {
        let object = TimerSourceOwner()
        object.start(qos: qos)
        source = try #require(object.source)
        object.source = nil
        probe = object
      }
      let object = try #require(probe)
      let report = HeapCensus.retainers(of: object)
      let holder = "DispatchSource event handler from closure #1 in TimerSourceOwner.start(qos:)"
      #expect(report.origin == .runtimeHolder(holder), "\(report)")
      #expect(
        report.descriptionWithoutCoincidences == """
          TimerSourceOwner is referenced by 1 holder:
            \(holder).capture 0
          Shortest retainer path, held by a \(holder):
            \(holder)
              ↓ capture 0
            TimerSourceOwner
          """)
      _ = consume object
      source.cancel()
      #expect(await eventually { probe == nil })
    }
  }
}
