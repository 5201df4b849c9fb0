import RetainGraph
import RetainGraphTestSupport
import Samples
import Testing

@Suite("Graph options")
struct GraphOptionsTests {
  /// `maxNodes` below 1 once gave a graph with no node whose root was 0, and `report()` trapped
  /// (index out of range). The root is always recorded: such a limit is taken as 1.
  @Test(arguments: [0, -1, Int.min])
  func aNodeLimitBelowOneIsTakenAsOne(limit: Int) throws {
    #expect(GraphOptions(maxNodes: limit).maxNodes == 1)
    var options = GraphOptions(maxNodes: 5)
    options.maxNodes = limit
    #expect(options.maxNodes == 1)

    let instance = try #require(Sample.named("viper-module")).make()
    defer { instance.breakCycles() }
    let graph = ObjectGraph(reflecting: instance.root, options: options)
    #expect(graph.nodeCount == 1)
    #expect(graph.root == 0)
    #expect(graph.node(0).typeName == "Samples.ViewController")
    #expect(graph.isTruncated)
    #expect(graph.cycles.isEmpty)
    expectSameGraph(
      graph, ObjectGraph(reflecting: instance.root, options: GraphOptions(maxNodes: 1)), "limit \(limit)")
    // The texts a user reads from it: each was a trap before.
    assertGolden(graph.report(), named: "root-only.report")
    #expect(graph.dot().contains("ViewController"))
    #expect(graph.predictedLeaks().isEmpty)

    // The forked walk makes the same graph from the same options.
    expectSameGraph(try ObjectGraph(snapshotting: instance.root, options: options), graph, "forked, \(limit)")

    // A value root is its node; what it holds is cut.
    let value = ObjectGraph(reflecting: (instance.root, 1), options: options)
    #expect(value.nodeCount == 1)
    #expect(value.node(0).kind == .value)
    #expect(value.isTruncated)
    #expect(value.edgeCount == 0)
  }
}
