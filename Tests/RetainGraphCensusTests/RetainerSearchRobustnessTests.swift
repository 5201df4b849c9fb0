import Foundation
import RetainGraph
import RetainGraphCensus
import RetainGraphTestSupport
import RetainGraphTesting
import Testing

extension CensusTests {
  /// Searches in a process whose global storage the walk must not read by its declared type
  /// (issue 20.1): each of these killed the process with SIGSEGV before.
  @Suite(.heapCensus) struct Robustness {
    @Test func weakGlobalIsReadAsWeakStorage() {
      weak var probe: CensusSession?
      do {
        let session = CensusSession()
        session.onEnd = { _ = session }
        censusCurrentSession = session
        probe = session
        let report = HeapCensus.retainers(of: session)
        #expect(
          report.retainers.contains {
            $0.heldBy == .global(name: "censusCurrentSession") && $0.ownership == .weak
          })
        // Held only by its own cycle (the closure it stores captures it); the weak global is listed.
        #expect(report.origin == .ownCycle)
        assertGolden(report.descriptionWithoutCoincidences, named: "weak-global-own-cycle")
        session.onEnd = nil
      }
      // The runtime agrees: the global did not keep it.
      #expect(probe == nil)
      #expect(censusCurrentSession == nil)
    }

    @Test func danglingUnownedUnsafeGlobalIsNotFollowed() {
      do {
        let session = CensusSession()
        censusUnsafeSession = session
      }
      // The global now names freed memory: the search must not read it as a session.
      let plain = CensusWidget()
      let report = HeapCensus.retainers(of: plain)
      #expect(report.retainers.isEmpty)
      censusUnsafeSession = nil
      withExtendedLifetime(plain) {}
    }

    @Test func liveFoundationTimerDoesNotStopTheSearch() {
      let timer = Timer(timeInterval: 1, repeats: true) { _ in }
      defer { timer.invalidate() }
      let plain = CensusWidget()
      let report = HeapCensus.retainers(of: plain)
      #expect(report.retainers.isEmpty)
      #expect(report.origin == .none)
      // The timer's Core Foundation twin holds it in memory the walk does not read by type: a holder
      // seen only as a word, with a note.
      let timerReport = HeapCensus.retainers(of: timer)
      #expect(
        timerReport.retainers.contains { $0.heldBy == .object(typeName: "__NSCFType") && $0.isWordOnly })
      #expect(timerReport.notes.contains(.coreFoundationHolders))
      withExtendedLifetime(plain) {}
    }

    @Test func growthFailureWithALiveTimerIsReported() throws {
      let timer = Timer(timeInterval: 1, repeats: true) { _ in }
      RunLoop.current.add(timer, forMode: .default)
      defer {
        timer.invalidate()
        CensusEventLog.shared.items.removeAll()
      }
      let failure = try #require(
        checkNoGrowth(iterations: 5) { CensusEventLog.shared.items.append(CensusLeakyItem()) }
      ).description
      let lines = failure.split(separator: "\n").map(String.init)
      let index = try #require(lines.firstIndex { $0.hasPrefix("  CensusLeakyItem:") })
      #expect(
        lines[index...].prefix(2).joined(separator: "\n") == """
            CensusLeakyItem: 1, 2, 3, 4, 5 after each run
              the newest instance is retained by CensusEventLog.shared.items[4]
          """)
    }

    /// The objects Core Foundation makes have the classes `_NSCF…` and `__NSCF…`, whose declared
    /// (inherited) Swift fields are not in their memory: the walk does not read them by type.
    @Test func coreFoundationObjectsAreNotReadByTheirDeclaredFields() throws {
      let mark = HeapCensus.mark()
      let timer = Timer(timeInterval: 1, repeats: true) { _ in }
      RunLoop.current.add(timer, forMode: .default)
      defer { timer.invalidate() }
      let sets = HeapCensus.liveObjects(of: NSSet.self, since: mark).filter {
        "\(type(of: $0))" == "_NSCFSet"
      }
      try #require(!sets.isEmpty)
      for set in sets {
        let graph = ObjectGraph(reflecting: set)
        #expect(graph.nodeCount == 1)
        #expect(graph.walkNotes.map(\.kind) == [.unreadValue], "\(graph.walkNotes)")
        #expect(
          graph.walkNotes.map(\.description) == [
            "Foundation._NSCFSet: a Core Foundation object (its memory is laid out by CF, not by the class's "
              + "declared fields); what it holds is not read"
          ])
      }
    }

    /// Names that DOT would misread (a generic type's angle brackets) reach Graphviz escaped, by the
    /// package's one DOT quoting.
    @Test func genericHolderIsQuotedInDOT() {
      censusGenericBox.images.append(CensusImage(name: "boxed"))
      defer { censusGenericBox.images.removeAll() }
      let report = HeapCensus.retainers(of: censusGenericBox.images[0])
      #expect(report.holderPath == "censusGenericBox.images[0]")
      assertGolden(report.dot(), named: "generic-holder", pathExtension: "dot")
    }

    /// A closure the walk cannot reach (kept in words it reads as integers) is named by its
    /// function, found beside its context in the memory that holds it: never "(closure context)".
    @Test func unreachedClosureIsNamedByItsFunction() throws {
      weak var probe: CensusSlotListener?
      let slot = CensusOpaqueSlot()
      do {
        let listener = CensusSlotListener()
        listener.listen(on: slot)
        probe = listener
      }
      do {
        let listener = try #require(probe)
        let report = HeapCensus.retainers(of: listener)
        assertGolden(report.descriptionWithoutCoincidences, named: "unreached-closure")
      }
      // The runtime agrees that the slot's closure was what held it.
      slot.drop()
      #expect(probe == nil)
    }
  }
}
