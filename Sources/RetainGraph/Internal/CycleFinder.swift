/// Finds the strong cycles of a graph and describes each one.
struct CycleFinder {
  let graph: ObjectGraph
  /// Strong out-edges of each node (edge indices), in edge order.
  private let strongOut: [[Int]]
  /// Distance from the root over all edges (`Int.max` when unreachable) and the edge that reached
  /// each node first on a shortest path.
  private let distance: [Int]
  private let parentEdge: [Int?]

  init(graph: ObjectGraph) {
    self.graph = graph
    var strongOut = [[Int]](repeating: [], count: graph.nodes.count)
    var allOut = [[Int]](repeating: [], count: graph.nodes.count)
    for (index, edge) in graph.edges.enumerated() {
      allOut[edge.from].append(index)
      if edge.ownership == .strong { strongOut[edge.from].append(index) }
    }
    self.strongOut = strongOut
    var distance = [Int](repeating: .max, count: graph.nodes.count)
    var parentEdge = [Int?](repeating: nil, count: graph.nodes.count)
    if graph.nodes.indices.contains(graph.root) {
      distance[graph.root] = 0
      var queue = [graph.root]
      var head = 0
      while head < queue.count {
        let node = queue[head]
        head += 1
        for edgeIndex in allOut[node] {
          let target = graph.edges[edgeIndex].to
          if distance[target] == .max {
            distance[target] = distance[node] + 1
            parentEdge[target] = edgeIndex
            queue.append(target)
          }
        }
      }
    }
    self.distance = distance
    self.parentEdge = parentEdge
  }

  func cycles() -> [Cycle] {
    let edges = graph.edges
    let successorLists = strongOut.map { $0.map { edges[$0].to } }
    let components = Tarjan.components(nodeCount: graph.nodes.count) { successorLists[$0][...] }
    var componentOf = [Int](repeating: -1, count: graph.nodes.count)
    var result: [Cycle] = []
    for (componentIndex, component) in components.enumerated() {
      let isCycle =
        component.count > 1
        || strongOut[component[0]].contains { edges[$0].to == component[0] }
      guard isCycle else { continue }
      for member in component { componentOf[member] = componentIndex }
      result.append(describe(component, index: componentIndex, componentOf: componentOf))
    }
    return result.sorted { $0.members[0] < $1.members[0] }
  }

  private func describe(_ component: [Int], index: Int, componentOf: [Int]) -> Cycle {
    let edges = graph.edges
    let entry = component.min { (distance[$0], $0) < (distance[$1], $1) } ?? component[0]

    // Breadth-first search inside the component from the entry, until an edge closes the loop.
    var reachedBy = [Int: Int]()  // node -> edge index
    var queue = [entry]
    var head = 0
    var closing: Int?
    search: while head < queue.count {
      let node = queue[head]
      head += 1
      for edgeIndex in strongOut[node] {
        let target = edges[edgeIndex].to
        guard componentOf[target] == index else { continue }
        if target == entry {
          closing = edgeIndex
          break search
        }
        if reachedBy[target] == nil {
          reachedBy[target] = edgeIndex
          queue.append(target)
        }
      }
    }
    var loop: [Edge] = []
    if let closing {
      loop.append(edges[closing])
      var node = edges[closing].from
      while node != entry, let edgeIndex = reachedBy[node] {
        loop.append(edges[edgeIndex])
        node = edges[edgeIndex].from
      }
      loop.reverse()
    }

    var fromRoot: [Edge] = []
    var node = entry
    while let edgeIndex = parentEdge[node] {
      fromRoot.append(edges[edgeIndex])
      node = edges[edgeIndex].from
    }
    fromRoot.reverse()

    // The edge that points back toward the root; the closing edge always qualifies (its target is
    // the member nearest the root), but an edge that strictly decreases the distance is preferred.
    let suggestedBreak =
      loop.first { distance[$0.to] < distance[$0.from] } ?? loop.last ?? edges[strongOut[entry][0]]
    return Cycle(
      members: component.sorted(), path: loop, pathFromRoot: fromRoot, suggestedBreak: suggestedBreak)
  }
}
