import Dispatch
import Foundation
import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Testing

@testable import RetainGraphCensus

extension CensusTests {
  /// `HeapCensus.leaks()` (issue 31.1): every leaked cycle with no root, checked against the
  /// runtime (weak probes stay set: nothing can free them) and the twins that must not be reported.
  @Suite(.heapCensus) struct LeakCount {
    /// The cycles of `report` among the objects of `types` (other tests leave garbage too).
    static func cycles(_ report: LeakReport, of types: Set<String>) -> [LeakReport.LeakedCycle] {
      report.leaks.filter { !types.isDisjoint(with: $0.cycleTypes) }
    }

    @Test func aTwoObjectCycleIsReportedWithItsFix() throws {
      let mark = HeapCensus.mark()
      weak var probe: LeakParent?
      do { probe = makeLeakPair() }
      defer { probe?.child = nil }
      let report = try HeapCensus.leaks(since: mark)
      #expect(probe != nil, "the runtime keeps the pair alive")
      let found = Self.cycles(report, of: ["LeakParent"])
      try #require(found.count == 1, "\(report)")
      #expect(found[0].cycleTypes == ["LeakChild", "LeakParent"])
      #expect(found[0].objectCount == 2)
      #expect(found[0].fixes == ["make LeakChild.parent weak"])
      // The fix plan as values: the loop's references, the one to weaken, its idiom and place.
      let fix = try #require(found[0].sections.first?.fixes.first)
      #expect(found[0].sections.count == 1 && found[0].sections[0].fixes.count == 1)
      #expect(fix.path.map(\.label) == ["child", "parent"])
      #expect(fix.path.map(\.holder) == ["LeakParent", "LeakChild"])
      #expect(fix.path.allSatisfy { $0.kind == .property && $0.ownership == .strong })
      #expect(fix.brokenStep == 1 && fix.idiom == .backReference && fix.alternative == nil)
      #expect(fix.location?.file == "Tests/RetainGraphCensusTests/LeakFixtures.swift")
      #expect(
        withoutTestFileLines(found[0].trace) == """
          LeakParent
            ↓ child
          LeakChild
            ↓ parent   ← break this
          LeakParent (loop closes)
          fix: make LeakChild.parent weak — Tests/RetainGraphCensusTests/LeakFixtures.swift:#
          """)
    }

