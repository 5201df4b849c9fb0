import Foundation
import RetainGraphRuntime
import RetainGraphTestSupport
import Testing

@testable import RetainGraph

#if BinaryReaders
  import RetainGraphAsyncFrames
#endif

/// An owner of a task and whether the runtime keeps it alive after its release.
struct TaskScenario: Sendable, CustomTestStringConvertible {
  let name: String
  let leaks: Bool
  let make: @Sendable () async -> (AnyObject, StopTask)
  var testDescription: String { name }

  static let all: [TaskScenario] = [
    TaskScenario(name: "poller (sleep loop)", leaks: true) { await TaskPoller.make() },
    TaskScenario(name: "for await over an owned stream", leaks: true) {
      await StreamConsumer.make { $0.start() }
    },
    TaskScenario(name: "detached task", leaks: true) { await DetachedPoller.make() },
    TaskScenario(name: "actor's own task", leaks: true) { await TickerActor.make() },
    TaskScenario(name: "[weak self] unwrapped once, then for await", leaks: true) {
      await StreamConsumer.make({ $0.startUnwrappingOnce() }, elements: 1)
    },
    // A debug build leaves the strong self of the last element's iteration in the suspended
    // frame; the debug information says that slot's scope ended before the await (README.md in
    // RetainGraphRuntime, "Suspended frames").
    TaskScenario(name: "[weak self] re-checked per element", leaks: false) {
      await StreamConsumer.make({ $0.startRecheckingPerElement() }, elements: 2)
    },
    // The commonest spelling of the twin: `self?.total += value` leaves the strong result of the
    // weak load (an unnamed temporary) in a debug frame; the resume function's machine code
    // overwrites that word before reading it on every path (FrameLiveness).
    TaskScenario(name: "[weak self] re-checked per element with self?.", leaks: false) {
      await StreamConsumer.make({ $0.startOptionalChainingPerElement() }, elements: 2)
    },
    // A polling loop re-checking `[weak self]` per tick through a temporary.
    TaskScenario(name: "[weak self] polling loop re-checked per tick", leaks: false) {
      await WeakPoller.make()
    },
    // Not twins: the strong result of `self?` is a temporary (no variable) kept across the await.
    TaskScenario(name: "self?.total = await … holds self across the await", leaks: true) {
      await StreamConsumer.make({ $0.startAssigningAcrossAwait() }, elements: 1)
    },
    TaskScenario(name: "self?.add(await …) holds self across the await", leaks: true) {
      await StreamConsumer.make({ $0.startCallingAcrossAwait() }, elements: 1)
    },
    TaskScenario(name: "async let child's frame holds the owner", leaks: true) {
      await ChildTaskOwner.make { $0.startAsyncLet() }
    },
    TaskScenario(name: "task group children's frames hold the owner", leaks: true) {
      await ChildTaskOwner.make({ $0.startGroup() }, children: 2)
    },
    TaskScenario(name: "task group child re-reads a weak reference", leaks: false) {
      await ChildTaskOwner.make { $0.startGroupWeakly() }
    },
    TaskScenario(name: "task group child re-reads a weak reference through a temporary", leaks: false) {
      await ChildTaskOwner.make { $0.startGroupWeaklyThroughATemporary() }
    },
    TaskScenario(name: "finished task", leaks: false) {
      await StreamConsumer.make({ $0.startFinishing() }, finishing: true)
    },
    TaskScenario(name: "task cancelled and finished before its owner goes", leaks: false) {
      await TaskPoller.makeCancelled()
    },
  ]
}

