extension ObjectGraph {
  /// Every node of a graph, `nodes[id]` the node with that id: a random-access view over the
  /// graph's compact storage, which makes each ``Node`` when it is read and keeps none.
  ///
  /// Reading it costs no memory beyond the graph's (a million-node graph does not become a
  /// million-element array); `Array(graph.nodes)` makes one when a caller needs an array.
  public struct Nodes: RandomAccessCollection, Sendable, Equatable {
    let storage: GraphStorage

    /// The first node's id, 0.
    public var startIndex: Node.ID { 0 }
    /// The number of nodes: one past the last node's id.
    public var endIndex: Node.ID { storage.nodeCount }

    /// The node with id `id`.
    /// - Complexity: O(1).
    public subscript(id: Node.ID) -> Node {
      precondition(id >= 0 && id < storage.nodeCount, "node id out of range")
      return storage.node(id)
    }

    /// Whether both views list equal nodes in the same order.
    public static func == (lhs: Nodes, rhs: Nodes) -> Bool {
      lhs.storage === rhs.storage || lhs.elementsEqual(rhs)
    }

    /// Whether the view lists the nodes of the array, in its order (as `graph.nodes`
    /// compared when it was an array).
    public static func == (lhs: Nodes, rhs: [Node]) -> Bool { lhs.elementsEqual(rhs) }
    /// Whether the view lists the nodes of the array, in its order.
    public static func == (lhs: [Node], rhs: Nodes) -> Bool { lhs.elementsEqual(rhs) }
    /// Whether the view and the array list different nodes.
    public static func != (lhs: Nodes, rhs: [Node]) -> Bool { !(lhs == rhs) }
    /// Whether the array and the view list different nodes.
    public static func != (lhs: [Node], rhs: Nodes) -> Bool { !(lhs == rhs) }
  }

  /// Every reference of a graph, in walk order, `edges[i]` the edge at index `i`: a random-access
  /// view over the graph's compact storage, which makes each ``Edge`` (its label's text included)
  /// when it is read and keeps none.
  ///
  /// Reading it costs no memory beyond the graph's; `Array(graph.edges)` makes an array.
  public struct Edges: RandomAccessCollection, Sendable, Equatable {
    let storage: GraphStorage

    /// The first edge's index, 0.
    public var startIndex: Int { 0 }
    /// The number of edges.
    public var endIndex: Int { storage.edges.count }

    /// The edge at `index`.
    /// - Complexity: O(1), and O(*n*) in the length of the edge's label, which is made as text.
    public subscript(index: Int) -> Edge {
      precondition(index >= 0 && index < storage.edges.count, "edge index out of range")
      return storage.edge(index)
    }

    /// Whether both views list equal edges in the same order.
    public static func == (lhs: Edges, rhs: Edges) -> Bool {
      lhs.storage === rhs.storage || lhs.elementsEqual(rhs)
    }

    /// Whether the view lists the edges of the array, in its order (as `graph.edges`
    /// compared when it was an array).
    public static func == (lhs: Edges, rhs: [Edge]) -> Bool { lhs.elementsEqual(rhs) }
    /// Whether the view lists the edges of the array, in its order.
    public static func == (lhs: [Edge], rhs: Edges) -> Bool { lhs.elementsEqual(rhs) }
    /// Whether the view and the array list different edges.
    public static func != (lhs: Edges, rhs: [Edge]) -> Bool { !(lhs == rhs) }
    /// Whether the array and the view list different edges.
    public static func != (lhs: [Edge], rhs: Edges) -> Bool { !(lhs == rhs) }
  }
}
