internal import RetainGraphRuntime

extension ObjectGraph {
  /// The node of `object`, a live object that the walk reached: found by the address the walk saw
  /// it at, and only if the object there is still of the type the walk recorded.
  ///
  /// ```swift
  /// let graph = ObjectGraph(reflecting: screen)
  /// if let node = graph.node(for: screen.presenter), let path = graph.path(to: node.id) {
  ///   print(path.map(\.label).joined(separator: "."))   // how the screen reaches its presenter
  /// }
  /// ```
  /// Works for a graph from ``init(reflecting:options:)`` and from
  /// ``init(snapshotting:options:timeout:)`` (the forked child shares the parent's addresses). A
  /// graph read from JSON or made from parts knows no addresses and answers nil.
  ///
  /// - Important: The graph holds no reference to its objects, so ask while they are alive. An
  ///   object deallocated since the walk may have left its address to a new object: one of another
  ///   type is told apart, one of the same type is taken for the old node.
  /// - Parameter object: the object to look up.
  /// - Returns: the object's node, or nil when the walk did not reach it (or it is not a node of
  ///   this graph, such as an object the walk was told to ignore).
  /// - Complexity: O(1) after a first call that indexes the graph's objects in O(*n*).
  public func node(for object: AnyObject) -> Node? {
    let pointer = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    guard let id = objectAddresses.node(at: UInt(bitPattern: pointer)),
      TypePlans.plan(for: HeapLayout.dynamicType(ofObject: pointer)).typeName == storage.typeName(id)
    else { return nil }
    return storage.node(id)
  }
}
