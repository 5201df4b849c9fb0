import Dispatch
import RetainGraph
import RetainGraphCensus
import RetainGraphRuntime
import RetainGraphTestSupport
import RetainGraphTesting
import Testing

// MARK: - Fixtures

/// Keeps a timer source whose event handler captures the owner as `capture` says.
final class SourceHandlerOwner: @unchecked Sendable {
  enum Capture { case strong, weak }

  var source: (any DispatchSourceTimer)?
  var fired = 0

  @inline(never)
  func start(capturing capture: Capture, qos: DispatchQoS = .unspecified) {
    let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "walk.source"))
    source.schedule(deadline: .now() + 3600, repeating: 3600)
    switch capture {
    case .strong: source.setEventHandler(qos: qos) { self.fire() }
    case .weak: source.setEventHandler(qos: qos) { [weak self] in self?.fire() }
    }
    source.resume()
    self.source = source
  }

  func fire() { fired += 1 }
}

// MARK: - Tests

/// A dispatch source keeps its handlers in libdispatch's C storage; while the census runs, the walk
/// asks it for the handlers it saw set on a source, so a cycle through a handler is found from its
/// owner. Each answer is checked against the runtime (a weak probe after release).
extension CensusTests {
  @Suite(.heapCensus) struct DispatchSourceWalk {
    @Test(arguments: [DispatchQoS.unspecified, .utility])
    func handlerCapturingItsOwnerIsACycle(qos: DispatchQoS) async throws {
      weak var probe: SourceHandlerOwner?
      let source: any DispatchSourceTimer
      do {
        let owner = SourceHandlerOwner()
        owner.start(capturing: .strong, qos: qos)
        source = try #require(owner.source)
        probe = owner
        let graph = ObjectGraph(reflecting: owner)
        #expect(graph.cycles.count == 1)
        #expect(graph.predictedLeaks().contains { graph.node($0).typeName.hasSuffix("SourceHandlerOwner") })
        // The closure captures only the owner: it is the closure's context.
        let handler = try #require(graph.edges.first { $0.property == "event handler" })
        #expect(graph.node(handler.from).typeName == "Dispatch.DispatchSource")
        #expect(handler.label == "event handler (closure) → capture 0")
        #expect(handler.kind == .singleCapture && handler.ownership == .strong)
        assertGolden(
          graph.report(), named: qos == .unspecified ? "event-handler.report" : "work-item-handler.report")
      }
      // The runtime agrees: the handler keeps the owner alive until the source is cancelled.
      #expect(probe != nil)
      source.cancel()
      #expect(await eventually { probe == nil })
    }

    @Test func weakHandlerIsNotACycle() async throws {
      weak var probe: SourceHandlerOwner?
      let source: any DispatchSourceTimer
      do {
        let owner = SourceHandlerOwner()
        owner.start(capturing: .weak)
        source = try #require(owner.source)
        probe = owner
        let graph = ObjectGraph(reflecting: owner)
        #expect(graph.cycles.isEmpty)
        #expect(graph.predictedLeaks().isEmpty)
        // The handler is still seen, holding its owner weakly.
        let handler = try #require(graph.edges.first { $0.property == "event handler" })
        #expect(handler.label == "event handler (closure)" && handler.kind == .closure)
      }
      #expect(probe == nil)
      source.cancel()
    }

    @Test func replacedHandlerIsNotAHolder() async throws {
      weak var probe: SourceHandlerOwner?
      let source: any DispatchSourceTimer
      do {
        let owner = SourceHandlerOwner()
        owner.start(capturing: .strong)
        source = try #require(owner.source)
        source.setEventHandler {}
        probe = owner
        let graph = ObjectGraph(reflecting: owner)
        #expect(graph.cycles.isEmpty)
        #expect(graph.predictedLeaks().isEmpty)
      }
      #expect(await eventually { probe == nil })
      source.cancel()
    }

    @Test func cancelledSourceHoldsNoEventHandler() async throws {
      weak var probe: SourceHandlerOwner?
      do {
        let owner = SourceHandlerOwner()
        owner.start(capturing: .strong)
        owner.source?.cancel()
        probe = owner
        let graph = ObjectGraph(reflecting: owner)
        #expect(graph.cycles.isEmpty)
        #expect(!graph.edges.contains { $0.property == "event handler" })
      }
      // libdispatch releases the handler once the cancellation completes.
      #expect(await eventually { probe == nil })
    }
  }
}
