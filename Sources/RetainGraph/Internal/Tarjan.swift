/// Strongly connected components, by Tarjan's algorithm (R. E. Tarjan, "Depth-first search and
/// linear graph algorithms", SIAM J. Computing 1(2), 1972), with an explicit stack so deep graphs do
/// not use the thread's stack.
///
/// - Complexity: O(*n* + *e*).
struct Tarjan {
  /// `adjacency[v]` lists the successors of `v`.
  static func components(nodeCount: Int, successors: (Int) -> ArraySlice<Int>) -> [[Int]] {
    let unvisited = -1
    var index = [Int](repeating: unvisited, count: nodeCount)
    var lowlink = [Int](repeating: 0, count: nodeCount)
    var onStack = [Bool](repeating: false, count: nodeCount)
    var stack: [Int] = []
    var components: [[Int]] = []
    var nextIndex = 0
    // Each frame: a node and the position of the next successor to look at.
    var frames: [(node: Int, next: Int)] = []

    for start in 0..<nodeCount where index[start] == unvisited {
      frames.append((start, 0))
      index[start] = nextIndex
      lowlink[start] = nextIndex
      nextIndex += 1
      stack.append(start)
      onStack[start] = true

      while let frame = frames.last {
        let node = frame.node
        let next = successors(node)
        if frame.next < next.count {
          let successor = next[next.startIndex + frame.next]
          frames[frames.count - 1].next += 1
          if index[successor] == unvisited {
            index[successor] = nextIndex
            lowlink[successor] = nextIndex
            nextIndex += 1
            stack.append(successor)
            onStack[successor] = true
            frames.append((successor, 0))
          } else if onStack[successor] {
            lowlink[node] = min(lowlink[node], index[successor])
          }
          continue
        }
        frames.removeLast()
        if let parent = frames.last {
          lowlink[parent.node] = min(lowlink[parent.node], lowlink[node])
        }
        if lowlink[node] == index[node] {
          var component: [Int] = []
          while let member = stack.popLast() {
            onStack[member] = false
            component.append(member)
            if member == node { break }
          }
          components.append(component)
        }
      }
    }
    return components
  }
}
