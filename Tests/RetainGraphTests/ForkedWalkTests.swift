import Foundation
import Glibc
import PropertyBased
import Samples
import Synchronization
import Testing

@testable import RetainGraph

@Suite("The forked walk")
struct ForkedWalkTests {
  // MARK: Same graph as the in-process walk

  @Test func everySampleMatchesTheInProcessWalk() throws {
    for sample in Sample.all {
      let instance = sample.make()
      defer { instance.breakCycles() }
      let inProcess = ObjectGraph(reflecting: instance.root)
      let forked = try ObjectGraph(snapshotting: instance.root)
      expectSameGraph(forked, inProcess, sample.name)
      #expect(forked.cycles.isEmpty != sample.hasCycle, "\(sample.name)")
    }
  }

  @Test func truncationDepthAndFiltersMatchTheInProcessWalk() throws {
    let instance = Sample.named("viper-module")?.make()
    defer { instance?.breakCycles() }
    let root = try #require(instance?.root)
    for options in [
      GraphOptions(maxNodes: 2), GraphOptions(maxDepth: 1), GraphOptions(includeClosures: false),
      GraphOptions(ignoredLabels: ["output"]),
    ] {
      let inProcess = ObjectGraph(reflecting: root, options: options)
      expectSameGraph(try ObjectGraph(snapshotting: root, options: options), inProcess, "\(options)")
    }
    #expect(try ObjectGraph(snapshotting: root, options: GraphOptions(maxNodes: 2)).isTruncated)
  }

  @Test func valueRootsClosuresAndIndexedLabelsMatchTheInProcessWalk() throws {
    let leaves = (0..<70_000).map { _ in Leaf() }
    let callback = Callback()
    let extra = Leaf()
    callback.action = { leaves.count + extra.value }
    let root: (items: [Leaf], callback: Callback, pair: WeakPair) = (
      leaves, callback, WeakPair(weak: leaves[0], unowned: leaves[1], strong: leaves[2])
    )
    let options = GraphOptions(maxNodes: 200_000)
    let inProcess = ObjectGraph(reflecting: root, options: options)
    let forked = try ObjectGraph(snapshotting: root, options: options)
    expectSameGraph(forked, inProcess, "tuple root")
    #expect(forked.node(0).kind == .value)
    #expect(forked.nodes.contains { $0.kind == .closure })
    #expect(forked.edges.contains { $0.label == "items[69999]" })
  }

  @Test func randomGraphsMatchTheInProcessWalk() async {
    await propertyCheck(count: 40, input: Gen.int(in: 1...150), Gen.uint64(in: 0...UInt64.max)) {
      count, seed in
      let all = RandomGraphTests.makeGraph(count: count, seed: seed)
      defer { for node in all { node.breakStrong() } }
      let inProcess = ObjectGraph(reflecting: all[0])
      do {
        expectSameGraph(try ObjectGraph(snapshotting: all[0]), inProcess, "seed \(seed), count \(count)")
      } catch {
        Issue.record("seed \(seed), count \(count): \(error)")
      }
    }
  }

  // MARK: Other threads mutating the graph

  /// How long the mutating-thread scenario runs: `RETAINGRAPH_SNAPSHOT_SECONDS` (default 2).
  static let mutationSeconds =
    ProcessInfo.processInfo.environment["RETAINGRAPH_SNAPSHOT_SECONDS"].flatMap(Double.init) ?? 2

  /// The root's type plan (and its fields') is made before the fork, so children inherit it.
  @Test func typePlansAreMadeBeforeTheFork() throws {
    #expect(!TypePlans.isMade(for: WarmRoot.self) && !TypePlans.isMade(for: WarmLeaf.self))
    _ = try ObjectGraph(snapshotting: WarmRoot())
    #expect(TypePlans.isMade(for: WarmRoot.self) && TypePlans.isMade(for: WarmLeaf.self))
  }

