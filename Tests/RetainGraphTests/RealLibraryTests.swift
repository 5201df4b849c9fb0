import Foundation
import OpenCombine
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
  /// The cycle the runtime confirms is found, through OpenCombine's own operator structs.
  @Test func assignOnSelfIsACycleTheRuntimeConfirms() throws {
    let (graph, probe) = Self.walkAndRelease(CombineViewModel.make)
    #expect(probe.object != nil, "the runtime freed the view model")
    #expect(graph.predictedLeaks().contains(graph.root), "\(graph.report())")
    #expect(graph.notes == [])
    let cycle = try #require(graph.cycles.first { $0.members.contains(graph.root) })
    // Every reference the plan weakens is a real edge of the component.
    for fix in cycle.fixPlan {
      #expect(cycle.members.contains(fix.edge.from) && cycle.members.contains(fix.edge.to))
    }
    (probe.object as? CombineViewModel)?.cancellables.removeAll()
  }

  @Test func sinkCapturingSelfIsACycleTheRuntimeConfirms() {
    let (graph, probe) = Self.walkAndRelease(SinkViewModel.make)
    #expect(probe.object != nil)
    #expect(graph.predictedLeaks().contains(graph.root), "\(graph.report())")
    #expect(graph.notes == [])
    (probe.object as? SinkViewModel)?.cancellable = nil
  }

  @Test func weakSinkIsFreed() {
    let (graph, probe) = Self.walkAndRelease(CombineViewModel.makeFixed)
    #expect(probe.object == nil, "the runtime kept the view model")
    #expect(!graph.predictedLeaks().contains(graph.root), "\(graph.report())")
  }

  @inline(never)
  static func walkAndRelease(_ make: () -> AnyObject) -> (ObjectGraph, WeakProbe) {
    let root = make()
    return (ObjectGraph(reflecting: root), WeakProbe(root))
  }
}
