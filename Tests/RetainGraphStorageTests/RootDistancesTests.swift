import RetainGraphStorage
import RetainGraphSupport
import Testing

/// The search from the root against a plain breadth-first search, for edges in any order and in a
/// walk's order (grouped by holder, nodes numbered as the search reaches them).
@Suite struct RootDistancesTests {
  /// `graph` renumbered in the order a breadth-first search from node 0 reaches its nodes, its
  /// edges grouped by holder in that order: what a walk stores. Unreachable nodes come last.
  static func inWalkOrder(_ graph: SyntheticGraph) -> SyntheticGraph {
    var number = [Int](repeating: -1, count: graph.nodeCount)
    var order = [0]
    number[0] = 0
    var head = 0
    while head < order.count {
      let node = order[head]
      head += 1
      for edge in graph.plain where edge.from == node && number[edge.to] < 0 {
        number[edge.to] = order.count
        order.append(edge.to)
      }
    }
    for node in 0..<graph.nodeCount where number[node] < 0 {
      number[node] = order.count
      order.append(node)
    }
    var walked = SyntheticGraph(nodeCount: graph.nodeCount)
    for node in order {
      for edge in graph.plain where edge.from == node {
        walked.add(from: number[edge.from], to: number[edge.to], ownershipCode: edge.strong ? 0 : 2)
      }
    }
    return walked
  }

  static func check(_ graph: SyntheticGraph, root: Int, seed: Int) {
    let expected = graph.distances(from: root)
    let search = RootDistances(edges: graph.edges, nodeCount: graph.nodeCount, root: root)
    let distances = search.distances(edges: graph.edges)
    #expect(distances == expected, "seed \(seed)")
    // The order: every reachable node once, the root first, by distance.
    let order = search.order.map { Int($0) }
    #expect(order.first == root)
    #expect(Set(order) == Set((0..<graph.nodeCount).filter { expected[$0] != .max }))
    #expect(order.count == Set(order).count)
    #expect(zip(order, order.dropFirst()).allSatisfy { expected[$0] <= expected[$1] })
    for node in 0..<graph.nodeCount {
      let path = search.pathEdges(to: node, edges: graph.edges)
      guard expected[node] != .max else {
        #expect(path == nil)
        #expect(search.parentEdge[node] == -1)
        continue
      }
      // A path of the node's distance, edge to edge from the root.
      let edges = (path ?? []).map { graph.plain[Int($0)] }
      #expect(edges.count == Int(expected[node]), "seed \(seed), node \(node)")
      #expect(edges.first.map { $0.from == root } ?? (node == root))
      #expect(edges.last.map { $0.to == node } ?? (node == root))
      #expect(zip(edges, edges.dropFirst()).allSatisfy { $0.to == $1.from })
    }
    var generator = SeededGenerator(seed: UInt64(seed))
    let members = (0..<Int32(graph.nodeCount)).filter { _ in Bool.random(using: &generator) }
    if !members.isEmpty {
      let best = members.min { (expected[Int($0)], $0) < (expected[Int($1)], $1) }
      #expect(search.nearest(of: members) == best, "seed \(seed)")
    }
  }

  @Test(arguments: 0..<100)
  func distancesMatchABreadthFirstSearch(seed: Int) {
    var generator = SeededGenerator(seed: UInt64(seed))
    let nodeCount = Int.random(in: 1...30, using: &generator)
    let graph = SyntheticGraph.random(
      nodeCount: nodeCount, edgeCount: Int.random(in: 0...(nodeCount * 3), using: &generator), weakOneIn: 3,
      seed: UInt64(seed) &+ 1000)
    Self.check(graph, root: Int.random(in: 0..<nodeCount, using: &generator), seed: seed)
    Self.check(Self.inWalkOrder(graph), root: 0, seed: seed)
  }

  /// A long list from the root, in walk order: one pass, and the distances made from the parents.
  @Test func longListInWalkOrder() {
    var graph = SyntheticGraph(nodeCount: 100_000)
    for node in 0..<graph.nodeCount - 1 { graph.add(from: node, to: node + 1, ownershipCode: 0) }
    let search = RootDistances(edges: graph.edges, nodeCount: graph.nodeCount, root: 0)
    let distances = search.distances(edges: graph.edges)
    #expect(distances == (0..<Int32(graph.nodeCount)).map { $0 })
    #expect(search.pathEdges(to: 99_999, edges: graph.edges)?.count == 99_999)
  }

  @Test func shortestPathFindsAShortestOne() {
    for seed in 0..<50 {
      let graph = SyntheticGraph.random(nodeCount: 12, edgeCount: 30, weakOneIn: 0, seed: UInt64(seed))
      let expected = graph.distances(from: 0)
      var reachedBy = [Int32](repeating: -1, count: graph.nodeCount)
      for goal in 1..<graph.nodeCount {
        let path = ShortestPath.search(from: 0, to: Int32(goal), reachedBy: &reachedBy) { node, visit in
          for (index, edge) in graph.plain.enumerated() where edge.from == node {
            if visit(Int32(index), Int32(edge.to)) { return }
          }
        } holder: {
          Int32(graph.plain[Int($0)].from)
        }
        #expect(
          path?.count == (expected[goal] == .max ? nil : Int(expected[goal])), "seed \(seed), goal \(goal)")
        #expect(reachedBy.allSatisfy { $0 == -1 })
      }
    }
  }
}
