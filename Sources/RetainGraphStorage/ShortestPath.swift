/// Breadth-first search for a shortest path, over any graph whose references have ids. `public`
/// with an `@inlinable` search, as ``CompactEdge`` is: its callers' closures are called per
/// reference.
public enum ShortestPath {
  /// A shortest path from one node to another.
  /// - Parameters:
  ///   - start: the node to start from.
  ///   - goal: the node to reach.
  ///   - reachedBy: scratch space, one entry per node, all -1; left so.
  ///   - references: calls `visit` with each reference of a node that may be used and its target,
  ///     in the order to explore them, until `visit` returns true (the goal is found).
  ///   - holder: the node a reference comes from.
  /// - Returns: the path's references, in order; nil when there is none.
  @inlinable
  package static func search(
    from start: Int32, to goal: Int32, reachedBy: inout [Int32],
    references: (Int, (Int32, Int32) -> Bool) -> Void, holder: (Int32) -> Int32
  ) -> [Int32]? {
    var queue: [Int32] = [start]
    // Every entry set is the goal's or a queued node's.
    defer {
      for node in queue { reachedBy[Int(node)] = -1 }
      reachedBy[Int(goal)] = -1
    }
    var head = 0
    var found = start == goal
    while head < queue.count, !found {
      let node = Int(queue[head])
      head += 1
      references(node) { reference, target in
        guard target != start, reachedBy[Int(target)] < 0 else { return false }
        reachedBy[Int(target)] = reference
        if target == goal {
          found = true
          return true
        }
        queue.append(target)
        return false
      }
    }
    guard found else { return nil }
    var path: [Int32] = []
    var node = goal
    while node != start {
      path.append(reachedBy[Int(node)])
      node = holder(reachedBy[Int(node)])
    }
    return path.reversed()
  }
}