  @Test func snapshotsWhileAnotherThreadReplacesChildren() async {
    // Walked once in this process first, so that each child finds the type plans and the
    // runtime's caches for these types made: a child that must make them takes the runtime's locks,
    // and one that another test's thread held at the fork never comes free in the child (it then
    // times out: see `ForkedWalkError.timedOut`). This test is about mutation, not cold caches.
    _ = ObjectGraph(reflecting: Family(childCount: 1))
    let root = Family(childCount: 200)
    let stop = StopFlag()
    let mutator = Thread {
      var step = 0
      while !stop.isSet {
        root.children[step % 200] = Child(step)
        step += 1
      }
      stop.mutatorDone()
    }
    mutator.start()
    let box = UncheckedBox(root)
    let tally = await onThread { () -> ForkedWalkTally in
      var tally = ForkedWalkTally()
      let start = ContinuousClock.now
      while ContinuousClock.now - start < .seconds(Self.mutationSeconds) {
        do throws(ForkedWalkError) {
          let graph = try ObjectGraph(snapshotting: box.value, timeout: .seconds(10))
          tally.snapshots += 1
          let labels = Set(graph.edges.map(\.label))
          let consistent =
            graph.nodeCount == 201 && graph.edgeCount == 200 && graph.cycles.isEmpty
            && labels == Set((0..<200).map { "children[\($0)]" })
            && Set(graph.edges.map(\.to)).count == 200
            && graph.nodes.dropFirst().allSatisfy { $0.typeName.hasSuffix("Child") }
          if !consistent { tally.inconsistent += 1 }
        } catch {
          if case .childCrashed = error { tally.crashes += 1 }
          tally.failures += 1
          tally.firstError = tally.firstError ?? error.description
        }
      }
      return tally
    }
    stop.set()
    await stop.waitForMutator()
    print(
      "snapshotting under mutation: \(tally.snapshots) snapshots in \(Self.mutationSeconds) s, "
        + "\(tally.failures) failed, \(tally.crashes) child crashes, \(tally.inconsistent) inconsistent")
    #expect(tally.snapshots > 0)
    #expect(tally.failures == 0, "\(tally.firstError ?? "")")
    #expect(tally.crashes == 0)
    #expect(tally.inconsistent == 0)
  }

  // MARK: Failures of the child are typed errors with nothing left behind

  @Test func aCrashingChildIsATypedErrorAndIsReaped() async {
    let run = await runWithFault(.crash, timeout: .seconds(10))
    #expect(run.error == .childCrashed(signal: SIGSEGV))
    #expect(run.error?.description.contains("killed by signal 11 (SIGSEGV)") == true)
    expectNoLeftovers(run.trace)
  }

  @Test func aTrappingChildIsATypedError() async {
    let run = await runWithFault(.trap, timeout: .seconds(10))
    guard case .childCrashed(let signal)? = run.error else {
      Issue.record("expected a crash, got \(String(describing: run.error))")
      return
    }
    #expect(signal == SIGILL || signal == SIGTRAP)
    expectNoLeftovers(run.trace)
  }

  @Test func aHangingChildIsKilledAtTheTimeout() async {
    let run = await runWithFault(.hang(.seconds(60)), timeout: .milliseconds(300))
    // The child would sleep a minute: returning well before proves it was killed.
    #expect(run.elapsed < .seconds(30), "the child was not killed at the timeout")
    #expect(run.error == .timedOut(after: .milliseconds(300)))
    #expect(run.error?.description.contains("did not finish within 0.3 seconds and was killed") == true)
    expectNoLeftovers(run.trace)
  }

  @Test func aLockHeldByAnotherThreadAtTheForkHangsTheChildUntilTheTimeout() async {
    let locked = LockedChildren()
    let holding = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let holder = Thread {
      locked.lock.lock()
      holding.signal()
      release.wait()
      locked.lock.unlock()
    }
    holder.start()
    await onThread { holding.wait() }
    let box = UncheckedBox(locked)
    let run = await onThread { () -> FaultRun in
      var trace: ForkedChild.Trace?
      do throws(ForkedWalkError) {
        _ = try ObjectGraph(
          snapshotting: box.value, timeout: .milliseconds(300), childFault: nil, trace: { trace = $0 })
        return FaultRun(error: nil, trace: trace)
      } catch {
        return FaultRun(error: error, trace: trace)
      }
    }
    release.signal()
    #expect(run.error == .timedOut(after: .milliseconds(300)))
    expectNoLeftovers(run.trace)
    // In-process, with the lock free again, the same graph walks.
    #expect(ObjectGraph(reflecting: locked).nodeCount == 2)
  }

  @Test func aChildThatExitsEarlyIsATypedError() async {
    let run = await runWithFault(.exit(3), timeout: .seconds(10))
    #expect(run.error == .childExited(status: 3))
    #expect(run.error?.description.contains("exited with status 3") == true)
    expectNoLeftovers(run.trace)
  }

