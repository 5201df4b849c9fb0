package import RetainGraphSupport

/// Strongly connected components, by Tarjan's algorithm (R. E. Tarjan, "Depth-first search and
/// linear graph algorithms", SIAM J. Computing 1(2), 1972), with an explicit stack so deep graphs do
/// not use the thread's stack.
///
/// - Complexity: O(*n* + *e*) time; 32-bit arrays of *n* entries (a deep search's path costs 4
///   bytes a node: each open node's next position).
package enum Tarjan {
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
  package static func cyclicComponents(
    nodeCount: Int, offsets: [Int32], edgeIndices: [Int32]?, edges: ChunkedArray<CompactEdge>,
    backEdgeSpans: inout [UInt8]
  ) -> [[Int32]] {
    precondition(offsets.count == nodeCount + 1 && backEdgeSpans.count == Int(offsets[nodeCount]))
    return offsets.withUnsafeBufferPointer { offsets in
      backEdgeSpans.withUnsafeMutableBufferPointer { spans in
        if let edgeIndices {
          return edgeIndices.withUnsafeBufferPointer { edgeIndices in
            search(nodeCount: nodeCount, offsets: offsets, spans: spans) { position in
              let edge = edges[Int(edgeIndices[position])]
              return edge.isStrong ? Int(edge.to) : -1
            }
          }
        }
        return search(nodeCount: nodeCount, offsets: offsets, spans: spans) { position in
          let edge = edges[position]
          return edge.isStrong ? Int(edge.to) : -1
        }
      }
    }
  }

  /// The search itself, over memory of its own: the per-node state and the path are read and
  /// written through pointers (a node costs about 30 reads and writes; through arrays each paid a
  /// bounds check, and each write a uniqueness check). `target(position)` is the strong target at
  /// a position, or -1; positions are below `offsets[nodeCount]`, node ids below `nodeCount`.
  @inline(__always)
  private static func search(
    nodeCount: Int, offsets: UnsafeBufferPointer<Int32>, spans: UnsafeMutableBufferPointer<UInt8>,
    target: (Int) -> Int
  ) -> [[Int32]] {
    let unvisited: Int32 = -1
    let index = UnsafeMutablePointer<Int32>.allocate(capacity: nodeCount)
    index.initialize(repeating: unvisited, count: nodeCount)
    let lowlink = UnsafeMutablePointer<Int32>.allocate(capacity: nodeCount)
    // Per node: `off` when not on the stack, `closed` when on it with its search done, `open` while
    // it is searched (an ancestor of the node being searched).
    let off: UInt8 = 0
    let closed: UInt8 = 1
    let open: UInt8 = 2
    let stackState = UnsafeMutablePointer<UInt8>.allocate(capacity: nodeCount)
    stackState.initialize(repeating: off, count: nodeCount)
    // The search's path: for each open node, the position of the next reference to look at. The
    // node itself is not kept: it is the target of the reference its parent is at (the one before
    // the parent's next), or the start. Room for every node (a list's search is as deep as the
    // list): pages not written to are not resident.
    let frames = UnsafeMutablePointer<Int32>.allocate(capacity: Swift.max(nodeCount, 1))
    var depth = 0
    defer {
      index.deallocate()
      lowlink.deallocate()
      stackState.deallocate()
      frames.deallocate()
    }
    // The nodes whose component is not closed yet. An array, so that a component of the whole
    // stack can take its memory.
    var stack: [Int32] = []
    stack.reserveCapacity(nodeCount)
    var components: [[Int32]] = []
    var nextIndex: Int32 = 0

    for start in 0..<nodeCount where index[start] == unvisited {
      // The node whose search is at the top of `frames`.
      var node = start
      frames[0] = offsets[start]
      depth = 1
      index[start] = nextIndex
      lowlink[start] = nextIndex
      nextIndex += 1
      stack.append(Int32(start))
      stackState[start] = open

      while depth > 0 {
        let next = Int(frames[depth - 1])
        if next < Int(offsets[node + 1]) {
          frames[depth - 1] += 1
          let successor = target(next)
          guard successor >= 0 else { continue }
          if index[successor] == unvisited {
            index[successor] = nextIndex
            lowlink[successor] = nextIndex
            nextIndex += 1
            stack.append(Int32(successor))
            stackState[successor] = open
            frames[depth] = offsets[successor]
            depth += 1
            node = successor
          } else if stackState[successor] != off {
            lowlink[node] = Swift.min(lowlink[node], index[successor])
            if stackState[successor] == open, successor != node {
              let span = index[node] - index[successor] + 1
              spans[next] = UInt8(Swift.min(span, 255))
            }
          }
          continue
        }
        depth -= 1
        let finished = node
        stackState[finished] = closed
        if depth > 0 {
          // The parent: the target of the reference its own parent followed to it.
          node = depth == 1 ? start : target(Int(frames[depth - 2]) - 1)
          lowlink[node] = Swift.min(lowlink[node], lowlink[finished])
        }
        if lowlink[finished] == index[finished] {
          // The component is the stack from `finished` up. Most are single nodes without a cycle:
          // nothing is allocated for them.
          var first = stack.count - 1
          while stack[first] != Int32(finished) { first -= 1 }
          let count = stack.count - first
          let hasSelfLoop =
            count == 1
            && (Int(offsets[finished])..<Int(offsets[finished + 1])).contains { target($0) == finished }
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
