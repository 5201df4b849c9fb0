extension ObjectGraph {
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
