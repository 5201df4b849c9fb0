package import RetainGraphSupport

/// The breadth-first search from a graph's root over all references, done once per graph and
/// shared by everything that needs it: the cycles' paths from the root, ``ObjectGraph/path(to:)``,
/// and the drawing's order and back edges. It reads the edges' ends only: the core keeps one per
/// graph (`GraphStorage.distances(from:)`).
package struct RootDistances: Sendable {
  /// Each node's distance from the root (`Int32.max` when it cannot be reached); nil when every
  /// node is reached and numbered in the search's order (a walked graph's): then it is not kept
  /// (see ``distances(edges:)``), and a node's distance is never less than a smaller id's.
  private let distance: [Int32]?
  /// The index of the edge that first reached each node (-1 for the root and unreachable nodes).
  package let parentEdge: [Int32]
  /// The reachable nodes in the order the search reached them, the root first.
  package var order: [Int32] { reached ?? Array(0..<Int32(parentEdge.count)) }
  /// ``order``; nil when it is every node in id order (a walked graph's), which is not stored.
  private let reached: [Int32]?

  /// Searches the graph of `edges` from `root`.
  /// - Parameters:
  ///   - edges: the graph's edges; every edge's ends are below `nodeCount`.
  ///   - nodeCount: the number of nodes.
  ///   - root: the node to search from.
  /// - Complexity: O(*n* + *e*); one pass over the edges when they are in walk order.
  package init(edges: ChunkedArray<CompactEdge>, nodeCount: Int, root: Int) {
    if let inWalkOrder = Self.inWalkOrder(edges: edges, nodeCount: nodeCount, root: root) {
      self = inWalkOrder
      return
    }
    var distance = [Int32](repeating: .max, count: nodeCount)
    var parentEdge = [Int32](repeating: -1, count: nodeCount)
    guard root < nodeCount else {
      self.init(distance: distance, parentEdge: parentEdge, order: [])
      return
    }
    let all = edges.adjacency(nodeCount: nodeCount, strongOnly: false)
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
    self.init(distance: distance, parentEdge: parentEdge, order: queue)
  }

  /// `order` nil: every node, in id order.
  private init(distance: [Int32]?, parentEdge: [Int32], order: [Int32]?) {
    self.distance = distance
    self.parentEdge = parentEdge
    self.reached = order
  }

  /// The same search in one pass over the edges, without building an adjacency: a walked graph's
  /// edges come grouped by holder in the order the walk expanded them, breadth-first, so each node
  /// is first reached by the edge that found it, and nodes are numbered in the order they were
  /// reached. The result is checked (every edge's holder already reached, no edge leading to a
  /// shorter path); nil when the edges are in another order.
  private static func inWalkOrder(edges: ChunkedArray<CompactEdge>, nodeCount: Int, root: Int)
    -> RootDistances?
  {
    guard root == 0, nodeCount > 0 else { return nil }
    var distance = [Int32](repeating: .max, count: nodeCount)
    var parentEdge = [Int32](repeating: -1, count: nodeCount)
    // Through the arrays' buffers (edge ends are below `nodeCount`): no bounds or uniqueness check
    // per edge.
    let inOrder = distance.withUnsafeMutableBufferPointer { distance in
      parentEdge.withUnsafeMutableBufferPointer { parentEdge in
        distance[0] = 0
        var previousFrom: Int32 = 0
        var previousReached: Int32 = 0
        for index in 0..<edges.count {
          let edge = edges[index]
          let from = Int(edge.from)
          let to = Int(edge.to)
          guard edge.from >= previousFrom, distance[from] != .max else { return false }
          previousFrom = edge.from
          if distance[to] == .max {
            // Reached in id order, or the ids are not the search's order.
            guard edge.to > previousReached else { return false }
            previousReached = edge.to
            distance[to] = distance[from] + 1
            parentEdge[to] = Int32(truncatingIfNeeded: index)
          } else if distance[to] > distance[from] + 1 {
            return false
          }
        }
        return true
      }
    }
    guard inOrder else { return nil }
    // In id order: every node unless some cannot be reached. With every node reached, the
    // distances are not kept: they are made again from the parents when asked for.
    guard distance.contains(.max) else {
      return RootDistances(distance: nil, parentEdge: parentEdge, order: nil)
    }
    let order = (0..<Int32(nodeCount)).filter { distance[Int($0)] != .max }
    return RootDistances(distance: distance, parentEdge: parentEdge, order: order)
  }

  /// Each node's distance from the root.
  /// - Parameter edges: the edges searched.
  /// - Returns: one distance per node, `Int32.max` when it cannot be reached.
  package func distances(edges: ChunkedArray<CompactEdge>) -> [Int32] {
    if let distance { return distance }
    // Every node reached, in id order: a node's parent has a smaller id.
    var made = [Int32](repeating: 0, count: parentEdge.count)
    for node in made.indices where parentEdge[node] >= 0 {
      made[node] = made[Int(edges[Int(parentEdge[node])].from)] + 1
    }
    return made
  }

  /// The member of `nodes` (not empty) nearest the root, the smallest id among equals.
  package func nearest(of nodes: [Int32]) -> Int32 {
    guard let distance else { return nodes.min() ?? nodes[0] }
    return nodes.min { (distance[Int($0)], $0) < (distance[Int($1)], $1) } ?? nodes[0]
  }

  /// The shortest path from the root to `node`.
  /// - Parameters:
  ///   - node: the node to reach.
  ///   - edges: the edges searched.
  /// - Returns: the path's edge indices, in order; nil when `node` cannot be reached.
  package func pathEdges(to node: Int, edges: ChunkedArray<CompactEdge>) -> [Int32]? {
    if let distance, distance[node] == .max { return nil }
    var path: [Int32] = []
    var current = node
    while parentEdge[current] >= 0 {
      path.append(parentEdge[current])
      current = Int(edges[Int(parentEdge[current])].from)
    }
    return path.reversed()
  }
}
