import PropertyBased
import RetainGraph
import RetainGraphTestSupport
import Testing

@Suite("Random graphs against brute force and the runtime")
struct RandomGraphTests {
  /// Builds `count` nodes with random strong, weak and unowned references; returns them all.
  static func makeGraph(count: Int, seed: UInt64) -> [RandomNode] {
    var random = SplitMix64(seed: seed)
    let nodes = (0..<count).map(RandomNode.init)
    let density = Double.random(in: 0.1...0.5, using: &random)
    func pick() -> RandomNode? {
      Double.random(in: 0..<1, using: &random) < density
        ? nodes[Int.random(in: 0..<count, using: &random)] : nil
    }
    for node in nodes {
      node.s0 = pick()
      node.s1 = pick()
      node.s2 = pick()
      node.w0 = pick()
      node.u0 = pick()
    }
    return nodes
  }

  /// Strongly connected components with a cycle, by mutual reachability (quadratic, independent of
  /// Tarjan).
  static func bruteForceCycles(_ graph: ObjectGraph) -> Set<[Int]> {
    let count = graph.nodes.count
    var successors = [[Int]](repeating: [], count: count)
    for edge in graph.edges where edge.ownership == .strong { successors[edge.from].append(edge.to) }
    var reaches = [[Bool]](repeating: [Bool](repeating: false, count: count), count: count)
    for start in 0..<count {
      var stack = successors[start]
      while let node = stack.popLast() {
        if reaches[start][node] { continue }
        reaches[start][node] = true
        stack += successors[node]
      }
    }
    var result: Set<[Int]> = []
    for node in 0..<count where reaches[node][node] {
      result.insert((0..<count).filter { reaches[node][$0] && reaches[$0][node] })
    }
    return result
  }

  @Test func cyclesEdgesAndLeaksMatchBruteForceAndTheRuntime() async {
    await propertyCheck(count: 300, input: Gen.int(in: 1...200), Gen.uint64(in: 0...UInt64.max)) {
      count, seed in
      var all: [RandomNode]? = Self.makeGraph(count: count, seed: seed)
      var root: RandomNode? = all?[0]
      var (graph, objects) = ObjectGraph.walk(root as Any)
      let probes = objects.map(WeakProbe.init)
      let indexOf = objects.map { ($0 as? RandomNode)?.index ?? -1 }
      // Nodes the root cannot reach are outside the graph; a cycle among them could hold graph
      // nodes from outside, which the prediction assumes away. Unlink them first.
      let reachable = Set(indexOf)
      for node in all ?? [] where !reachable.contains(node.index) { node.breakStrong() }

      // Edges are exactly the references the nodes hold.
      var expected: Set<String> = []
      for case let node as RandomNode in objects {
        for (label, target, ownership) in [
          ("s0", node.s0, "strong"), ("s1", node.s1, "strong"), ("s2", node.s2, "strong"),
          ("w0", node.w0, "weak"), ("u0", node.u0, "unowned"),
        ] {
          if let target { expected.insert("\(node.index).\(label)->\(target.index) \(ownership)") }
        }
      }
      let found = Set(
        graph.edges.map { "\(indexOf[$0.from]).\($0.label)->\(indexOf[$0.to]) \($0.ownership.rawValue)" })
      #expect(found == expected)
      #expect(Set(graph.cycles.map(\.members)) == Self.bruteForceCycles(graph))
      for cycle in graph.cycles {
        #expect(cycle.path.first?.from == cycle.path.last?.to)
        #expect(cycle.path.allSatisfy { cycle.members.contains($0.from) && $0.ownership == .strong })
        #expect(cycle.fixPlan.first?.edge == cycle.suggestedEdge)
        #expect(cycle.fixPlan.allSatisfy { $0.loop.last == $0.edge && $0.loop.first?.from == $0.edge.to })
      }

      let predicted = graph.predictedLeaks()
      objects = []
      all = nil
      root = nil
      let survivors = probes.indices.filter { probes[$0].object != nil }
      #expect(survivors == predicted, "seed \(seed), count \(count)")

      for probe in probes { (probe.object as? RandomNode)?.breakStrong() }
      #expect(probes.allSatisfy { $0.object == nil })
      _ = (all, root, graph)
      graph = ObjectGraph(reflecting: ())
    }
  }
}
