internal import RetainGraphStorage

extension ObjectGraph {
  /// The ids of the nodes that stay alive once the root is released, assuming the root is the only
  /// reference from outside the graph: exactly those strongly reachable from a strong cycle.
  ///
  /// ```swift
  /// for id in graph.predictedLeaks() { print(graph.node(id).shortTypeName) }
  /// ```
  /// Ids, like ``Cycle/members``: `graph.node(id)` gives the node, a `Set` of them answers "does it
  /// leak" at once.
  /// - Returns: node ids in ascending order.
  /// - Complexity: O(*n* + *e*).
  public func predictedLeaks() -> [Node.ID] {
    guard !cycles.isEmpty else { return [] }
    let strong = storage.successors(strongOnly: true)
    var alive = [Bool](repeating: false, count: nodeCount)
    var stack: [Int32] = []
    for cycle in cycles {
      for member in cycle.members where !alive[member] {
        alive[member] = true
        stack.append(Int32(member))
      }
    }
    while let node = stack.popLast() {
      for position in Int(strong.offsets[Int(node)])..<Int(strong.offsets[Int(node) + 1]) {
        let target = Int(strong.targets[position])
        if !alive[target] {
          alive[target] = true
          stack.append(Int32(target))
        }
      }
    }
    return alive.indices.filter { alive[$0] }
  }

  /// The edges of the shortest path from the root to `node` (over all references), or nil when the
  /// node cannot be reached from the root.
  /// - Complexity: O(*n* + *e*).
  public func path(to node: Node.ID) -> [Edge]? {
    guard node >= 0, node < nodeCount else { return nil }
    return storage.distances(from: root).pathEdges(to: node, in: storage)?.map { storage.edge(Int($0)) }
  }

  /// The reference that first reached `node` in the breadth-first search from the root: the last
  /// edge of ``path(to:)``; nil for the root and for nodes the root does not reach.
  package func parentEdge(of node: Node.ID) -> Edge? {
    guard node >= 0, node < nodeCount else { return nil }
    let index = storage.distances(from: root).parentEdge[node]
    return index < 0 ? nil : storage.edge(Int(index))
  }

  /// The nodes the root reaches, in the order of the breadth-first search from it (the root first):
  /// every node comes after the holder of its ``parentEdge(of:)``.
  package var searchOrder: [Node.ID] { storage.distances(from: root).order.map { Int($0) } }
}
