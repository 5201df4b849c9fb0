internal import RetainGraphRuntime
internal import RetainGraphStorage
internal import RetainGraphSupport
internal import Synchronization

extension CompactEdge {
  /// An edge whose label is `label`, with `index` (when ≥ 0) appended; nil when they cannot be
  /// packed together (see ``CompactEdge/packedLabelLimit`` and ``CompactEdge/packedIndexLimit``):
  /// then store it with ``WideLabels/edge(from:to:label:index:ownership:)``.
  @inline(__always)
  init?(from: Int, to: Int, label: Int32, index: Int32 = -1, ownership: Ownership) {
    self.init(from: from, to: to, label: label, index: index, ownershipCode: ownership.code)
  }

  var ownership: Ownership { Ownership(code: ownershipCode) }
}

extension WideLabels {
  /// An edge naming `label` and `index`, packed when they fit and otherwise through a new pair;
  /// nil when neither can hold it (more than 2²⁸ labels or pairs).
  mutating func edge(from: Int, to: Int, label: Int32, index: Int32, ownership: Ownership) -> CompactEdge? {
    edge(from: from, to: to, label: label, index: index, ownershipCode: ownership.code)
  }
}

extension Ownership {
  /// The ownership's code in a ``CompactEdge`` (and in the forked walk's bytes): 0 strong, 1 weak,
  /// 2 unowned, 3 unowned(unsafe).
  var code: UInt8 {
    switch self {
    case .strong: 0
    case .weak: 1
    case .unowned: 2
    case .unownedUnsafe: 3
    }
  }

  /// The ownership whose code is `code` (see ``code``; any code above 2 is unowned(unsafe)).
  init(code: UInt8) {
    switch code {
    case 0: self = .strong
    case 1: self = .weak
    case 2: self = .unowned
    default: self = .unownedUnsafe
    }
  }
}

/// The nodes and edges of a graph, stored compactly: type names and labels interned, ids as
/// 32-bit integers. Immutable once built; `Node` and `Edge` values are made when read (the public
/// views ``ObjectGraph/Nodes`` and ``ObjectGraph/Edges`` keep none).
final class GraphStorage: Sendable {
  let typeNames: [String]
  let nodeTypes: [Int32]
  let nodeKinds: [Node.Kind]
  /// The structured labels the edges name (see ``labelID(_:)``).
  let labels: [ReferencePath]
  let edges: ChunkedArray<CompactEdge>
  /// The label and index pairs of edges too wide to pack.
  let wideLabels: WideLabels
  private let rootSearch = Mutex<(root: Int, distances: RootDistances)?>(nil)
  private let rootDistance = Mutex<(root: Int, distance: [Int32])?>(nil)
  private let outgoing = Mutex<(offsets: [Int32], edgeIndices: [Int32])?>(nil)
  /// Where the declarations the cycles' fixes edit are written (``Cycle/Break/location``).
  let sourceLocations = SourceLocationTable()

  init(
    typeNames: [String], nodeTypes: [Int32], nodeKinds: [Node.Kind], labels: [ReferencePath],
    edges: ChunkedArray<CompactEdge>, wideLabels: WideLabels = WideLabels()
  ) {
    self.typeNames = typeNames
    self.nodeTypes = nodeTypes
    self.nodeKinds = nodeKinds
    self.labels = labels
    self.edges = edges
    self.wideLabels = wideLabels
  }

  /// Interns the names and labels of public nodes and edges (ids already validated); nil when
  /// there are more distinct labels than a compact edge can name (2²⁹).
  convenience init?(nodes: some Collection<Node>, edges: some Collection<Edge>) {
    var typeNames = Interner<String>()
    var labels = Interner<ReferencePath>()
    let nodeTypes = nodes.map { typeNames.intern($0.typeName) }
    var compact = ChunkedArray<CompactEdge>()
    for edge in edges {
      var reference = ReferencePath(label: edge.label, kind: edge.kind, property: edge.property)
      reference.function = edge.closureFunction
      let label = labels.intern(reference)
      guard let packed = CompactEdge(from: edge.from, to: edge.to, label: label, ownership: edge.ownership)
      else { return nil }
      compact.append(packed)
    }
    self.init(
      typeNames: typeNames.values, nodeTypes: nodeTypes, nodeKinds: nodes.map(\.kind),
      labels: labels.values,
      edges: compact)
  }

