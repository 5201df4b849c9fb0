import RetainGraphStorage
import Testing

/// A component's local copy: the exact minimum edit set against an exhaustive search over subsets
/// of references, and the greedy feedback set's two promises (no cycle left, none weakened for
/// nothing).
@Suite struct LocalGraphTests {
  static func random(seed: Int) -> LocalGraph {
    var generator = SeededGenerator(seed: UInt64(seed))
    let nodeCount = Int.random(in: 2...6, using: &generator)
    var graph = LocalGraph(nodeCount: nodeCount)
    for global in 0..<Int.random(in: 1...10, using: &generator) {
      let from = Int32.random(in: 0..<Int32(nodeCount), using: &generator)
      var to = Int32.random(in: 0..<Int32(nodeCount - 1), using: &generator)
      if to >= from { to += 1 }
      graph.add(from: from, to: to, global: Int32(global))
    }
    graph.seal()
    return graph
  }

  static func isAcyclic(_ graph: LocalGraph, removed: [Bool]) -> Bool {
    var indegree = [Int32](repeating: 0, count: graph.nodeCount)
    var queue: [Int32] = []
    return graph.isAcyclic(removed: removed, indegree: &indegree, queue: &queue)
  }

  @Test(arguments: 0..<150)
  func minimumEditSetIsMinimum(seed: Int) {
    let graph = Self.random(seed: seed)
    let edits = (0..<graph.count).map { [$0] }
    let chosen = graph.minimumEditSet(
      edits, rank: [Int](repeating: 0, count: graph.count), position: Array(0..<graph.count), appNodes: nil)
    // Every reference weakened leaves no cycle, so there is always a set.
    guard let chosen else {
      Issue.record("seed \(seed): no edit set")
      return
    }
    var removed = [Bool](repeating: false, count: graph.count)
    for edge in chosen { removed[edge] = true }
    #expect(Self.isAcyclic(graph, removed: removed), "seed \(seed)")
    // No smaller set of references does it.
    let smallest = (0..<(1 << graph.count)).filter { mask in
      Self.isAcyclic(graph, removed: (0..<graph.count).map { mask & (1 << $0) != 0 })
    }.map(\.nonzeroBitCount).min()
    #expect(chosen.count == smallest, "seed \(seed)")
  }

  @Test(arguments: 0..<150)
  func greedyFeedbackSetIsInclusionMinimal(seed: Int) {
    let graph = Self.random(seed: seed)
    let chosen = graph.greedyFeedbackSet(order: Array(0..<graph.count))
    var removed = [Bool](repeating: false, count: graph.count)
    for edge in chosen { removed[edge] = true }
    #expect(Self.isAcyclic(graph, removed: removed), "seed \(seed)")
    for edge in chosen {
      removed[edge] = false
      #expect(
        !Self.isAcyclic(graph, removed: removed), "seed \(seed): reference \(edge) weakened for nothing")
      removed[edge] = true
    }
  }

  @Test func shortestPathAvoidsRemovedReferences() {
    // 0 → 1 → 2 → 0 and 0 → 2.
    var graph = LocalGraph(nodeCount: 3)
    for (from, to) in [(0, 1), (1, 2), (2, 0), (0, 2)] {
      graph.add(from: Int32(from), to: Int32(to), global: 0)
    }
    graph.seal()
    var reachedBy = [Int32](repeating: -1, count: 3)
    var removed = [Bool](repeating: false, count: 4)
    #expect(graph.shortestPath(from: 0, to: 2, avoiding: removed, reachedBy: &reachedBy) == [3])
    removed[3] = true
    #expect(graph.shortestPath(from: 0, to: 2, avoiding: removed, reachedBy: &reachedBy) == [0, 1])
    removed[1] = true
    #expect(graph.shortestPath(from: 0, to: 2, avoiding: removed, reachedBy: &reachedBy) == nil)
    #expect(reachedBy == [-1, -1, -1])
  }
}
