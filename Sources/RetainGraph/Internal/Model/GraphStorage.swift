internal import RetainGraphRuntime
internal import RetainGraphSupport
internal import Synchronization

/// An edge in compact form, 12 bytes: its ends, and one word holding the ownership (2 bits) and the
/// label: an interned label (28 bits), or an interned label and an element index appended as
/// `[index]` (13 + 16 bits) when both fit, so that a million `items[i]` share one label; or, when
/// they do not fit (`items[70000]`), the position of the pair in its storage's ``WideLabels``.
/// Read its label and index through ``GraphStorage/labelID(_:)`` and ``GraphStorage/index(_:)``.
struct CompactEdge: Sendable {
  var from: Int32
  var to: Int32
  private var word: UInt32

  private static let indexedFlag: UInt32 = 1 << 2
  /// The largest label and index that can be packed together; others need a label of their own.
  static let packedLabelLimit: Int32 = 1 << 13
  static let packedIndexLimit: Int32 = 1 << 16

  /// Labels from this value up name a pair in ``WideLabels`` (a label and an index that do not
  /// pack together), not an interned label.
  static let wideBase: Int32 = 1 << 28

  /// An edge whose label is `label`, with `index` (when ≥ 0) appended; nil when they cannot be
  /// packed together (see ``packedLabelLimit`` and ``packedIndexLimit``): then store it with
  /// ``WideLabels/edge(from:to:label:index:ownership:)``.
  init?(from: Int, to: Int, label: Int32, index: Int32 = -1, ownership: Ownership) {
    if index < 0 {
      guard label < Self.wideBase else { return nil }
      self.init(from: from, to: to, word: UInt32(bitPattern: label) << 3 | UInt32(ownership.code))
    } else {
      guard label < Self.packedLabelLimit, index < Self.packedIndexLimit else { return nil }
      self.init(
        from: from, to: to,
        word: UInt32(bitPattern: index) << 16 | UInt32(bitPattern: label) << 3 | Self.indexedFlag
          | UInt32(ownership.code))
    }
  }

  fileprivate init(from: Int, to: Int, word: UInt32) {
    self.from = Int32(truncatingIfNeeded: from)
    self.to = Int32(truncatingIfNeeded: to)
    self.word = word
  }

  /// The interned label, or ``wideBase`` + the position of the edge's pair in its ``WideLabels``.
  fileprivate var packedLabel: Int32 {
    word & Self.indexedFlag == 0 ? Int32(bitPattern: word >> 3) : Int32(bitPattern: (word >> 3) & 0x1FFF)
  }
  /// The element index packed with the label, or -1.
  fileprivate var packedIndex: Int32 { word & Self.indexedFlag == 0 ? -1 : Int32(bitPattern: word >> 16) }
  var ownership: Ownership { Ownership(code: UInt8(word & 3)) }
  var isStrong: Bool { word & 3 == 0 }
}

/// The labels and element indices of edges whose pair does not pack into a ``CompactEdge``
/// (`items[70000]`): kept beside the edges, so that a million-element array needs no label per
/// element.
struct WideLabels: Sendable {
  private(set) var pairs = ChunkedArray<WidePair>()

  struct WidePair: Sendable {
    var label: Int32
    var index: Int32
  }

  /// An edge naming `label` and `index`, packed when they fit and otherwise through a new pair;
  /// nil when neither can hold it (more than 2²⁸ labels or pairs).
  mutating func edge(from: Int, to: Int, label: Int32, index: Int32, ownership: Ownership) -> CompactEdge? {
    if let packed = CompactEdge(from: from, to: to, label: label, index: index, ownership: ownership) {
      return packed
    }
    guard label < CompactEdge.wideBase, pairs.count < Int(CompactEdge.wideBase) else { return nil }
    pairs.append(WidePair(label: label, index: index))
    return CompactEdge(
      from: from, to: to,
      word: UInt32(bitPattern: CompactEdge.wideBase + Int32(pairs.count - 1)) << 3 | UInt32(ownership.code))
  }

  /// The interned label and the element index (-1 for none) of `edge`.
  func resolve(_ edge: CompactEdge) -> (label: Int32, index: Int32) {
    let label = edge.packedLabel
    guard label >= CompactEdge.wideBase else { return (label, edge.packedIndex) }
    let pair = pairs[Int(label - CompactEdge.wideBase)]
    return (pair.label, pair.index)
  }
}