    @Test func theSignatureIsTheSameForTheSameShape() throws {
      let mark = HeapCensus.mark()
      weak var first: LeakParent?
      weak var second: LeakParent?
      do {
        first = makeLeakPair()
        second = makeLeakPair()
        second?.name = "another"
      }
      defer {
        first?.child = nil
        second?.child = nil
      }
      // One shape of two: the signature does not hold the name's value.
      let found = Self.cycles(try HeapCensus.leaks(since: mark), of: ["LeakParent"])
      try #require(found.count == 1)
      #expect(found[0].count == 2)
      #expect(
        found[0].signature.text == """
          object LeakChild
          object LeakParent
          reference LeakChild parent (strong) LeakParent
          reference LeakParent child (strong) LeakChild
          """)
      #expect(found[0].signature.description.count == 16)
    }

    /// The census's signature of a leaked cycle is the walk's (`Cycle.signature`) of the same
    /// objects, from either member, though the census's group also holds what only the cycle keeps
    /// alive (a `LeakList` the child keeps, which is no member).
    @Test func theSignatureIsTheWalkedCyclesSignature() throws {
      let mark = HeapCensus.mark()
      weak var parent: LeakParent?
      var walked: [CycleSignature] = []
      do {
        let made = makeLeakPair()
        made.child?.keeps = LeakList()
        parent = made
        walked.append(contentsOf: ObjectGraph(reflecting: made).cycles.map(\.signature))
        walked.append(contentsOf: ObjectGraph(reflecting: made.child as Any).cycles.map(\.signature))
      }
      defer { parent?.child = nil }
      let found = Self.cycles(try HeapCensus.leaks(since: mark), of: ["LeakParent"])
      try #require(found.count == 1 && walked.count == 2)
      #expect(found[0].objectCount == 3)
      #expect(walked[0] == walked[1])
      #expect(found[0].signature == walked[0], "\(found[0].signature.text)\n\(walked[0].text)")
      #expect(!found[0].signature.text.contains("LeakList"))
    }

    @Test func closuresCapturingSelfAreReported() throws {
      let mark = HeapCensus.mark()
      weak var onlySelf: LeakHandlerOwner?
      weak var withContext: LeakContextOwner?
      do {
        let owner = LeakHandlerOwner()
        owner.start()
        onlySelf = owner
        let other = LeakContextOwner()
        other.start(step: 3)
        withContext = other
      }
      defer {
        onlySelf?.handler = nil
        withContext?.handler = nil
      }
      let report = try HeapCensus.leaks(since: mark)
      #expect(onlySelf != nil && withContext != nil)
      let selfOnly = Self.cycles(report, of: ["LeakHandlerOwner"])
      try #require(selfOnly.count == 1, "\(report)")
      #expect(selfOnly[0].objectCount == 1)
      let context = Self.cycles(report, of: ["LeakContextOwner"])
      try #require(context.count == 1, "\(report)")
      #expect(context[0].objectCount == 2, "the owner and its closure's context")
      #expect(context[0].cycleTypes.contains { $0.hasPrefix("closure #1 in LeakContextOwner.start(step:)") })
    }

    @Test func cyclesThroughAnArrayAndADictionaryAreReported() throws {
      let mark = HeapCensus.mark()
      weak var list: LeakList?
      weak var registry: LeakRegistry?
      do {
        let newList = LeakList()
        for _ in 0..<3 {
          let item = LeakListItem()
          item.list = newList
          newList.items.append(item)
        }
        list = newList
        let newRegistry = LeakRegistry()
        for key in ["a", "b"] {
          let entry = LeakRegistryEntry()
          entry.registry = newRegistry
          newRegistry.entries[key] = entry
        }
        registry = newRegistry
      }
      defer {
        list?.items = []
        registry?.entries = [:]
      }
      let report = try HeapCensus.leaks(since: mark)
      #expect(list != nil && registry != nil)
      let arrays = Self.cycles(report, of: ["LeakList"])
      try #require(arrays.count == 1, "\(report)")
      #expect(arrays[0].cycleTypes.contains("LeakListItem"))
      let dictionaries = Self.cycles(report, of: ["LeakRegistry"])
      try #require(dictionaries.count == 1, "\(report)")
      #expect(dictionaries[0].cycleTypes.contains("LeakRegistryEntry"))
    }

    /// An array's storage asks `malloc` for room for its elements, and the standard library makes
    /// its capacity of whatever `malloc` gave (`malloc_usable_size`). Grown by code compiled with
    /// optimisation, which calls the allocator itself, the census records the size asked for, and an
    /// element appended later can lie past it. A holder's words are read up to what `malloc` gave:
    /// when they were read only up to the recorded size, such an element's reference counted as held
    /// from outside, and in a release build a sample's cycle (tool-host, network-completion) went
    /// unreported in about 1 run in 40, as malloc's state varied.
    @Test func aHoldersWordsAreReadUpToWhatMallocGaveIt() {
      let items = (0..<3).map { _ in LeakSlotItem() }
      var slots: [LeakSlot] = []
      slots.reserveCapacity(8)
      for item in items { slots.append(LeakSlot(item: item)) }
      let storage = slots.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) - 32 }
      // Recorded as a storage asked for two elements: the third lies past that size.
      var population = LeakSearch.Population()
      population.addresses = [storage]
      population.sizes = [32 + 2 * MemoryLayout<LeakSlot>.stride]
      var words = HolderWords()
      words.start(holder: 0, population: population)
      let addresses = items.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) }
      let taken = addresses.map { words.take($0) }
      #expect(taken == [true, true, true])
      // Each word is taken once: a second reference to the last item is not in the storage.
      let again = words.take(addresses[2])
      #expect(!again)
      withExtendedLifetime(slots) {}
    }

    @Test func cyclesHeldFromOutsideAreNotReported() throws {
      let mark = HeapCensus.mark()
      leakGlobalParent = makeLeakPair()
      let local = makeLeakPair()
      let unmanaged = Unmanaged.passRetained(makeLeakPair())
      let cStorage = UnsafeMutablePointer<LeakParent>.allocate(capacity: 1)
      cStorage.initialize(to: makeLeakPair())
      let queue = DispatchQueue(label: "leak-twin")
      queue.suspend()
      do {
        let queued = makeLeakPair()
        queue.async { queued.child = nil }
      }
      let unsafeParent = LeakUnsafeParent()
      unsafeParent.child = LeakUnsafeChild(parent: unsafeParent)
      defer {
        for parent in [leakGlobalParent, local, unmanaged.takeUnretainedValue(), cStorage.pointee] {
          parent?.child = nil
        }
        leakGlobalParent = nil
        unmanaged.release()
        cStorage.deinitialize(count: 1)
        cStorage.deallocate()
        queue.resume()
      }
      let report = try HeapCensus.leaks(since: mark)
      #expect(
        Self.cycles(report, of: ["LeakParent", "LeakUnsafeParent", "LeakUnsafeChild"]).isEmpty, "\(report)")
      withExtendedLifetime((local, unsafeParent)) {}
    }

    @Test func aCycleARunningTaskHoldsIsNotReported() async throws {
      let mark = HeapCensus.mark()
      let stop = LeakStopFlag()
      let (running, isRunning) = AsyncStream<Void>.makeStream()
      let task = Task.detached { [held = makeLeakPair()] in
        isRunning.yield()
        while !stop.isSet { try? await Task.sleep(for: .milliseconds(5)) }
        held.child = nil
      }
      // Counted once the task runs (it says so), holding the pair.
      var runs = running.makeAsyncIterator()
      await runs.next()
      let report = try HeapCensus.leaks(since: mark)
      stop.set()
      await task.value
      #expect(Self.cycles(report, of: ["LeakParent"]).isEmpty, "\(report)")
    }
  }
}

