import Foundation
import RetainGraph
import RetainGraphCensus
import RetainGraphTestSupport
import RetainGraphTesting
import Synchronization
import Testing

/// Every census test takes its turn: the census is process-wide, and the one test that checks the
/// message given without a census must run while no other test has it started.
@Suite(.serialized) struct CensusTests {
  @Test func rootlessChecksSayHowToStartTheCensus() {
    #expect(!HeapCensus.isRunning)
    let expected =
      "assertNoGrowth without a root counts every live object in the process, which needs the heap census: "
      + "add `import RetainGraphCensus` to the test target and run the test under the census with the "
      + "`.heapCensus` trait, `HeapCensus.run { … }`, or `HeapCensus.start()` before the check."
    #expect(checkNoGrowth(iterations: 5) {}?.description == expected)
    #expect(
      checkInstances(of: CensusWidget.self, atMost: 0)?.description.hasPrefix(
        "assertInstances without a root") == true)
  }

  /// The census is process-wide: a test that did not ask for it does not use the one a parallel
  /// test started (its failure texts would depend on that test's timing).
  @Test func anotherTestsCensusIsNotThisTests() {
    let started = DispatchSemaphore(value: 0)
    let finish = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    Thread {
      HeapCensus.run {
        started.signal()
        finish.wait()
      }
      finished.signal()
    }.start()
    started.wait()
    #expect(HeapCensus.isRunning)
    #expect(
      checkInstances(of: CensusWidget.self, atMost: 0)?.description.hasPrefix(
        "assertInstances without a root counts")
        == true)
    HeapCensus.run { #expect(checkInstances(of: CensusWidget.self, atMost: 1_000_000) == nil) }
    finish.signal()
    finished.wait()
  }

  @Test func aStoppedCensusRecordsNothing() {
    #expect(!HeapCensus.isRunning)
    let mark = HeapCensus.mark()
    let unseen = (0..<5).map { _ in CensusWidget() }
    HeapCensus.run {
      #expect(HeapCensus.liveCount(of: CensusWidget.self, since: mark) == 0)
      let seen = CensusWidget()
      #expect(HeapCensus.liveCount(of: CensusWidget.self, since: mark) == 1)
      withExtendedLifetime(seen) {}
    }
    #expect(!HeapCensus.isRunning)
    withExtendedLifetime(unseen) {}
  }

  /// Call stacks are recorded while a start that asked for them is not stopped (each stop gives
  /// back what its start took), not until the census itself stops: a scope with backtraces inside
  /// one without, the same with `start` and `stop`, and a scope without inside a start with.
  @Test func backtracesEndWithTheStartThatAskedForThem() {
    #expect(!HeapCensus.isRunning)
    HeapCensus.run {
      HeapCensus.run(recordingBacktraces: true) {
        let traced = makeTracedWidget()
        #expect(HeapCensus.allocationBacktrace(of: traced) != nil)
      }
      let untraced = makeTracedWidget()
      #expect(HeapCensus.isRunning)
      #expect(HeapCensus.allocationBacktrace(of: untraced) == nil)
    }
    HeapCensus.start()
    HeapCensus.start(recordingBacktraces: true)
    let traced = makeTracedWidget()
    HeapCensus.stop()
    let untraced = makeTracedWidget()
    #expect(HeapCensus.isRunning)
    #expect(HeapCensus.allocationBacktrace(of: traced) != nil)
    #expect(HeapCensus.allocationBacktrace(of: untraced) == nil)
    HeapCensus.start(recordingBacktraces: true)
    HeapCensus.run {}
    let stillTraced = makeTracedWidget()
    #expect(HeapCensus.allocationBacktrace(of: stillTraced) != nil)
    HeapCensus.stop()
    HeapCensus.stop()
    #expect(!HeapCensus.isRunning)
    withExtendedLifetime((traced, untraced, stillTraced)) {}
  }

  /// Scopes started and stopped on two threads at once: each finds the census running for its
  /// whole scope (a start racing with the other thread's last stop used to see it turned off).
  @Test func scopesOnTwoThreadsEachRunTheCensus() {
    // Every last stop swept the whole table, whose cost grows with the chunks long-lived records
    // pin: in a whole-suite run 2 × 20,000 rounds took 343 s (8.6 ms a sweep); a stop now sweeps what
    // its run wrote and a slice (issue 39.4). 2 × 2,000 still race a start against the other
    // thread's last stop thousands of times.
    let rounds = 2_000
    let stopped = Atomic<Int>(0)
    let finished = DispatchGroup()
    for _ in 0..<2 {
      finished.enter()
      Thread {
        for _ in 0..<rounds {
          HeapCensus.run { if !HeapCensus.isRunning { stopped.add(1, ordering: .relaxed) } }
        }
        finished.leave()
      }.start()
    }
    finished.wait()
    #expect(stopped.load(ordering: .relaxed) == 0)
    #expect(!HeapCensus.isRunning)
  }

  @Suite(.heapCensus) struct Counting {
    @Test func countsAllocationsFromManyThreadsThroughTableGrowth() async {
      let mark = HeapCensus.mark()
      // 8 tasks × 20,000 short-lived objects: the table grows past several chunks and sweeps.
      let kept = await withTaskGroup(of: [CensusWidget].self) { group in
        for _ in 0..<8 {
          group.addTask {
            var kept: [CensusWidget] = []
            for index in 0..<20_000 {
              let widget = CensusWidget()
              if index % 100 == 0 { kept.append(widget) }
            }
            return kept
          }
        }
        var all: [CensusWidget] = []
        for await part in group { all += part }
        return all
      }
      #expect(kept.count == 1_600)
      #expect(HeapCensus.liveCount(of: CensusWidget.self, since: mark) == 1_600)
      withExtendedLifetime(kept) {}
    }

    /// A thread that allocates and drops objects one after another reuses their memory while the
    /// census runs: it forgets the dead among its previous 64 allocations when it starts the next
    /// 64, so their memory goes back to malloc at once (before, the census's unowned count kept
    /// each one until a sweep of the whole table, some 16,000 allocations later, and every
    /// allocation took new memory).
    @Test func droppedObjectsMemoryIsReusedAtOnce() {
      nonisolated(unsafe) var distinct = 0
      let done = DispatchSemaphore(value: 0)
      Thread {
        var addresses = Set<UInt>(minimumCapacity: 20_000)
        for _ in 0..<10_000 {
          let widget = CensusWidget()
          addresses.insert(UInt(bitPattern: ObjectIdentifier(widget)))
        }
        distinct = addresses.count
        done.signal()
      }.start()
      done.wait()
      // Without the per-batch sweep every object takes a new address (10,000). A batch whose sweep
      // finds the lock held (another thread's sweep, a query of a parallel test) keeps its 64 for
      // later: the bound leaves room for most batches to find it held.
      #expect(distinct < 5_000, "10,000 objects allocated and dropped one by one took \(distinct) addresses")
    }

    /// The sweep gives back its count on a dead object once, whoever else still refers to it: a
    /// weak reference (a side table), an `unowned` one (a second count, which keeps the memory:
    /// the walk must still find the reference dangling), or nothing (the memory goes with the
    /// census's count), from several threads and through several sweeps.
    @Test func sweepForgetsDeadObjectsStillReferredToWeaklyOrUnowned() async {
      let mark = HeapCensus.mark()
      let holders = await withTaskGroup(of: ([CensusUnownedHolder], [CensusWeakWidgetHolder]).self) { group in
        for _ in 0..<4 {
          group.addTask {
            var holders: ([CensusUnownedHolder], [CensusWeakWidgetHolder]) = ([], [])
            for index in 0..<30_000 {
              let widget = CensusWidget()
              if index % 1_000 == 0 { holders.0.append(CensusUnownedHolder(widget)) }
              if index % 1_000 == 500 { holders.1.append(CensusWeakWidgetHolder(widget)) }
            }
            return holders
          }
        }
        var all: ([CensusUnownedHolder], [CensusWeakWidgetHolder]) = ([], [])
        for await part in group {
          all.0 += part.0
          all.1 += part.1
        }
        return all
      }
      #expect(holders.0.count == 120 && holders.1.count == 120)
      #expect(HeapCensus.liveCount(of: CensusWidget.self, since: mark) == 0)
      // Swept again: each count was given back once (a second release of the census's count
      // would free the memory the holders' unowned counts keep).
      #expect(HeapCensus.liveCount(of: CensusWidget.self, since: mark) == 0)
      #expect(holders.1.allSatisfy { $0.widget == nil })
      for holder in holders.0 {
        #expect(ObjectGraph(reflecting: holder).danglingReferences.map(\.label) == ["widget"])
      }
    }

    /// A thread numbers its allocations from slots it reserves 64 at a time: one that allocated
    /// before a mark and allocates again after it (told so by the marking thread) gives its new
    /// objects numbers after the mark, not the rest of its earlier reservation.
    @Test func allocationsAfterAMarkOnAnotherThreadAreSinceIt() {
      let allocated = DispatchSemaphore(value: 0)
      let marked = DispatchSemaphore(value: 0)
      let finished = DispatchSemaphore(value: 0)
      nonisolated(unsafe) var early: [CensusWidget] = []
      nonisolated(unsafe) var late: [CensusWidget] = []
      let mark = HeapCensus.mark()
      Thread {
        early = (0..<3).map { _ in CensusWidget() }
        allocated.signal()
        marked.wait()
        late = (0..<5).map { _ in CensusWidget() }
        finished.signal()
      }.start()
      allocated.wait()
      let second = HeapCensus.mark()
      marked.signal()
      finished.wait()
      #expect(HeapCensus.liveCount(of: CensusWidget.self, since: mark) == 8)
      #expect(HeapCensus.liveCount(of: CensusWidget.self, since: second) == 5)
      let since = HeapCensus.liveObjects(of: CensusWidget.self, since: second)
      #expect(Set(since.map(ObjectIdentifier.init)) == Set(late.map(ObjectIdentifier.init)))
      withExtendedLifetime((early, late)) {}
    }

    @Test func isRunningUnderTheTrait() {
      #expect(HeapCensus.isAvailable)
      #expect(HeapCensus.isRunning)
      #expect(HeapCensus.unrecordedAllocations == 0)
    }

    @Test func countsLiveInstancesAndForgetsDeadOnes() {
      let mark = HeapCensus.mark()
      var widgets = (0..<7).map { _ in CensusWidget() }
      #expect(HeapCensus.liveCount(of: CensusWidget.self, since: mark) == 7)
      weak let probe = widgets[0]
      widgets.removeFirst(3)
      #expect(probe == nil)
      #expect(HeapCensus.liveCount(of: CensusWidget.self, since: mark) == 4)
      do {
        let live = HeapCensus.liveObjects(of: CensusWidget.self, since: mark)
        #expect(live.count == 4)
        #expect(Set(live.map(ObjectIdentifier.init)) == Set(widgets.map(ObjectIdentifier.init)))
      }
      widgets.removeAll()
      #expect(HeapCensus.liveCount(of: CensusWidget.self, since: mark) == 0)
    }

    @Test func countsSubclassesAndProtocols() {
      let mark = HeapCensus.mark()
      let objects: [CensusWidget] = [CensusWidget(), CensusSpecialWidget(), CensusSpecialWidget()]
      #expect(HeapCensus.liveCount(of: CensusWidget.self, since: mark) == 3)
      #expect(HeapCensus.liveCount(of: CensusSpecialWidget.self, since: mark) == 2)
      #expect(HeapCensus.liveCount(of: (any CensusSpecial).self, since: mark) == 2)
      #expect(HeapCensus.liveObjects(of: (any CensusSpecial).self, since: mark).count == 2)
      withExtendedLifetime(objects) {}
    }

    @Test func countsByType() {
      let mark = HeapCensus.mark()
      let widgets = (0..<3).map { _ in CensusWidget() }
      let counts = HeapCensus.liveCounts(since: mark)
      #expect(counts.first { $0.typeName == "RetainGraphCensusTests.CensusWidget" }?.count == 3)
      withExtendedLifetime(widgets) {}
    }

    @Test func failedInitialisersLeaveNoLiveRecord() {
      let mark = HeapCensus.mark()
      let made = (0..<3).map { CensusFailing(fail: $0 != 0) }
      #expect(made.compactMap(\.self).count == 1)
      #expect(HeapCensus.liveCount(of: CensusFailing.self, since: mark) == 1)
      #expect(HeapCensus.liveObjects(of: CensusFailing.self, since: mark).count == 1)
      // Release ends `made`'s lifetime at its last use, before the census counts.
      withExtendedLifetime(made) {}
    }

    @Test func closureContextsAreObjectsOfTheirOwn() {
      let mark = HeapCensus.mark()
      let widget = CensusWidget()
      let other = CensusWidget()
      let closure = { _ = (widget, other) }
      // At least this one: tests running in parallel allocate closure contexts of their own.
      let contexts = HeapCensus.liveCounts(since: mark).first { $0.typeName == "(closure context)" }?.count
      #expect((contexts ?? 0) >= 1)
      withExtendedLifetime(closure) {}
    }
  }

  @Suite(.heapCensus) struct Retainers {
    /// The heap-wide search in a forked child gives the same report as in this process.
    @Test func forkedSearchGivesTheSameReport() throws {
      CensusImageCache.shared.store(CensusImage(name: "isolated"))
      defer { CensusImageCache.shared.removeAll() }
      let image = try #require(CensusImageCache.shared.images.last)
      let inProcess = HeapCensus.retainers(of: image)
      let isolated = try HeapCensus.retainers(isolating: image)
      #expect(isolated == inProcess)
      #expect(isolated.holderPath == "CensusImageCache.shared.images[0]")
    }

    @Test func singletonSurvivorIsNamedByItsGlobal() throws {
      CensusImageCache.shared.store(CensusImage(name: "kept"))
      defer { CensusImageCache.shared.removeAll() }
      let report = HeapCensus.retainers(of: try #require(CensusImageCache.shared.images.last))
      #expect(report.origin == .global("CensusImageCache.shared"))
      #expect(report.holderPath == "CensusImageCache.shared.images[0]")
      assertGolden(report.descriptionWithoutCoincidences, named: "singleton")
      assertGolden(report.dot(), named: "singleton", pathExtension: "dot")
    }

    @Test func globalVariableIsNamed() {
      censusRegistry.presenters.append(CensusPresenter())
      defer { censusRegistry.presenters.removeAll() }
      let report = HeapCensus.retainers(of: censusRegistry.presenters[0])
      assertGolden(report.descriptionWithoutCoincidences, named: "global-variable")
    }

    @Test func weakReferencesAreListedButDoNotRetain() {
      let holder = CensusWeakHolder()
      let image = CensusImage(name: "watched")
      holder.watched = image
      CensusImageCache.shared.store(image)
      defer { CensusImageCache.shared.removeAll() }
      let report = HeapCensus.retainers(of: image)
      assertGolden(report.descriptionWithoutCoincidences, named: "weak-reference")
      withExtendedLifetime(holder) {}
    }

    @Test func holderTheCensusCannotSee() {
      // An unmanaged retain stands for C storage: the census sees the chain below it, not the holder.
      let hidden = Unmanaged.passRetained(CensusHidden())
      defer { hidden.release() }
      let report = HeapCensus.retainers(of: hidden.takeUnretainedValue().child)
      #expect(report.origin == .unseenHolder)
      assertGolden(report.descriptionWithoutCoincidences, named: "unseen-holder")
    }

    @Test func aNumberEqualToTheAddressIsOnlyNoted() {
      let hidden = Unmanaged.passRetained(CensusHidden())
      defer { hidden.release() }
      let child = hidden.takeUnretainedValue().child
      censusCoincidence = Int(bitPattern: Unmanaged.passUnretained(child).toOpaque())
      defer { censusCoincidence = 0 }
      let report = HeapCensus.retainers(of: child)
      // An `Int` cannot hold a reference: the global is noted, not taken for a holder.
      #expect(report.origin == .unseenHolder)
      // (Other images' words may equal it too: see `descriptionWithoutCoincidences`.)
      #expect(report.notes.contains(.wordInGlobal("censusCoincidence (a Swift.Int)")))
    }

    @Test func retainCycleWithNoOtherHolder() {
      weak var probe: CensusNode?
      do {
        let first = CensusNode()
        let second = CensusNode()
        first.next = second
        second.next = first
        probe = first
      }
      defer { probe?.next = nil }
      let leaked = HeapCensus.liveObjects(of: CensusNode.self).first { $0 === probe }
      let report = HeapCensus.retainers(of: try! #require(leaked))
      #expect(report.origin == .ownCycle)
      #expect(report.path.map(\.label) == ["next", "next"])
      assertGolden(report.descriptionWithoutCoincidences, named: "own-cycle")
      assertGolden(report.dot(), named: "own-cycle", pathExtension: "dot")
    }

    @Test func observerBlockInASingletonIsTracedThroughTheClosure() {
      let listener = CensusListener()
      listener.listen()
      defer { CensusNotifier.shared.blocks.removeAll() }
      let report = HeapCensus.retainers(of: listener)
      #expect(report.origin == .global("CensusNotifier.shared"))
      assertGolden(report.descriptionWithoutCoincidences, named: "observer-block")
    }

    @Test func observerHeldByNotificationCenter() {
      let observer = CensusObserver()
      observer.observe()
      defer { observer.token.map(NotificationCenter.default.removeObserver) }
      let report = HeapCensus.retainers(of: observer)
      // The center keeps its observers in a `Mutex` of private Foundation types: the walk reads it,
      // so the path runs from the center's global through the center to the observer's block.
      #expect(report.origin == .global("_defaultCenter"))
      assertGolden(report.descriptionWithoutCoincidences, named: "notification-center")
    }
  }

  @Suite(.heapCensus(recordingBacktraces: true)) struct Backtraces {
    @Test func allocationBacktraceNamesTheAllocatingFunction() throws {
      let widget = makeTracedWidget()
      let frames = try #require(HeapCensus.allocationBacktrace(of: widget))
      #expect(frames.contains { $0.contains("makeTracedWidget()") })
    }

    @Test func growthFailureSaysWhereTheLeakWasMade() throws {
      defer { CensusEventLog.shared.items.removeAll() }
      let failure = try #require(
        checkNoGrowth(iterations: 4) { CensusEventLog.shared.items.append(makeLeakyItem()) }
      ).description
      let lines = failure.split(separator: "\n").map(String.init)
      let index = try #require(lines.firstIndex { $0.hasPrefix("  CensusLeakyItem:") })
      #expect(lines[index + 1] == "    the newest instance is retained by CensusEventLog.shared.items[3]")
      #expect(lines[index + 2].hasPrefix("    allocated in "))
      #expect(lines[index + 2].contains("makeLeakyItem()"))
    }
  }

  @Suite(.heapCensus) struct Assertions {
    @Test func rootlessGrowthLeakIsCaught() throws {
      defer { CensusEventLog.shared.items.removeAll() }
      let failure = try #require(
        checkNoGrowth(iterations: 5) { CensusEventLog.shared.items.append(CensusLeakyItem()) }
      ).description
      let lines = failure.split(separator: "\n").map(String.init)
      #expect(
        lines.first?.hasSuffix(
          "over 5 runs of the scenario (runs 2–4 judged; the first and the last are ignored; objects allocated during the runs, as the heap census sees them):"
        ) == true)
      let index = try #require(lines.firstIndex { $0.hasPrefix("  CensusLeakyItem:") })
      #expect(
        lines[index...].prefix(2).joined(separator: "\n") == """
            CensusLeakyItem: 1, 2, 3, 4, 5 after each run
              the newest instance is retained by CensusEventLog.shared.items[4]
          """)
    }

    @Test func rootlessScenarioThatCleansUpPasses() {
      let failure = checkNoGrowth(iterations: 5) {
        let first = CensusTransient()
        first.next = CensusTransient()
      }?.description
      // Other tests run in parallel in this process: only this scenario's types are judged here.
      #expect(failure?.contains("CensusTransient") != true)
    }

    @Test func allowanceAcceptsBoundedSurvivors() {
      defer { CensusEventLog.shared.items.removeAll() }
      let failure = checkNoGrowth(iterations: 5, allowing: [.type(CensusLeakyItem.self, survivors: 0...5)]) {
        CensusEventLog.shared.items.append(CensusLeakyItem())
      }?.description
      #expect(failure?.contains("CensusLeakyItem") != true)
    }

    @Test func censusChecksNest() {
      let failure = checkNoGrowth(iterations: 4) {
        #expect(checkInstances(of: CensusXCWidget.self, atMost: 0) == nil)
      }?.description
      #expect(failure?.contains("CensusXCWidget") != true)
    }

    @Test func processWideInstanceLimit() throws {
      let widgets = (0..<3).map { _ in CensusWidget() }
      censusWidgets = widgets
      defer { censusWidgets = [] }
      #expect(checkInstances(of: CensusWidget.self, atMost: 3) == nil)
      let failure = try #require(checkInstances(of: CensusLeakedWidget.self, atMost: 0, making: 1))
        .description
      #expect(
        failure == """
          1 instance of CensusLeakedWidget alive in the process; at most 0 allowed. Retained by:
            censusLeakedWidgets[0]
          """)
    }

    @Test func assertNoLeaksNamesTheOutsideHolder() throws {
      defer { censusRegistry.presenters.removeAll() }
      let failure = try #require(
        checkNoLeaks(timeout: .milliseconds(20)) { () -> CensusScreen in
          let screen = CensusScreen()
          censusRegistry.presenters.append(screen.presenter)
          return screen
        }
      ).description
      #expect(
        failure.contains(
          "  CensusPresenter: retained from outside the graph, by censusRegistry.presenters[0]"))
    }

    @Test func assertDeallocatedNamesTheHolder() throws {
      defer { censusRegistry.presenters.removeAll() }
      let failure = try #require(
        checkDeallocated(timeout: .milliseconds(20)) { () -> CensusPresenter in
          let presenter = CensusPresenter()
          censusRegistry.presenters.append(presenter)
          return presenter
        }
      ).description
      #expect(
        failure.contains(
          "Why: no retain cycle keeps CensusPresenter alive; it is retained by censusRegistry.presenters[0].")
      )
    }
  }
}

