import Foundation
import RetainGraphTestSupport
import Testing

@testable import RetainGraph

/// An actor whose task's closure does not hold it: `[weak self]` re-checked after each sleep.
actor WeakTickerActor {
  var task: Task<Void, Never>?
  var ticks = 0
  func start() {
    task = Task { [weak self] in
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(3600))
        await self?.tick()
      }
    }
  }
  func tick() { ticks += 1 }
}

/// The same with the actor reached before the first sleep: `await self?.tick()` leaves the strong
/// result of `self?` (an unnamed temporary) in the suspended frame after the call returns, in debug
/// and optimised builds; the resume function's machine code overwrites it before reading it.
actor TickingFirstActor {
  var task: Task<Void, Never>?
  var ticks = 0
  func start() {
    task = Task { [weak self] in
      while !Task.isCancelled {
        await self?.tick()
        try? await Task.sleep(for: .seconds(3600))
      }
    }
  }
  func tick() { ticks += 1 }
}

/// An actor-isolated closure holds its actor twice, as `self` and as the isolation it runs on
/// (`(any Actor)?`); one edit, `[weak self]`, removes both, so the advice counts one fix.
@Suite("An actor's task holds the actor as self and as its isolation")
struct ActorIsolationTests {
  // Needs the binary readers: it checks names read from the symbol tables (BinaryReadersTests
  // checks the names without them).
  #if BinaryReaders
    @Test func theIsolationCaptureIsLabelledAndShareTheFixOfSelf() async throws {
      let (ticker, stop) = await TickerActor.make()
      defer { stop() }
      let graph = ObjectGraph(reflecting: ticker)
      let closure = try #require(graph.nodes.first { $0.kind == .closure })
      let captures = graph.edges.filter { $0.from == closure.id && $0.to == graph.root }
      #expect(captures.map(\.label).sorted() == ["capture 0 (actor isolation)", "capture 1"])
      #expect(Set(captures.map(\.kind)) == [.actorIsolation(index: 0), .capture(index: 1)])
      let cycle = try #require(graph.cycles.first)
      #expect(graph.cycles.count == 1)
      #expect(cycle.fixPlan.count == 1, "\(graph.report())")
      #expect(cycle.referencesToWeaken == 2)
      let fix = try #require(cycle.fixPlan.first)
      #expect(fix.edges.map(\.label) == ["capture 1", "capture 0 (actor isolation)"])
      #expect(
        fix.fix.hasSuffix("(2 references: capture 1, and capture 0 as the actor it runs on)"), "\(fix.fix)")
      // The advice is the one edit (a task's, said whole); the fix adds how many references it
      // weakens, and which.
      guard case .sentence(let sentence) = fix.advice else {
        Issue.record("not a task's advice: \(fix.advice)")
        return
      }
      #expect(sentence.hasPrefix("the task stored in TickerActor.task runs closure #1 in "), "\(sentence)")
      #expect(fix.fix == "\(fix.advice) (2 references: capture 1, and capture 0 as the actor it runs on)")
      #expect(graph.report().contains("1 fix (2 references) to weaken"), "\(graph.report())")
    }
  #endif

  /// A snapshot keeps the isolation capture's kind, so the plan read from JSON (or from a forked
  /// walk) is the plan walked.
  @Test func theSnapshotKeepsTheOneFix() async throws {
    let (ticker, stop) = await TickerActor.make()
    defer { stop() }
    let graph = ObjectGraph(reflecting: ticker)
    let read = try ObjectGraph(jsonData: graph.jsonData())
    #expect(read.cycles.map(\.fixPlan.count) == [1])
    #expect(read.report() == graph.report())
    // The forked walk's transfer keeps the kind too.
    let forked = try ObjectGraph(snapshotting: ticker)
    #expect(forked.edges.contains { $0.kind == .actorIsolation(index: 0) })
    #expect(forked.report() == graph.report())
  }

  /// The one edit the advice names frees the actor: with `[weak self]`, the runtime releases it.
  @Test func weakSelfFreesTheActor() async throws {
    var probe: WeakProbe?
    var task: Task<Void, Never>?
    do {
      let ticker = WeakTickerActor()
      await ticker.start()
      probe = WeakProbe(ticker)
      task = await ticker.task
    }
    if let task { await waitUntilSettled(task) }
    defer { task?.cancel() }
    for _ in 0..<100 where probe?.object != nil { try await Task.sleep(for: .milliseconds(10)) }
    #expect(probe?.object == nil)
  }

  // Needs the binary readers: frame liveness rules out stale frame words (BinaryReadersTests

  // checks the conservative answer without it).
  #if BinaryReaders
    /// After `await self?.tick()` returns, the frame slot of the temporary still holds the actor's
    /// address (a released reference), in debug and optimised builds alike; no variable is there and
    /// the actor's reference count cannot say either. The resume function's machine code stores to
    /// that slot before reading it on every path (or loops back to the sleep, or returns), so the word
    /// is not an edge (FrameLiveness): no cycle, as the runtime, which frees the actor, says.
    @Test func aStaleTemporaryAfterTheActorCallIsNotAnEdge() async throws {
      var probe: WeakProbe?
      var task: Task<Void, Never>?
      var flagged = false
      var report = ""
      do {
        let ticker = TickingFirstActor()
        await ticker.start()
        task = await ticker.task
        for _ in 0..<200 where await ticker.ticks == 0 { try await Task.sleep(for: .milliseconds(5)) }
        if let task { await waitUntilSettled(task) }
        probe = WeakProbe(ticker)
        let graph = ObjectGraph(reflecting: ticker)
        flagged = !graph.cycles.isEmpty
        report = graph.report()
        #expect(graph.nodes.contains { $0.kind == .task }, "\(report)")
      }
      defer { task?.cancel() }
      for _ in 0..<100 where probe?.object != nil { try await Task.sleep(for: .milliseconds(10)) }
      #expect(probe?.object == nil, "the runtime keeps the actor")
      #expect(!flagged, "\(report)")
    }
  #endif
}