  @Test func aChildThatWritesGarbageIsATypedError() async {
    let run = await runWithFault(.bytes(Array("not a graph".utf8)), timeout: .seconds(10))
    guard case .malformedData(let what)? = run.error else {
      Issue.record("expected malformed data, got \(String(describing: run.error))")
      return
    }
    #expect(what.contains("the magic number RGTX is missing (at byte 0 of 11)"))
    expectNoLeftovers(run.trace)
  }

  @Test func theRunnerReturnsLargeAnswersExactly() throws {
    let size = 1 << 20 + 17  // many pipe buffers, not a multiple of any
    var expected = [UInt8](repeating: 0, count: size)
    for index in expected.indices { expected[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 9) }
    let bytes = try ForkedChild.run(timeout: .seconds(10)) { expected }
    #expect(bytes.count == size)
    #expect(bytes == expected)
    #expect(try ForkedChild.run(timeout: .seconds(10)) { [] } == [])
  }

  // MARK: The transfer form

  @Test func theTransferFormKeepsEveryPartOfAGraph() throws {
    let graph = try Self.smallGraph()
    expectSameGraph(try GraphTransfer.decode(GraphTransfer.encode(graph)), graph, "round trip")
  }

  @Test func everyTruncationOfTheTransferFormIsATypedError() throws {
    let bytes = GraphTransfer.encode(try Self.smallGraph())
    for length in 0..<bytes.count {
      #expect(throws: ForkedWalkError.self, "prefix of \(length) bytes") {
        try GraphTransfer.decode(Array(bytes[..<length]))
      }
    }
    #expect(throws: ForkedWalkError.self) { try GraphTransfer.decode(bytes + [0]) }
  }

  @Test func everyCorruptedByteIsATypedErrorOrAValidGraph() throws {
    let original = try Self.smallGraph()
    let bytes = GraphTransfer.encode(original)
    var decoded = 0
    var rejected = 0
    for position in bytes.indices {
      for replacement: UInt8 in [0x00, 0x01, 0x7F, 0x80, 0xFF, bytes[position] ^ 0x04] {
        var corrupted = bytes
        corrupted[position] = replacement
        do {
          let graph = try GraphTransfer.decode(corrupted)
          // Whatever was accepted is a whole graph: every part can be read.
          #expect(
            graph.edges.allSatisfy {
              graph.nodes.indices.contains($0.from) && graph.nodes.indices.contains($0.to)
            })
          #expect(graph.danglingReferences.allSatisfy { graph.nodes.indices.contains($0.holder) })
          _ = (graph.report(), graph.predictedLeaks(), graph.dot())
          decoded += 1
        } catch {
          rejected += 1
        }
      }
    }
    #expect(rejected > 0 && decoded > 0)
  }

  @Test func malformedMessagesNameWhatAndWhere() throws {
    var bytes = GraphTransfer.encode(try Self.smallGraph())
    bytes[4] = 9
    #expect(throws: ForkedWalkError.malformedData("version 9 is not 2 (at byte 4 of \(bytes.count))")) {
      try GraphTransfer.decode(bytes)
    }
    #expect(
      throws: ForkedWalkError.malformedData("the stream ends inside the version (at byte 4 of 6)")
    ) {
      try GraphTransfer.decode(Array(GraphTransfer.encode(try Self.smallGraph())[..<6]))
    }
  }

  /// Three nodes of each kind, an indexed label, every ownership, a dangling reference, a note,
  /// truncated.
  static func smallGraph() throws -> ObjectGraph {
    try ObjectGraph(
      nodes: [
        Node(id: 0, typeName: "App.Root", kind: .value), Node(id: 1, typeName: "App.Model", kind: .object),
        Node(id: 2, typeName: "closure #1 in App.Model.init()", kind: .closure),
      ],
      edges: [
        Edge(from: 0, to: 1, label: "items[3]", ownership: .strong),
        Edge(from: 1, to: 2, label: "handler", ownership: .strong),
        Edge(from: 2, to: 1, label: "handler (closure) → capture 0", ownership: .strong),
        Edge(from: 1, to: 1, label: "me", ownership: .weak),
        Edge(from: 2, to: 0, label: "é", ownership: .unowned),
        Edge(from: 1, to: 1, label: "raw", ownership: .unownedUnsafe),
      ],
      isTruncated: true,
      danglingReferences: [DanglingReference(holder: 1, label: "owner")],
      notes: ["App.Model: closure context layout not recognised"])
  }
}