  var nodeCount: Int { nodeTypes.count }

  /// The breadth-first search from `root`, made once and kept.
  func distances(from root: Int) -> RootDistances {
    if let cached = rootSearch.withLock({ $0 }), cached.root == root { return cached.distances }
    let distances = RootDistances(edges: edges, nodeCount: nodeCount, root: root)
    rootSearch.withLock { $0 = (root, distances) }
    return distances
  }

  /// Each node's distance from `root` (`Int32.max` when it cannot be reached), made once and kept
  /// (a walked graph's search does not keep it: see ``RootDistances/distances(edges:)``).
  func distance(from root: Int) -> [Int32] {
    if let cached = rootDistance.withLock({ $0 }), cached.root == root { return cached.distance }
    let distance = distances(from: root).distances(edges: edges)
    rootDistance.withLock { $0 = (root, distance) }
    return distance
  }

  func typeName(_ node: Int) -> String { typeNames[Int(nodeTypes[node])] }

  func shortTypeName(_ node: Int) -> String { TypeNames.short(typeName(node)) }

  /// The interned label of `edge` (an index into ``labels``).
  func labelID(_ edge: CompactEdge) -> Int32 { wideLabels.resolve(edge).label }

  /// The element index `edge` appends to its label, or -1.
  func index(_ edge: CompactEdge) -> Int32 { wideLabels.resolve(edge).index }

  /// The label text of `edge`.
  func label(_ edge: CompactEdge) -> String {
    let (label, index) = wideLabels.resolve(edge)
    return labels[Int(label)].text(number: index)
  }

  /// How `edge` is stored in its holder.
  func reference(_ edge: CompactEdge) -> ReferencePath { labels[Int(labelID(edge))] }

  /// Where in its holder `edge` is stored, without what its kind adds (`greeting` for
  /// `greeting (closure)`).
  func storagePath(_ edge: CompactEdge) -> String {
    let (label, index) = wideLabels.resolve(edge)
    return labels[Int(label)].storagePath(number: index)
  }

  func node(_ id: Int) -> Node {
    Node(id: id, typeName: typeName(id), kind: nodeKinds[id])
  }

  func edge(_ index: Int) -> Edge {
    let compact = edges[index]
    let (label, number) = wideLabels.resolve(compact)
    let reference = labels[Int(label)]
    return Edge(
      from: Int(compact.from), to: Int(compact.to), label: reference.text(number: number),
      ownership: compact.ownership, kind: reference.kind, property: reference.property,
      closureFunction: reference.function)
  }

  /// ``adjacency(strongOnly:)`` of every edge, made once (cycles' signatures read it).
  func allOutgoingEdges() -> (offsets: [Int32], edgeIndices: [Int32]) {
    if let cached = outgoing.withLock({ $0 }) { return cached }
    let made = adjacency(strongOnly: false)
    outgoing.withLock { $0 = made }
    return made
  }

  /// Successor node ids of every node in compressed form (see
  /// `ChunkedArray<CompactEdge>.successors(nodeCount:strongOnly:)`).
  func successors(strongOnly: Bool) -> (offsets: [Int32], targets: [Int32]) {
    edges.successors(nodeCount: nodeCount, strongOnly: strongOnly)
  }

  /// Outgoing edge indices of every node in compressed form (see
  /// `ChunkedArray<CompactEdge>.adjacency(nodeCount:strongOnly:)`).
  func adjacency(strongOnly: Bool) -> (offsets: [Int32], edgeIndices: [Int32]) {
    edges.adjacency(nodeCount: nodeCount, strongOnly: strongOnly)
  }

  /// The strong edges in rows by holder (see `ChunkedArray<CompactEdge>.strongRows(nodeCount:)`).
  func strongRows() -> StrongRows { edges.strongRows(nodeCount: nodeCount) }
}

extension RootDistances {
  /// Each node's distance from the root (`Int32.max` when it cannot be reached) in `storage`.
  func distances(in storage: GraphStorage) -> [Int32] { distances(edges: storage.edges) }

  /// The edge indices of the shortest path from the root to `node` in `storage`, nil when it cannot
  /// be reached.
  func pathEdges(to node: Int, in storage: GraphStorage) -> [Int32]? {
    pathEdges(to: node, edges: storage.edges)
  }
}