@Suite("Tasks: what a task and its suspended frames hold")
struct TaskTests {
  // Needs the binary readers: frame liveness rules out stale frame words (BinaryReadersTests
  // checks the conservative answer without it).
  #if BinaryReaders
    /// The walk finds the cycle through the task exactly when the runtime keeps the owner alive
    /// after its release (weak probe), and reads every task without a note.
    @Test(arguments: TaskScenario.all)
    func cycleThroughTaskMatchesTheRuntime(_ scenario: TaskScenario) async throws {
      let (graph, probe, stop) = await walkAndRelease(scenario)
      defer { stop() }
      // A task that holds its owner only weakly lets it go at once; give the runtime a moment anyway.
      for _ in 0..<50 where probe.object != nil && !scenario.leaks {
        try await Task.sleep(for: .milliseconds(10))
      }
      #expect(graph.walkNotes == [], "\(graph.report())")
      #expect(graph.nodes.contains { $0.kind == .task }, "\(graph.report())")
      #expect((probe.object != nil) == scenario.leaks, "the runtime disagrees\n\(graph.report())")
      #expect(graph.predictedLeaks().contains(graph.root) == scenario.leaks, "\(graph.report())")
    }
  #endif

  @inline(never)
  private func walkAndRelease(_ scenario: TaskScenario) async -> (ObjectGraph, WeakProbe, StopTask) {
    let (root, stop) = await scenario.make()
    let graph = ObjectGraph(reflecting: root)
    return (graph, WeakProbe(root), stop)
  }

  // Needs the binary readers: it checks names read from the symbol tables (BinaryReadersTests

  // checks the names without them).
  #if BinaryReaders
    /// A task node is named by the closure it runs; it holds that closure's context until it
    /// finishes, and nothing after.
    @Test func taskNodeIsNamedByItsClosure() async {
      let (poller, stop) = await TaskPoller.make()
      defer { stop() }
      let graph = ObjectGraph(reflecting: poller)
      let task = try! #require(graph.nodes.first { $0.kind == .task })
      #expect(task.typeName == "task (closure #1 in RetainGraphTests.TaskPoller.start() -> ())")
      #expect(graph.edges.contains { $0.from == 0 && $0.to == task.id && $0.label == "task" })
      #expect(graph.edges.contains { $0.from == task.id && $0.label == "operation (closure)" })
    }
  #endif

  @Test func finishedTaskHoldsNothing() async {
    let (consumer, stop) = await StreamConsumer.make({ $0.startFinishing() }, finishing: true)
    defer { stop() }
    let graph = ObjectGraph(reflecting: consumer)
    let task = try! #require(graph.nodes.first { $0.kind == .task })
    #expect(task.typeName == "task (finished)")
    #expect(!graph.edges.contains { $0.from == task.id })
  }

  /// `[weak self]` unwrapped before the loop: the closure holds `self` weakly, the suspended
  /// frame strongly.
  @Test func suspendedFrameHoldsTheStrongSelf() async {
    let (consumer, stop) = await StreamConsumer.make({ $0.startUnwrappingOnce() }, elements: 1)
    defer { stop() }
    let graph = ObjectGraph(reflecting: consumer)
    let task = try! #require(graph.nodes.first { $0.kind == .task })
    let fromTask = graph.edges.filter { $0.from == task.id && $0.to == 0 }
    #expect(fromTask.map(\.label) == ["suspended frame"], "\(graph.edges)")
    #expect(fromTask.map(\.kind) == [.suspendedFrame])
  }

  // Needs the binary readers: frame liveness rules out stale frame words (BinaryReadersTests

