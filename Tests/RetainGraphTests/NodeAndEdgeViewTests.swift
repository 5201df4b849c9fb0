import RetainGraph
import Testing

final class ViewScreen {
  var presenter: ViewPresenter?
  var rows: [ViewRow] = []
}

final class ViewPresenter {
  weak var screen: ViewScreen?
  var interactor = ViewInteractor()
}

final class ViewInteractor {
  var output: ViewPresenter?
}

final class ViewRow {
  unowned let screen: ViewScreen
  init(screen: ViewScreen) { self.screen = screen }
}

final class WeakOutputPresenter {
  let interactor: WeakOutputInteractor
  init(interactor: WeakOutputInteractor) { self.interactor = interactor }
}

final class WeakOutputInteractor {
  weak var output: WeakOutputPresenter?
}

/// `graph.nodes` and `graph.edges` are random-access views over the graph's storage: indexed by
/// node id and edge position, equal to the nodes and edges read one by one, and enough to make the
/// same graph again from parts.
@Suite struct NodeAndEdgeViewTests {
  /// A screen, its presenter and interactor in a strong loop (interactor.output), two rows.
  @inline(never) static func walkThenRelease() -> (graph: ObjectGraph, alive: Bool) {
    weak var probe: ViewPresenter?
    let graph: ObjectGraph = {
      let screen = ViewScreen()
      let presenter = ViewPresenter()
      presenter.screen = screen
      presenter.interactor.output = presenter
      screen.presenter = presenter
      screen.rows = [ViewRow(screen: screen), ViewRow(screen: screen)]
      probe = presenter
      return ObjectGraph(reflecting: screen)
    }()
    let alive = probe != nil
    probe?.interactor.output = nil
    return (graph, alive)
  }

  @Test func theViewsAreIndexedByIdAndPosition() {
    let (graph, alive) = Self.walkThenRelease()
    #expect(alive, "the runtime freed the presenter held by its interactor")
    let nodes = graph.nodes
    #expect(nodes.startIndex == 0 && nodes.endIndex == graph.nodeCount && nodes.count == 5)
    #expect(nodes.indices == 0..<5)
    for id in nodes.indices {
      #expect(nodes[id].id == id)
      #expect(nodes[id] == graph.node(id))
    }
    #expect(
      nodes.map(\.shortTypeName) == ["ViewScreen", "ViewPresenter", "ViewRow", "ViewRow", "ViewInteractor"])
    #expect(nodes.last?.id == 4 && nodes.reversed().map(\.id) == [4, 3, 2, 1, 0])
    #expect(nodes[nodes.index(nodes.startIndex, offsetBy: 2)].shortTypeName == "ViewRow")
    #expect(nodes[2...].map(\.id) == [2, 3, 4] && nodes.distance(from: 1, to: 4) == 3)

    let edges = graph.edges
    #expect(edges.startIndex == 0 && edges.endIndex == graph.edgeCount)
    for index in edges.indices { #expect(edges[index] == graph.edge(at: index)) }
    // Independently of the walk's order: every reference the fixture made, with its ownership.
    let found = edges.map {
      "\(nodes[$0.from].shortTypeName).\($0.label) → \(nodes[$0.to].shortTypeName) \($0.ownership.rawValue)"
    }
    #expect(
      found.sorted() == [
        "ViewInteractor.output → ViewPresenter strong", "ViewPresenter.interactor → ViewInteractor strong",
        "ViewPresenter.screen → ViewScreen weak", "ViewRow.screen → ViewScreen unowned",
        "ViewRow.screen → ViewScreen unowned", "ViewScreen.presenter → ViewPresenter strong",
        "ViewScreen.rows[0] → ViewRow strong", "ViewScreen.rows[1] → ViewRow strong",
      ])
    #expect(edges.filter { $0.ownership == .strong }.count == 5)
  }

  @Test func aGraphMadeFromTheViewsIsTheSameGraph() throws {
    let (graph, _) = Self.walkThenRelease()
    let rebuilt = try ObjectGraph(nodes: graph.nodes, edges: graph.edges, root: graph.root)
    // Different storage, compared node by node and edge by edge.
    #expect(rebuilt.nodes == graph.nodes)
    #expect(rebuilt.edges == graph.edges)
    #expect(Array(rebuilt.edges) == Array(graph.edges))
    #expect(rebuilt.cycles.map(\.members) == graph.cycles.map(\.members))
    #expect(rebuilt.cycles.first?.suggestedEdge?.label == "output")
    // One edge fewer is another graph.
    let fewer = try ObjectGraph(nodes: graph.nodes, edges: graph.edges.dropLast(), root: graph.root)
    #expect(fewer.edges != graph.edges)
    #expect(fewer.nodes == graph.nodes)
  }

  @Test func aGraphOfItsRootAloneHasNoEdges() {
    let leaf = Leaf()
    let graph = ObjectGraph(reflecting: leaf)
    #expect(graph.nodes.count == 1 && graph.nodes.first?.id == graph.root)
    #expect(graph.edges.isEmpty && graph.edges.first == nil)
    #expect(graph.cycles.isEmpty)
  }

  /// The fix plan's advice, as a value, is what the runtime confirms: weakening `output` leaves
  /// nothing alive, and the twin with the weak `output` is not flagged.
  @Test func theAdviceIsAValueWhoseDescriptionIsTheFix() throws {
    let (graph, alive) = Self.walkThenRelease()
    #expect(alive)
    let cycle = try #require(graph.cycles.first)
    let fix = try #require(cycle.fixPlan.first)
    #expect(fix.advice == .weakProperty("ViewInteractor.output"))
    #expect(fix.fix == "make ViewInteractor.output weak" && fix.advice.description == fix.fix)
    #expect(cycle.suggestedEdge == fix.edge && fix.edge.label == "output")

    weak var probe: WeakOutputInteractor?
    let twin: ObjectGraph = {
      let interactor = WeakOutputInteractor()
      let presenter = WeakOutputPresenter(interactor: interactor)
      interactor.output = presenter
      probe = interactor
      return ObjectGraph(reflecting: presenter)
    }()
    #expect(probe == nil, "the runtime kept the twin whose output is weak")
    #expect(twin.cycles.isEmpty && twin.predictedLeaks().isEmpty)
  }
}
