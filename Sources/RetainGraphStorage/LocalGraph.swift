/// A component's strong references between different members, numbered 0..<count, with the
/// members numbered 0..<nodeCount.
package struct LocalGraph {
  package let nodeCount: Int
  package private(set) var from: [Int32] = []
  package private(set) var to: [Int32] = []
  package private(set) var global: [Int32] = []
  /// Outgoing references of each node (made by ``seal()``): one array in compressed rows, not an
  /// array per node, which would cost an allocation per member of a million-object component.
  package private(set) var outgoing = Adjacency()

  /// References by holder, in compressed rows: `outgoing[node]` are the references of `node`.
  package struct Adjacency {
    package var offsets: [Int32] = [0]
    package var edges: [Int] = []

    package subscript(node: Int) -> ArraySlice<Int> { edges[Int(offsets[node])..<Int(offsets[node + 1])] }

    /// The `position`th reference of `node`.
    package func edge(_ node: Int, _ position: Int) -> Int { edges[Int(offsets[node]) + position] }
  }

  package init(nodeCount: Int) {
    self.nodeCount = nodeCount
  }

  package var count: Int { from.count }

  package mutating func add(from: Int32, to: Int32, global: Int32) {
    self.from.append(from)
    self.to.append(to)
    self.global.append(global)
  }

  /// Groups the references by holder, once all are added.
  package mutating func seal() {
    var offsets = [Int32](repeating: 0, count: nodeCount + 1)
    for holder in from { offsets[Int(holder) + 1] += 1 }
    for node in 0..<nodeCount { offsets[node + 1] += offsets[node] }
    var cursor = offsets
    var edges = [Int](repeating: 0, count: from.count)
    for (edge, holder) in from.enumerated() {
      edges[Int(cursor[Int(holder)])] = edge
      cursor[Int(holder)] += 1
    }
    outgoing = Adjacency(offsets: offsets, edges: edges)
  }

  package func pairKey(_ edge: Int) -> Int64 { Int64(from[edge]) << 32 | Int64(to[edge]) }
  package func reversePairKey(_ edge: Int) -> Int64 { Int64(to[edge]) << 32 | Int64(from[edge]) }

  package mutating func sortOutgoing(by position: [Int]) {
    for node in 0..<nodeCount {
      outgoing.edges[Int(outgoing.offsets[node])..<Int(outgoing.offsets[node + 1])].sort {
        position[$0] < position[$1]
      }
    }
  }

  /// Whether the references not in `removed` form no cycle (Kahn's algorithm).
  package func isAcyclic(removed: [Bool], indegree: inout [Int32], queue: inout [Int32]) -> Bool {
    for node in 0..<nodeCount { indegree[node] = 0 }
    for edge in 0..<count where !removed[edge] { indegree[Int(to[edge])] += 1 }
    queue.removeAll(keepingCapacity: true)
    for node in 0..<nodeCount where indegree[node] == 0 { queue.append(Int32(node)) }
    var head = 0
    while head < queue.count {
      let node = Int(queue[head])
      head += 1
      for edge in outgoing[node] where !removed[edge] {
        let target = Int(to[edge])
        indegree[target] -= 1
        if indegree[target] == 0 { queue.append(Int32(target)) }
      }
    }
    return queue.count == nodeCount
  }

  /// The fewest edits whose references, weakened, leave no strong cycle (a minimum feedback set
  /// counted in edits: each edit is a group of references a developer weakens with one change),
  /// by exhaustive search over subsets of `edits` in increasing size; among the smallest, the
  /// lowest total rank, then the one whose edits come first in `position`. With `appNodes`, "no
  /// cycle" means none through an app node. Returns the chosen edits' references; nil when even
  /// every edit together leaves a cycle.
  package func minimumEditSet(_ edits: [[Int]], rank: [Int], position: [Int], appNodes: [Bool]?) -> [Int]? {
    precondition(edits.count <= 30)
    var removed = [Bool](repeating: false, count: count)
    var indegree = [Int32](repeating: 0, count: nodeCount)
    var queue: [Int32] = []
    queue.reserveCapacity(nodeCount)
    var search = Search(nodeCount: nodeCount)
    func isResolved() -> Bool {
      guard let appNodes else { return isAcyclic(removed: removed, indegree: &indegree, queue: &queue) }
      for node in 0..<nodeCount where appNodes[node] {
        for edge in outgoing[node] where !removed[edge] {
          if search.reaches(self, from: to[edge], to: Int32(node), avoiding: removed) { return false }
        }
      }
      return true
    }
    for size in 0...edits.count {
      var best: (rankSum: Int, positions: [Int], set: [Int])?
      // Every `size`-subset of the edits as a bit mask, by Gosper's hack.
      var mask: UInt32 = size == 0 ? 0 : (UInt32(1) << size) - 1
      let limit: UInt32 = UInt32(1) << edits.count
      while mask < limit {
        for index in removed.indices { removed[index] = false }
        var rankSum = 0
        var positions: [Int] = []
        for (bit, edit) in edits.enumerated() where mask & (1 << bit) != 0 {
          for edge in edit { removed[edge] = true }
          rankSum += rank[bit]
          positions.append(position[bit])
        }
        if isResolved() {
          positions.sort()
          let better =
            best.map {
              rankSum < $0.rankSum
                || (rankSum == $0.rankSum && positions.lexicographicallyPrecedes($0.positions))
            } ?? true
          if better { best = (rankSum, positions, removed.indices.filter { removed[$0] }) }
        }
        if mask == 0 { break }
        let lowest = mask & (~mask &+ 1)
        let ripple = mask &+ lowest
        mask = (((ripple ^ mask) >> 2) / lowest) | ripple
      }
      if let best { return best.set }
    }
    return nil
  }

  /// Greedy: weaken each reference in `order` that is on a loop of what is still strong, then keep
  /// strong again, least preferred first, every weakened reference that closes no loop. The result
  /// is inclusion-minimal, and at most `count` − `nodeCount` + 1 references (each weakened reference
  /// is on a cycle, so weakening it keeps the component connected).
  package func greedyFeedbackSet(order: [Int]) -> [Int] {
    var removed = [Bool](repeating: false, count: count)
    var chosen: [Int] = []
    var search = Search(nodeCount: nodeCount)
    for edge in order where search.reaches(self, from: to[edge], to: from[edge], avoiding: removed) {
      removed[edge] = true
      chosen.append(edge)
    }
    for edge in chosen.reversed() {
      removed[edge] = false
      if search.reaches(self, from: to[edge], to: from[edge], avoiding: removed) { removed[edge] = true }
    }
    return chosen.filter { removed[$0] }
  }

  /// The shortest path of references not `avoiding` from one node to another, exploring each node's
  /// references in their sorted order; nil when there is none. `reachedBy` is scratch space of
  /// `nodeCount` entries, all -1, and is left so.
  package func shortestPath(
    from start: Int32, to goal: Int32, avoiding removed: [Bool], reachedBy: inout [Int32]
  ) -> [Int]? {
    ShortestPath.search(from: start, to: goal, reachedBy: &reachedBy) { node, visit in
      for edge in outgoing[node] where !removed[edge] {
        if visit(Int32(edge), to[edge]) { return }
      }
    } holder: {
      from[Int($0)]
    }?.map { Int($0) }
  }

  /// Reachability with a reused visited stamp.
  package struct Search {
    private var stamp: [Int32]
    private var current: Int32 = 0
    private var stack: [Int32] = []

    package init(nodeCount: Int) { stamp = [Int32](repeating: 0, count: nodeCount) }

    package mutating func reaches(
      _ graph: LocalGraph, from start: Int32, to goal: Int32, avoiding removed: [Bool]
    )
      -> Bool
    {
      current += 1
      stack.removeAll(keepingCapacity: true)
      stack.append(start)
      stamp[Int(start)] = current
      while let node = stack.popLast() {
        if node == goal { return true }
        for edge in graph.outgoing[Int(node)] where !removed[edge] {
          let target = Int(graph.to[edge])
          if stamp[target] != current {
            stamp[target] = current
            stack.append(Int32(target))
          }
        }
      }
      return false
    }
  }
}