extension Ownership {
  var code: UInt8 {
    switch self {
    case .strong: 0
    case .weak: 1
    case .unowned: 2
    case .unownedUnsafe: 3
    }
  }

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
  /// The structured labels the edges name (see ``CompactEdge/label``).
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
    let distances = RootDistances(storage: self, root: root)
    rootSearch.withLock { $0 = (root, distances) }
    return distances
  }

  /// Each node's distance from `root` (`Int32.max` when it cannot be reached), made once and kept
  /// (a walked graph's search does not keep it: see ``RootDistances/distances(in:)``).
  func distance(from root: Int) -> [Int32] {
    if let cached = rootDistance.withLock({ $0 }), cached.root == root { return cached.distance }
    let distance = distances(from: root).distances(in: self)
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

  /// Successor node ids of every node in compressed form: the successors of node `n` are
  /// `targets[offsets[n]..<offsets[n + 1]]`, in edge order.
  func successors(strongOnly: Bool) -> (offsets: [Int32], targets: [Int32]) {
    compressed(strongOnly: strongOnly) { _, edge in edge.to }
  }

  /// Outgoing edge indices of every node in compressed form: the edges of node `n` are
  /// `edgeIndices[offsets[n]..<offsets[n + 1]]`, in edge order.
  func adjacency(strongOnly: Bool) -> (offsets: [Int32], edgeIndices: [Int32]) {
    compressed(strongOnly: strongOnly) { index, _ in Int32(index) }
  }

  /// The strong edges in rows by holder: the edges of node `n` are at positions
  /// `offsets[n]..<offsets[n + 1]`, in edge order (see ``StrongRows``). A walked graph's edges
  /// already come grouped by holder, holders ascending: then the rows are the edges themselves
  /// (position `p` is edge `p`, weak ones included), and only the offsets are made.
  func strongRows() -> StrongRows {
    var offsets = [Int32](repeating: 0, count: nodeCount + 1)
    let inEdgeOrder = offsets.withUnsafeMutableBufferPointer { offsets in
      // Through the buffer (holders are below `nodeCount`): no bounds or uniqueness check per edge.
      var previous: Int32 = 0
      for index in 0..<edges.count {
        let from = edges[index].from
        guard from >= previous else { return false }
        previous = from
        offsets[Int(from) + 1] += 1
      }
      for node in 0..<nodeCount { offsets[node + 1] += offsets[node] }
      return true
    }
    if inEdgeOrder { return StrongRows(offsets: offsets, edgeIndices: nil) }
    let (strongOffsets, edgeIndices) = adjacency(strongOnly: true)
    return StrongRows(offsets: strongOffsets, edgeIndices: edgeIndices)
  }

  /// One entry per (strong) edge, grouped by the node the edge comes from (compressed sparse rows).
  private func compressed(
    strongOnly: Bool, _ entry: (Int, CompactEdge) -> Int32
  ) -> ([Int32], [Int32]) {
    var offsets = [Int32](repeating: 0, count: nodeCount + 1)
    for edge in edges where !strongOnly || edge.isStrong { offsets[Int(edge.from) + 1] += 1 }
    for node in 0..<nodeCount { offsets[node + 1] += offsets[node] }
    var cursor = offsets
    var entries = [Int32](repeating: 0, count: Int(offsets[nodeCount]))
    for (index, edge) in edges.enumerated() where !strongOnly || edge.isStrong {
      let from = Int(edge.from)
      entries[Int(cursor[from])] = entry(index, edge)
      cursor[from] += 1
    }
    return (offsets, entries)
  }
}

/// The strong edges of a graph in rows by holder (see ``GraphStorage/strongRows()``): each position
/// names an edge (``edgeIndex(at:)``); when the rows are the graph's own edges, weak ones are among
/// them, so a reader skips the positions whose edge is not strong.
struct StrongRows {
  var offsets: [Int32]
  /// The edge index at each position; nil when position `p` is edge `p` (the edges are grouped by
  /// holder already).
  var edgeIndices: [Int32]?
  /// For each position, 0 unless the edge is a back edge of Tarjan's search; then its span, which
  /// bounds the loop it closes over the search tree, at most 255 (set by the cycle finder; see
  /// `Tarjan.cyclicComponents`).
  var backEdgeSpan: [UInt8] = []

  /// How many positions the rows have.
  var count: Int { Int(offsets[offsets.count - 1]) }

  /// The index of the edge at `position`.
  @inline(__always)
  func edgeIndex(at position: Int) -> Int32 {
    if let edgeIndices { return edgeIndices[position] }
    return Int32(truncatingIfNeeded: position)
  }
}
