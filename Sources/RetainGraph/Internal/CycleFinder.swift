/// Finds the strong cycles of a graph and describes each one.
struct CycleFinder {
  let storage: GraphStorage
  let root: Int

  init(storage: GraphStorage, root: Int) {
    self.storage = storage
    self.root = root
  }

  func cycles() -> [Cycle] {
    let nodeCount = storage.nodeCount
    let components: [[Int32]]
    do {
      let strongSuccessors = storage.successors(strongOnly: true)
      components = Tarjan.cyclicComponents(
        nodeCount: nodeCount, offsets: strongSuccessors.offsets, successors: strongSuccessors.targets)
    }
    guard !components.isEmpty else { return [] }
    let strong = storage.adjacency(strongOnly: true)

    let (distance, parentEdge) = distancesFromRoot()
    var componentOf = [Int32](repeating: -1, count: nodeCount)
    for (index, component) in components.enumerated() {
      for member in component { componentOf[Int(member)] = Int32(index) }
    }
    var reachedBy = [Int32](repeating: -1, count: nodeCount)
    var result: [Cycle] = []
    for (index, component) in components.enumerated() {
      result.append(
        describe(
          component, index: Int32(index), componentOf: componentOf, strong: strong, distance: distance,
          parentEdge: parentEdge, reachedBy: &reachedBy))
    }
    return result.sorted { $0.members[0] < $1.members[0] }
  }

  /// Breadth-first distances from the root over all edges (`Int32.max` when unreachable), and the
  /// edge that first reached each node.
  private func distancesFromRoot() -> (distance: [Int32], parentEdge: [Int32]) {
    if let inWalkOrder = distancesInWalkOrder() { return inWalkOrder }
    let nodeCount = storage.nodeCount
    var distance = [Int32](repeating: .max, count: nodeCount)
    var parentEdge = [Int32](repeating: -1, count: nodeCount)
    guard root < nodeCount else { return (distance, parentEdge) }
    let all = storage.adjacency(strongOnly: false)
    let edges = storage.edges
    distance[root] = 0
    var queue: [Int32] = [Int32(root)]
    var head = 0
    while head < queue.count {
      let node = Int(queue[head])
      head += 1
      for position in Int(all.offsets[node])..<Int(all.offsets[node + 1]) {
        let edgeIndex = all.edgeIndices[position]
        let target = Int(edges[Int(edgeIndex)].to)
        if distance[target] == .max {
          distance[target] = distance[node] + 1
          parentEdge[target] = edgeIndex
          queue.append(Int32(target))
        }
      }
    }
    return (distance, parentEdge)
  }

  /// The same distances in one pass over the edges, without building an adjacency: a walked graph's
  /// edges come grouped by holder in the order the walk expanded them, breadth-first, so each node is
  /// first reached by the edge that found it. The result is checked (every edge's holder already
  /// reached, no edge leading to a shorter path); nil when the edges are in another order.
  private func distancesInWalkOrder() -> (distance: [Int32], parentEdge: [Int32])? {
    let nodeCount = storage.nodeCount
    guard root == 0, nodeCount > 0 else { return nil }
    var distance = [Int32](repeating: .max, count: nodeCount)
    var parentEdge = [Int32](repeating: -1, count: nodeCount)
    distance[0] = 0
    var previousFrom: Int32 = 0
    for (index, edge) in storage.edges.enumerated() {
      let from = Int(edge.from)
      let to = Int(edge.to)
      guard edge.from >= previousFrom, distance[from] != .max else { return nil }
      previousFrom = edge.from
      if distance[to] == .max {
        distance[to] = distance[from] + 1
        parentEdge[to] = Int32(index)
      } else if distance[to] > distance[from] + 1 {
        return nil
      }
    }
    return (distance, parentEdge)
  }

  private func describe(
    _ component: [Int32], index: Int32, componentOf: [Int32],
    strong: (offsets: [Int32], edgeIndices: [Int32]), distance: [Int32], parentEdge: [Int32],
    reachedBy: inout [Int32]
  ) -> Cycle {
    let edges = storage.edges
    let entry = Int(component.min { (distance[Int($0)], $0) < (distance[Int($1)], $1) } ?? component[0])

    // Breadth-first search inside the component from the entry, until an edge closes the loop.
    var queue: [Int32] = [Int32(entry)]
    var head = 0
    var closing: Int32 = -1
    search: while head < queue.count {
      let node = Int(queue[head])
      head += 1
      for position in Int(strong.offsets[node])..<Int(strong.offsets[node + 1]) {
        let edgeIndex = strong.edgeIndices[position]
        let target = Int(edges[Int(edgeIndex)].to)
        guard componentOf[target] == index else { continue }
        if target == entry {
          closing = edgeIndex
          break search
        }
        if reachedBy[target] < 0 {
          reachedBy[target] = edgeIndex
          queue.append(Int32(target))
        }
      }
    }
    var loop: [Int32] = []
    if closing >= 0 {
      loop.append(closing)
      var node = Int(edges[Int(closing)].from)
      while node != entry, reachedBy[node] >= 0 {
        loop.append(reachedBy[node])
        node = Int(edges[Int(reachedBy[node])].from)
      }
      loop.reverse()
    }
    for node in queue { reachedBy[Int(node)] = -1 }
    queue = []

    var fromRoot: [Int32] = []
    var node = entry
    while parentEdge[node] >= 0 {
      fromRoot.append(parentEdge[node])
      node = Int(edges[Int(parentEdge[node])].from)
    }
    fromRoot.reverse()

    // The edge that points back toward the root; the closing edge always qualifies (its target is
    // the member nearest the root), but an edge that strictly decreases the distance is preferred.
    let suggested =
      loop.first { distance[Int(edges[Int($0)].to)] < distance[Int(edges[Int($0)].from)] } ?? loop.last
      ?? strong.edgeIndices[Int(strong.offsets[entry])]
    var members = component
    members.sort()
    return Cycle(
      members: members.map { Int($0) },
      path: loop.map { storage.edge(Int($0)) },
      pathFromRoot: fromRoot.map { storage.edge(Int($0)) },
      suggestedBreak: storage.edge(Int(suggested)))
  }
}