/// A flag a test sets once.
final class LeakStopFlag: @unchecked Sendable {
  private let lock = NSLock()
  private var value = false
  var isSet: Bool { lock.withLock { value } }
  func set() { lock.withLock { value = true } }
}

extension CensusTests.LeakCount {
  @Test func aReferenceInStorageTheCensusDoesNotSeeCountsAsOutsideAndIsSaidSo() throws {
    let mark = HeapCensus.mark()
    weak var probe: LeakBoxingOwner?
    do {
      let owner = LeakBoxingOwner()
      owner.payload = LeakLargePayload(owner: owner)
      probe = owner
    }
    defer { probe?.payload = nil }
    let report = try HeapCensus.leaks(since: mark)
    #expect(probe != nil, "the runtime keeps it alive")
    // The reference is in the existential's box, not in the owner's memory: not attributed.
    #expect(Self.cycles(report, of: ["LeakBoxingOwner"]).isEmpty, "\(report)")
    #expect(report.unexplained.references >= 1)
    #expect(report.unexplained.objectsKeptOut >= 1)
    // The objects kept out are named by type, most first (the whole process's: other types may
    // come first).
    #expect(!report.unexplained.keptOut.isEmpty)
    #expect(report.description.contains("not explained: "))
    #expect(report.description.contains("out of the leaks: \(report.unexplained.keptOut[0])"))
  }

  @Test func theReportTextIsEachCycleWithItsTraceAndFix() throws {
    let mark = HeapCensus.mark()
    weak var pair: LeakParent?
    weak var list: LeakList?
    weak var owner: LeakContextOwner?
    do {
      pair = makeLeakPair()
      let newList = LeakList()
      for _ in 0..<2 {
        let item = LeakListItem()
        item.list = newList
        newList.items.append(item)
      }
      list = newList
      let newOwner = LeakContextOwner()
      newOwner.start(step: 1)
      owner = newOwner
    }
    defer {
      pair?.child = nil
      list?.items = []
      owner?.handler = nil
    }
    let report = try HeapCensus.leaks(since: mark)
    let found = Self.cycles(report, of: ["LeakParent", "LeakList", "LeakContextOwner"])
    try #require(found.count == 3, "\(report)")
    // The whole text, with the counts of this process replaced by fixed ones.
    let shown = LeakReport(
      leaks: found, liveObjects: 12_345, leakedObjects: found.reduce(0) { $0 + $1.objectCount },
      unexplained: .init(
        references: 2, overcounted: 0, objectsKeptOut: 3,
        keptOut: ["LeakBoxingOwner × 2", "a closure context or box × 1"]))
    assertGolden(shown.description, named: "three-leaked-cycles")
    assertGolden(
      LeakReport(leaks: [], liveObjects: 7, leakedObjects: 0, unexplained: .init()).description,
      named: "no-leaked-cycles")
  }
}

extension CensusTests.LeakCount {
  @Test func aCycleHeldOnlyByAnotherLeakedCycleIsReportedToo() throws {
    let mark = HeapCensus.mark()
    weak var outer: LeakParent?
    weak var inner: LeakList?
    do {
      let parent = makeLeakPair()
      let list = LeakList()
      let item = LeakListItem()
      item.list = list
      list.items = [item]
      // The pair's child holds the list's cycle: an object only the pair keeps alive.
      parent.child?.keeps = list
      outer = parent
      inner = list
    }
    defer {
      outer?.child = nil
      inner?.items = []
    }
    let report = try HeapCensus.leaks(since: mark)
    #expect(outer != nil && inner != nil)
    #expect(Self.cycles(report, of: ["LeakParent"]).first?.objectCount == 2, "\(report)")
    #expect(Self.cycles(report, of: ["LeakParent"]).count == 1, "\(report)")
    #expect(Self.cycles(report, of: ["LeakList"]).count == 1, "\(report)")
  }
}

extension CensusTests {
  /// A leaked cycle's allocation site, when the census records call stacks (issue 31.1).
  @Suite(.heapCensus(recordingBacktraces: true)) struct LeakSites {
    @Test func aLeakedCycleNamesWhereItsOldestObjectWasAllocated() throws {
      let mark = HeapCensus.mark()
      weak var probe: LeakParent?
      do { probe = makeLeakPair() }
      defer { probe?.child = nil }
      let found = CensusTests.LeakCount.cycles(try HeapCensus.leaks(since: mark), of: ["LeakParent"])
      try #require(found.count == 1)
      let site = try #require(found[0].allocationSite)
      #expect(site.contains { $0.contains("makeLeakPair()") }, "\(site)")
    }
  }
}