// Not optimised: a release build compiles `return CensusWidget()` to a tail call, so the function's
// frame is gone from the stack when the runtime allocates and no backtrace can name it (the
// allocation is recorded as made by the caller); these fixtures keep their frame in both builds.
@_optimize(none)
func makeTracedWidget() -> CensusWidget { CensusWidget() }

@_optimize(none)
func makeLeakyItem() -> CensusLeakyItem { CensusLeakyItem() }

/// Makes `count` instances held by a global, then counts them process-wide.
func checkInstances<T>(of type: T.Type, atMost limit: Int, making count: Int) -> LeakCheckFailure? {
  censusLeakedWidgets = (0..<count).map { _ in CensusLeakedWidget() }
  defer { censusLeakedWidgets = [] }
  return checkInstances(of: type, atMost: limit)
}

extension RetainerReport {
  /// The description without the notes on words in other images' writable data that merely equal
  /// the object's address: which words those are depends on what else the process ran (Graphviz,
  /// used by tests running in parallel, keeps pointers to freed memory in its globals, and the
  /// allocator reuses that memory), not on the code under test.
  var descriptionWithoutCoincidences: String {
    description.split(separator: "\n", omittingEmptySubsequences: false)
      .filter { !($0.hasPrefix("Note: ") && $0.hasSuffix("(it may be a number, not a reference)")) }
      .joined(separator: "\n")
  }
}
