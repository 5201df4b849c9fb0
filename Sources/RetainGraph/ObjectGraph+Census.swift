internal import RetainGraphStorage

extension ObjectGraph {
  /// ``walk(_:options:)`` that also returns each closure context node's context (the heap census
  /// searches the holders of a closure context too).
  /// - Parameters:
  ///   - root: the object or value to start from.
  ///   - options: limits and filters.
  /// - Returns: the graph, and `objects[id]`: the object or closure context of node `id`.
  package static func walkKeepingContexts(
    _ root: Any, options: GraphOptions = GraphOptions()
  ) -> (graph: ObjectGraph, objects: [AnyObject?]) {
    var walker = Walker(options: options)
    let result = walker.walk(root, keepingObjects: true, keepingContexts: true)
    return (ObjectGraph(walk: result, options: options), result.objects)
  }

  /// Each edge's endpoints and whether it is strong, in edge order, without making the edges'
  /// labels (the heap census's reverse search reads a million edges and labels only a few).
  package func edgeEnds() -> (from: [Int32], to: [Int32], isStrong: [Bool]) {
    var from: [Int32] = []
    var to: [Int32] = []
    var isStrong: [Bool] = []
    from.reserveCapacity(edgeCount)
    to.reserveCapacity(edgeCount)
    isStrong.reserveCapacity(edgeCount)
    for edge in storage.edges {
      from.append(edge.from)
      to.append(edge.to)
      isStrong.append(edge.isStrong)
    }
    return (from, to, isStrong)
  }
}