// MARK: Helpers

func expectSameGraph(
  _ actual: ObjectGraph, _ expected: ObjectGraph, _ context: String,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(actual.root == expected.root, "\(context)", sourceLocation: sourceLocation)
  #expect(actual.nodes == expected.nodes, "\(context)", sourceLocation: sourceLocation)
  #expect(actual.edges == expected.edges, "\(context)", sourceLocation: sourceLocation)
  #expect(actual.isTruncated == expected.isTruncated, "\(context)", sourceLocation: sourceLocation)
  #expect(
    actual.danglingReferences == expected.danglingReferences, "\(context)", sourceLocation: sourceLocation)
  #expect(actual.notes == expected.notes, "\(context)", sourceLocation: sourceLocation)
  #expect(actual.cycles == expected.cycles, "\(context)", sourceLocation: sourceLocation)
  #expect(actual.report() == expected.report(), "\(context)", sourceLocation: sourceLocation)
}

/// The pipe is closed in this process and the child is gone: reaped, not a zombie.
func expectNoLeftovers(_ trace: ForkedChild.Trace?, sourceLocation: SourceLocation = #_sourceLocation) {
  guard let trace else {
    Issue.record("the run reported no child", sourceLocation: sourceLocation)
    return
  }
  let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
  #expect(!descriptors.isEmpty, sourceLocation: sourceLocation)
  let pipe = "pipe:[\(trace.pipeInode)]"
  let open = descriptors.filter {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == pipe
  }
  #expect(
    open.isEmpty, "descriptors \(open) still refer to the snapshot's pipe", sourceLocation: sourceLocation)
  var status: Int32 = 0
  #expect(waitpid(trace.pid, &status, WNOHANG) == -1 && errno == ECHILD, sourceLocation: sourceLocation)
  // kill(pid, 0) succeeds for a zombie too: ESRCH means no process at all.
  #expect(kill(trace.pid, 0) == -1 && errno == ESRCH, sourceLocation: sourceLocation)
}

struct FaultRun: Sendable {
  var error: ForkedWalkError?
  var trace: ForkedChild.Trace?
  /// How long the call took, measured on its own thread.
  var elapsed: Duration = .zero
}

/// Snapshots a small graph with the child told to fail, on a thread of its own.
func runWithFault(_ fault: ObjectGraph.ForkedChildFault, timeout: Duration) async -> FaultRun {
  await onThread {
    var trace: ForkedChild.Trace?
    let start = ContinuousClock.now
    do throws(ForkedWalkError) {
      _ = try ObjectGraph(snapshotting: Holder(Leaf()), timeout: timeout, childFault: fault) { trace = $0 }
      return FaultRun(error: nil, trace: trace, elapsed: ContinuousClock.now - start)
    } catch {
      return FaultRun(error: error, trace: trace, elapsed: ContinuousClock.now - start)
    }
  }
}

/// Runs `body` on a thread of its own, so that a blocking call does not hold a thread of the
/// concurrency pool.
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
    Thread { done.resume(returning: body()) }.start()
  }
}

struct ForkedWalkTally: Sendable {
  var snapshots = 0
  var failures = 0
  var crashes = 0
  var inconsistent = 0
  var firstError: String?
}

final class Callback {
  var action: () -> Int = { 0 }
}

final class Child {
  let step: Int
  init(_ step: Int) { self.step = step }
}

final class Family: @unchecked Sendable {
  var children: [Child]
  init(childCount: Int) { children = (0..<childCount).map(Child.init) }
}

final class StopFlag: Sendable {
  private let stopped = Atomic<Bool>(false)
  private let done = DispatchSemaphore(value: 0)
  var isSet: Bool { stopped.load(ordering: .acquiring) }
  func set() { stopped.store(true, ordering: .releasing) }
  func mutatorDone() { done.signal() }
  func waitForMutator() async { await onThread { self.done.wait() } }
}

/// A type whose description of its references takes a lock.
final class LockedChildren: GraphReflectable, @unchecked Sendable {
  let lock = NSLock()
  let leaf = Leaf()
  var graphChildren: [GraphChild] {
    lock.lock()
    defer { lock.unlock() }
    return [.strong("leaf", leaf)]
  }
}

/// Snapshotted once, and walked nowhere else.
final class WarmRoot {
  var leaves = [WarmLeaf(), WarmLeaf()]
}
final class WarmLeaf {
  weak var root: WarmRoot?
}
