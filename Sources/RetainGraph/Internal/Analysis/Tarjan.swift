/// Strongly connected components, by Tarjan's algorithm (R. E. Tarjan, "Depth-first search and
/// linear graph algorithms", SIAM J. Computing 1(2), 1972), with an explicit stack so deep graphs do
/// not use the thread's stack.
///
/// - Complexity: O(*n* + *e*) time; 32-bit arrays of *n* entries (a deep search's path costs 4
///   bytes a node: each open node's next position).
enum Tarjan {
  /// The components that contain a cycle: more than one node, or one node with an edge to itself.
  /// - Parameters:
  ///   - nodeCount: the number of nodes.
  ///   - offsets: positions `offsets[n]..<offsets[n + 1]` hold the references of node `n`.
  ///   - edgeIndices: the edge at each position; nil when position `p` is edge `p`.
  ///   - edges: the graph's edges; those not strong are skipped.
  ///   - backEdgeSpans: one entry per position, all 0; set for each back edge of the search (an
  ///     edge to a node whose search is still open: an ancestor), self-references left out, to its
  ///     span: one more than the difference of the two nodes' visiting order, at most 255, which
  ///     bounds the length of the loop it closes over the search tree's edges. Every back edge joins
  ///     two nodes of one component, and weakening them all leaves no cycle but self-references (the
  ///     tree, forward and cross edges of a depth-first search form none).
  /// - Returns: each cyclic component's nodes, in the order Tarjan's algorithm closes them.
  static func cyclicComponents(
    nodeCount: Int, offsets: [Int32], edgeIndices: [Int32]?, edges: ChunkedArray<CompactEdge>,
    backEdgeSpans: inout [UInt8]
  ) -> [[Int32]] {
    // The strong target at a position, or -1.
    func target(at position: Int) -> Int {
      let edge = edges[edgeIndices.map { Int($0[position]) } ?? position]
      return edge.isStrong ? Int(edge.to) : -1
    }
    let unvisited: Int32 = -1
    var index = [Int32](repeating: unvisited, count: nodeCount)
    var lowlink = [Int32](repeating: 0, count: nodeCount)
    // Per node: `off` when not on the stack, `closed` when on it with its search done, `open` while
    // it is searched (an ancestor of the node being searched).
    let off: UInt8 = 0
    let closed: UInt8 = 1
    let open: UInt8 = 2
    var stackState = [UInt8](repeating: off, count: nodeCount)
    var stack: [Int32] = []
    var components: [[Int32]] = []
    var nextIndex: Int32 = 0
    // The search's path: for each open node, the position of the next reference to look at. The
    // node itself is not kept: it is the target of the reference its parent is at (the one before
    // the parent's next), or the start.
    var frames: [Int32] = []
    // Room for every node, so that neither stack is copied as it grows (a list's search is as deep
    // as the list): pages not written to are not resident.
    stack.reserveCapacity(nodeCount)
    frames.reserveCapacity(nodeCount)

    for start in 0..<nodeCount where index[start] == unvisited {
      // The node whose search is at the top of `frames`.
      var node = start
      frames.append(offsets[start])
      index[start] = nextIndex
      lowlink[start] = nextIndex
      nextIndex += 1
      stack.append(Int32(start))
      stackState[start] = open

      while let next = frames.last.map(Int.init) {
        if next < Int(offsets[node + 1]) {
          frames[frames.count - 1] += 1
          let successor = target(at: next)
          guard successor >= 0 else { continue }
          if index[successor] == unvisited {
            index[successor] = nextIndex
            lowlink[successor] = nextIndex
            nextIndex += 1
            stack.append(Int32(successor))
            stackState[successor] = open
            frames.append(offsets[successor])
            node = successor
          } else if stackState[successor] != off {
            lowlink[node] = min(lowlink[node], index[successor])
            if stackState[successor] == open, successor != node {
              let span = index[node] - index[successor] + 1
              backEdgeSpans[next] = UInt8(min(span, 255))
            }
          }
          continue
        }
        frames.removeLast()
        let finished = node
        stackState[finished] = closed
        if !frames.isEmpty {
          // The parent: the target of the reference its own parent followed to it.
          node = frames.count == 1 ? start : target(at: Int(frames[frames.count - 2]) - 1)
          lowlink[node] = min(lowlink[node], lowlink[finished])
        }
        if lowlink[finished] == index[finished] {
          // The component is the stack from `finished` up. Most are single nodes without a cycle:
          // nothing is allocated for them.
          var first = stack.count - 1
          while stack[first] != Int32(finished) { first -= 1 }
          let count = stack.count - first
          let hasSelfLoop =
            count == 1
            && (Int(offsets[finished])..<Int(offsets[finished + 1])).contains { target(at: $0) == finished }
          for position in first..<stack.count { stackState[Int(stack[position])] = off }
          // Listed in the order they leave the stack, the last pushed first. A component of the
          // whole stack that fills most of its room takes the stack's memory (no copy).
          if first == 0, count > 1, count * 2 >= stack.capacity {
            var whole: [Int32] = []
            swap(&whole, &stack)
            whole.reverse()
            components.append(whole)
            stack.reserveCapacity(nodeCount - Int(nextIndex))
          } else {
            if count > 1 || hasSelfLoop { components.append(stack[first...].reversed()) }
            stack.removeLast(count)
          }
        }
      }
    }
    return components
  }
}
