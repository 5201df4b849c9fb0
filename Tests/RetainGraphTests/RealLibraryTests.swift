import Foundation
import OpenCombine
import RetainGraphTestSupport
import Testing

@testable import RetainGraph

/// A view model that binds a subject to itself with `assign(to:on:)`, which retains the object it
/// assigns to: subject → subscription → `Map`'s `Inner` (whose mirror hides its downstream) →
/// `Assign` → the view model → its cancellables → the subscription.
final class CombineViewModel {
  let prices = PassthroughSubject<Int, Never>()
  var doubled = 0
  var cancellables = Set<AnyCancellable>()

  static func make() -> CombineViewModel {
    let model = CombineViewModel()
    model.prices.map { $0 * 2 }.assign(to: \.doubled, on: model).store(in: &model.cancellables)
    return model
  }

  /// The same with a closure that captures `self` weakly: no cycle.
  static func makeFixed() -> CombineViewModel {
    let model = CombineViewModel()
    model.prices.map { $0 * 2 }.sink { [weak model] in model?.doubled = $0 }.store(in: &model.cancellables)
    return model
  }
}

/// A class whose cancellable captures it strongly in `sink`.
final class SinkViewModel {
  let prices = CurrentValueSubject<Int, Never>(1)
  var last = 0
  var cancellable: AnyCancellable?

  static func make() -> SinkViewModel {
    let model = SinkViewModel()
    model.cancellable = model.prices.filter { $0 > 0 }.sink { model.last = $0 }
    return model
  }
}

@Suite("Real libraries: OpenCombine")
struct RealLibraryTests {
  // Needs the binary readers: it expects no note, and without them a graph with a closure notes
  // the names it did not read.
  #if BinaryReaders
    /// The cycle the runtime confirms is found, through OpenCombine's own operator structs.
    @Test func assignOnSelfIsACycleTheRuntimeConfirms() throws {
      let (graph, probe) = Self.walkAndRelease(CombineViewModel.make)
      #expect(probe.object != nil, "the runtime freed the view model")
      #expect(graph.predictedLeaks().contains(graph.root), "\(graph.report())")
      #expect(graph.walkNotes == [])
      let cycle = try #require(graph.cycles.first { $0.members.contains(graph.root) })
      // The break is the reference the app handed OpenCombine (`on: model`), not one of the
      // library's own loops (subject ↔ subscription), which are left to it.
      #expect(cycle.fixPlan.map(\.idiom) == [.libraryReference])
      #expect(
        cycle.fixPlan.map { "\(graph.node($0.edge.from).shortTypeName).\($0.edge.label)" } == [
          "Assign<CombineViewModel, Int>.object"
        ])
      #expect(!cycle.libraryLoopMembers.isEmpty && !cycle.libraryLoopMembers.contains(graph.root))
      assertGolden(graph.report(), named: "opencombine-assign.report")
      (probe.object as? CombineViewModel)?.cancellables.removeAll()
    }
  #endif

  // Needs the binary readers: it expects no note, and without them a graph with a closure notes

  // the names it did not read.
  #if BinaryReaders
    @Test func sinkCapturingSelfIsACycleTheRuntimeConfirms() {
      let (graph, probe) = Self.walkAndRelease(SinkViewModel.make)
      #expect(probe.object != nil)
      #expect(graph.predictedLeaks().contains(graph.root), "\(graph.report())")
      #expect(graph.walkNotes == [])
      // The app's closure is the break; the library's own loops are left to it.
      #expect(graph.cycles.flatMap(\.fixPlan).map(\.idiom) == [.closureCapture])
      assertGolden(graph.report(), named: "opencombine-sink.report")
      (probe.object as? SinkViewModel)?.cancellable = nil
    }
  #endif

  // Needs the binary readers: it checks names read from the symbol tables (BinaryReadersTests

  // checks the names without them).
  #if BinaryReaders
    @Test func weakSinkIsFreed() {
      let (graph, probe) = Self.walkAndRelease(CombineViewModel.makeFixed)
      #expect(probe.object == nil, "the runtime kept the view model")
      // What is left is OpenCombine's own loop while subscribed: nothing of the app's to weaken.
      #expect(graph.cycles.allSatisfy { $0.fixPlan.isEmpty && !$0.libraryLoopMembers.isEmpty })
      assertGolden(graph.report(), named: "opencombine-weak-sink.report")
      #expect(!graph.predictedLeaks().contains(graph.root), "\(graph.report())")
    }
  #endif

  @inline(never)
  static func walkAndRelease(_ make: () -> AnyObject) -> (ObjectGraph, WeakProbe) {
    let root = make()
    return (ObjectGraph(reflecting: root), WeakProbe(root))
  }
}
