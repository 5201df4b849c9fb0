extension ObjectGraph {
  /// The nodes that stay alive once the root is released, assuming the root is the only reference
  /// from outside the graph: exactly those strongly reachable from a strong cycle.
  /// - Returns: node ids in ascending order.
  /// - Complexity: O(*n* + *e*).
  public func predictedLeaks() -> [Node.ID] {
    var strongOut = [[Node.ID]](repeating: [], count: nodes.count)
    for edge in edges where edge.ownership == .strong {
      strongOut[edge.from].append(edge.to)
    }
    var alive = [Bool](repeating: false, count: nodes.count)
    var stack: [Node.ID] = []
    for cycle in cycles {
      for member in cycle.members where !alive[member] {
        alive[member] = true
        stack.append(member)
      }
    }
    while let node = stack.popLast() {
      for target in strongOut[node] where !alive[target] {
        alive[target] = true
        stack.append(target)
      }
    }
    return alive.indices.filter { alive[$0] }
  }

  /// The edges of the shortest path from the root to `node` (over all references), or nil when the
  /// node cannot be reached from the root.
  public func path(to node: Node.ID) -> [Edge]? {
    guard nodes.indices.contains(node) else { return nil }
    if node == root { return [] }
    var outgoing = [[Int]](repeating: [], count: nodes.count)
    for (index, edge) in edges.enumerated() { outgoing[edge.from].append(index) }
    var reachedBy = [Int?](repeating: nil, count: nodes.count)
    var seen = [Bool](repeating: false, count: nodes.count)
    seen[root] = true
    var queue = [root]
    var head = 0
    while head < queue.count {
      let current = queue[head]
      head += 1
      for index in outgoing[current] where !seen[edges[index].to] {
        seen[edges[index].to] = true
        reachedBy[edges[index].to] = index
        queue.append(edges[index].to)
      }
    }
    guard seen[node] else { return nil }
    var path: [Edge] = []
    var current = node
    while let index = reachedBy[current] {
      path.append(edges[index])
      current = edges[index].from
    }
    return path.reversed()
  }
}