  // checks the conservative answer without it).
  #if BinaryReaders
    /// The per-element twin's frame, in a debug build, still holds the strong `self` of the last
    /// element's iteration: a word equal to the consumer's address, in a slot the debug information
    /// says is dead where the closure is suspended. The unwrapped-once shape's strong `self` is in a
    /// live slot (its frame may also keep a stale copy, which the machine code rules out). An
    /// optimised build keeps no stale word (measured); then only the live one is seen.
    @Test func staleFrameWordIsADeadSlot() async {
      for (start, elements, holds) in [
        ({ (consumer: StreamConsumer) in consumer.startRecheckingPerElement() }, 2, false),
        ({ (consumer: StreamConsumer) in consumer.startUnwrappingOnce() }, 1, true),
      ] {
        let (owner, stop) = await StreamConsumer.make(start, elements: elements)
        defer { stop() }
        let consumer = owner as! StreamConsumer
        let task = unsafeBitCast(consumer.task!, to: UnsafeRawPointer.self)
        let address = UInt(bitPattern: Unmanaged.passUnretained(consumer).toOpaque())
        var slots: [UInt] = []
        TaskLayout.forEachFrameWord(ofTask: task) { slot, word in
          if word == address { slots.append(slot) }
          return true
        }
        let dead = TaskLayout.deadFrameSlots(ofTask: task)
        let live = slots.filter { !dead.contains($0) }
        #expect(live.isEmpty == !holds, "slots \(slots), dead \(dead)")
        #if DEBUG
          if !holds { #expect(slots.contains { dead.contains($0) }, "slots \(slots), dead \(dead)") }
        #endif
        withExtendedLifetime(consumer) {}
      }
    }
  #endif

  // Needs the binary readers: frame liveness rules out stale frame words (BinaryReadersTests

  // checks the conservative answer without it).
  #if BinaryReaders
    /// Why the debug information alone cannot rule out the `self?.` twin's stale word. Its frame
    /// keeps the stale strong `self` of the last element's `self?.total += value`; the frame of
    /// `self?.total = await …` keeps a live one across the await. Both are temporaries, in slots that
    /// no variable of the closure names in any of its partial functions, so the debug information
    /// cannot tell the stale word from the live one: ruling out every word outside a variable's slot
    /// would hide the second shape's leak. The runtime frees the first owner and keeps the second
    /// (`cycleThroughTaskMatchesTheRuntime`); the machine code tells them apart
    /// (`machineCodeTellsTheStaleTemporaryFromTheLiveOne`).
    @Test func temporariesLieOutsideEveryVariableSlot() async {
      for (start, elements, keeps) in [
        ({ (consumer: StreamConsumer) in consumer.startOptionalChainingPerElement() }, 2, false),
        ({ (consumer: StreamConsumer) in consumer.startAssigningAcrossAwait() }, 1, true),
      ] {
        let (owner, stop) = await StreamConsumer.make(start, elements: elements)
        defer { stop() }
        let consumer = owner as! StreamConsumer
        let task = unsafeBitCast(consumer.task!, to: UnsafeRawPointer.self)
        let address = UInt(bitPattern: Unmanaged.passUnretained(consumer).toOpaque())
        let frames = TaskLayout.frames(ofTask: task)
        // Each word equal to the consumer: its offset in its frame (the innermost context below it)
        // and the offsets of every variable that frame's function places in it.
        var words: [(offset: Int, variables: Set<Int>?)] = []
        TaskLayout.forEachFrameWord(ofTask: task) { slot, word in
          if word == address,
            let frame = frames.filter({ $0.context <= slot }).max(by: { $0.context < $1.context })
          {
            words.append(
              (Int(slot - frame.context), SymbolNames.frameOffsets(ofFunctionResumingAt: frame.resume)))
          }
          return true
        }
        #if DEBUG
          #expect(!words.isEmpty, "\(words)")
          for word in words {
            #expect(word.variables != nil && word.variables?.contains(word.offset) == false, "\(words)")
          }
        #else
          #expect(words.isEmpty == !keeps, "\(words)")
        #endif
        withExtendedLifetime(consumer) {}
      }
    }
  #endif

  // Reads the machine code (RetainGraphAsyncFrames): only in a build with the binary readers.
  #if BinaryReaders
    /// What the resume functions' machine code says of the words equal to the owner (FrameLiveness):
    /// every such word of the `self?.` twin's frames is dead (overwritten before it is read on every
    /// path from the resume point, or never read again before the frame is freed); some such word of
    /// `self?.total = await …` and of `self?.add(await …)` is live (read after the await). Checked in
    /// debug and release builds alike (a release frame of the twin holds no such word at all).
    @Test func machineCodeTellsTheStaleTemporaryFromTheLiveOne() async {
      for (start, elements, keeps) in [
        ({ (consumer: StreamConsumer) in consumer.startOptionalChainingPerElement() }, 2, false),
        ({ (consumer: StreamConsumer) in consumer.startAssigningAcrossAwait() }, 1, true),
        ({ (consumer: StreamConsumer) in consumer.startCallingAcrossAwait() }, 1, true),
      ] {
        let (owner, stop) = await StreamConsumer.make(start, elements: elements)
        defer { stop() }
        let consumer = owner as! StreamConsumer
        let task = unsafeBitCast(consumer.task!, to: UnsafeRawPointer.self)
        let address = UInt(bitPattern: Unmanaged.passUnretained(consumer).toOpaque())
        let frames = TaskLayout.frames(ofTask: task)
        var dead: Set<UInt> = []
        for (index, frame) in frames.enumerated() {
          for offset in FrameLiveness.deadOffsets(
            context: frame.context, resume: frame.resume, innermost: index == 0)
          {
            dead.insert(frame.context + UInt(offset))
          }
        }
        var slots: [UInt] = []
        TaskLayout.forEachFrameWord(ofTask: task) { slot, word in
          if word == address { slots.append(slot) }
          return true
        }
        let live = slots.filter { !dead.contains($0) }
        #expect(live.isEmpty == !keeps, "slots \(slots), dead \(dead)")
        #if arch(x86_64) && !canImport(ObjectiveC)
          // The closure's resume function is analysed (its figures are in the README).
          let closure = frames.first {
            SymbolNames.symbolName(at: $0.resume)?.contains("StreamConsumer") == true
          }
          #expect(closure.flatMap { FrameLiveness.analysis(resumingAt: $0.resume) } != nil, "\(frames)")
        #endif
        withExtendedLifetime(consumer) {}
      }
    }
  #endif

  // Needs the binary readers: it expects no note, and without them a graph with a closure notes

  // the names it did not read.
  #if BinaryReaders
    /// A suspended parent's child tasks are nodes: an `async let`'s and a task group's children,
    /// each named by the closure it runs, reached from the parent's task node.
    @Test func childTasksAreEdgesFromTheParent() async {
      for (start, label, count) in [
        ({ (owner: ChildTaskOwner) in owner.startAsyncLet() }, "async let task", 1),
        ({ (owner: ChildTaskOwner) in owner.startGroup(children: 3) }, "task group child", 3),
      ] {
        let (owner, stop) = await ChildTaskOwner.make(start, children: count)
        defer { stop() }
        let graph = ObjectGraph(reflecting: owner)
        let parent = try! #require(graph.edges.first { $0.from == 0 && $0.label == "task" }?.to)
        let children = graph.edges.filter { $0.from == parent && $0.label == label }
        #expect(children.count == count, "\(graph.report())")
        for child in children {
          #expect(graph.nodes[child.to].kind == .task)
          #expect(
            graph.nodes[child.to].typeName
              == (label == "async let task"
                ? "task (async let)"
                : "task (closure #1 in closure #1 in closure #1 in RetainGraphTests.ChildTaskOwner.startGroup(children: Swift.Int) -> ())")
          )
          #expect(graph.edges.contains { $0.from == child.to && $0.to == 0 && $0.kind == .suspendedFrame })
        }
        #expect(graph.walkNotes == [], "\(graph.report())")
        let fix = graph.cycles.first?.fixPlan.first?.fix
        #expect(
          fix
            == (label == "async let task"
              ? "the frame of the async let task of the task stored in ChildTaskOwner.task holds the ChildTaskOwner strongly across an await: re-check it after each await or cancel the task"
              : "the frame of a task group's child task of the task stored in ChildTaskOwner.task (closure #1 in closure #1 in closure #1 in ChildTaskOwner.startGroup(children:)) holds a strong self across an await: re-check `self` after each await or cancel the task (3 references: one in each of 3 tasks (closure #1 in closure #1 in closure #1 in ChildTaskOwner.startGroup(children:)))"),
          "\(graph.report())")
      }
    }
  #endif

  // Needs the binary readers: it checks names read from the symbol tables (BinaryReadersTests

  // checks the names without them).
  #if BinaryReaders
    /// The report and the picture of a cycle through a stored task, and of one through a suspended
    /// frame, compared whole.
    @Test func reportsAndPicturesNameTheTask() async {
      let (poller, stopPoller) = await TaskPoller.make()
      defer { stopPoller() }
      let pollerGraph = ObjectGraph(reflecting: poller)
      assertGolden(pollerGraph.report(), named: "poller.report")
      assertGolden(pollerGraph.dot(), named: "poller", pathExtension: "dot")
      let fix = pollerGraph.cycles.first?.fixPlan.first?.fix
      #expect(
        fix
          == "the task stored in TaskPoller.task runs closure #1 in TaskPoller.start(), which captures self strongly: capture `[weak self]` and re-check it after each await, or cancel the task when the TaskPoller is done (its deinit cannot run while the task holds it)"
      )

      let (consumer, stopConsumer) = await StreamConsumer.make({ $0.startUnwrappingOnce() }, elements: 1)
      defer { stopConsumer() }
      let frameGraph = ObjectGraph(reflecting: consumer)
      assertGolden(frameGraph.report(), named: "frame.report")
      assertGolden(frameGraph.dot(), named: "frame", pathExtension: "dot")
    }
  #endif

  /// A forked walk (19.6) reads a suspended task as the in-process walk does, and does not hang on
  /// a task that was running at the fork: it notes it instead.
  @Test func forkedWalkReadsTasks() async throws {
    let (poller, stop) = await TaskPoller.make()
    defer { stop() }
    let inProcess = ObjectGraph(reflecting: poller)
    let forked = try ObjectGraph(snapshotting: poller, timeout: .seconds(30))
    #expect(forked.nodes == inProcess.nodes)
    #expect(forked.edges == inProcess.edges)
    #expect(forked.walkNotes == inProcess.walkNotes)
  }

  @Test func runningTaskIsNotedNotRead() async throws {
    let (spinner, stop) = await Spinner.make()
    defer { stop() }
    for graph in [
      ObjectGraph(reflecting: spinner), try ObjectGraph(snapshotting: spinner, timeout: .seconds(30)),
    ] {
      #expect(
        graph.nodes.map(\.typeName) == ["RetainGraphTests.Spinner", "task (running)"], "\(graph.report())")
      // Without the binary readers the `Atomic` field cannot be told from a `Mutex` of a hidden
      // type (both are reported as `()`, their type named only by the symbol table): noted.
      #if BinaryReaders
        let unreadFields: [String] = []
      #else
        let unreadFields = [
          "RetainGraphTests.Spinner.ticks: a value of \(Metadata.unnamedHiddenType), which the runtime hides "
            + "from reflection, was not read; what it holds is not shown"
        ]
      #endif
      #expect(
        graph.walkNotes.map(\.description)
          == unreadFields + [
            "task (running): the task was running during the walk; what it holds (its closure's captures, its frames) was not read"
          ],
        "\(graph.report())")
    }
  }

  // Needs the binary readers: what it checks is found through symbols (hidden field types, key

  // path arguments, blocks, globals); without them it is noted unread.
  #if BinaryReaders
    /// A stored `DispatchWorkItem`: its block is read to the Swift closure it was made from, whose
    /// captures are edges; the cycle matches the runtime, and the `[weak self]` twin is not flagged.
    @Test(arguments: [("self only", 0), ("self and a value", 1), ("[weak self]", 2)])
    func workItemBlocksAreRead(_ name: String, _ shape: Int) {
      let (graph, probe) = walkAndReleaseWorkItem(shape)
      let leaks = shape != 2
      #expect(graph.walkNotes == [], "\(graph.report())")
      #expect(graph.predictedLeaks().contains(graph.root) == leaks, "\(graph.report())")
      #expect((probe.object != nil) == leaks, "the runtime disagrees\n\(graph.report())")
      if let owner = probe.object as? WorkItemOwner { owner.item = nil }
      if leaks {
        assertGolden(graph.report(), named: "work-item-\(shape).report")
      }
    }
  #endif

  @inline(never)
  private func walkAndReleaseWorkItem(_ shape: Int) -> (ObjectGraph, WeakProbe) {
    let owner = WorkItemOwner()
    switch shape {
    case 0: owner.start()
    case 1: owner.startNamed()
    default: owner.startWeak()
    }
    return (ObjectGraph(reflecting: owner), WeakProbe(owner))
  }
}
