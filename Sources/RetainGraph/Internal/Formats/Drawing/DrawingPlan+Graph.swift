internal import RetainGraphFormats
internal import RetainGraphStorage
internal import RetainGraphSupport

/// The plan of a graph's picture: which nodes are drawn and how, decided here once for every format
/// (the plan's values and the writers are RetainGraphFormats').
extension DrawingPlan {
  /// The plan for drawing `graph` in `style`.
  /// - Complexity: O(*n* + *e*) for *n* nodes and *e* edges.
  package init(graph: ObjectGraph, style: DrawingStyle) {
    let count = graph.nodeCount
    var cycleOf = [Int?](repeating: nil, count: count)
    for (index, cycle) in graph.cycles.enumerated() {
      for member in cycle.members { cycleOf[member] = index }
    }
    let order = Self.drawingOrder(graph: graph, cyclesOnly: style.cyclesOnly)
    let cut = Cut(candidates: order.count, cap: style.maxNodes, cyclesOnly: style.cyclesOnly)
    var shown = [Bool](repeating: false, count: count)
    var candidate = [Bool](repeating: false, count: count)
    for (position, id) in order.enumerated() {
      candidate[id] = true
      if position < cut.drawn { shown[id] = true }
    }
    let depth: [Int?] = graph.storage.distance(from: graph.root).map { $0 == .max ? nil : Int($0) }
    let direction = Self.direction(style.rankDirection, shown: shown, depth: depth)

    func label(of id: Node.ID) -> String {
      let name = style.qualifiedTypeNames ? graph.node(id).typeName : graph.displayName(id)
      return DrawingLabel.wrapped(DrawingLabel.abbreviated(name))
    }
    var drawn: [DrawnNode] = []
    var drawnIndex = [Int32](repeating: -1, count: count)
    for id in 0..<count where shown[id] {
      let node = graph.node(id)
      drawnIndex[id] = Int32(drawn.count)
      drawn.append(
        DrawnNode(
          id: id, name: Self.elementName(of: id), label: label(of: id), typeName: node.typeName,
          kind: NodeKind(node.kind),
          isRoot: id == graph.root, cycle: cycleOf[id]))
    }
    let cycleGroups = graph.cycles.enumerated().compactMap { index, cycle -> CycleGroup? in
      let members = cycle.members.filter { shown[$0] }.map { drawn[Int(drawnIndex[$0])] }
      guard !members.isEmpty else { return nil }
      let count = cycle.members.count
      return CycleGroup(
        index: index, title: "retain cycle \(index + 1) (\(count) \(count == 1 ? "object" : "objects"))",
        members: members)
    }
    let references = Self.references(of: graph, shown: shown, cycleOf: cycleOf, depth: depth)
    let collapsed = Self.collapsedTargets(of: graph, shown: shown, candidate: candidate)
    let notes = Self.notesBox(of: graph, shown: shown)
    let dangling: [DanglingTarget] =
      style.showsDanglingReferences
      ? graph.danglingReferences.enumerated().compactMap { index, dangling -> DanglingTarget? in
        guard shown[dangling.holder] else { return nil }
        return DanglingTarget(
          holder: dangling.holder, name: "dangling\(index)", label: "dangling\n(deinitialized)",
          referenceLabel: DrawingLabel.abbreviated(dangling.label) + " (unowned)")
      } : []
    self.init(
      title: Self.title(of: graph, rootLabel: label(of: graph.root), cut: cut), direction: direction,
      cycleGroups: cycleGroups, nodes: drawn, references: references, collapsed: collapsed, notes: notes,
      dangling: dangling, cut: cut)
  }

  /// The nodes that may be drawn, most important first: the root, then each cycle with the path to
  /// it, then (unless only cycles are drawn) the rest breadth-first from the root, then the unreachable.
  static func drawingOrder(graph: ObjectGraph, cyclesOnly: Bool) -> [Node.ID] {
    var order: [Node.ID] = []
    var seen = Array(repeating: false, count: graph.nodeCount)
    func add(_ id: Node.ID) {
      if !seen[id] {
        seen[id] = true
        order.append(id)
      }
    }
    add(graph.root)
    for cycle in graph.cycles {
      for index in cycle.rootPathEdges.indices { add(Int(graph.storage.edges[Int(index)].from)) }
      for member in cycle.members { add(member) }
    }
    if cyclesOnly { return order }
    // The rest breadth-first from the root, then the unreachable.
    for id in graph.storage.distances(from: graph.root).order { add(Int(id)) }
    for id in 0..<graph.nodeCount { add(id) }
    return order
  }

  /// `requested`, with ``DrawingStyle/RankDirection/automatic`` resolved from the drawn nodes: a
  /// left-to-right picture is about as wide as the graph is deep, with room for a node and an edge
  /// label per level (about three node widths); a top-to-bottom one as wide as its broadest level.
  private static func direction(_ requested: DrawingStyle.RankDirection, shown: [Bool], depth: [Int?])
    -> Direction
  {
    switch requested {
    case .leftToRight: return .leftToRight
    case .topToBottom: return .topToBottom
    case .automatic: break
    }
    var perLevel: [Int: Int] = [:]
    var drawn = 0
    for id in shown.indices where shown[id] {
      drawn += 1
      perLevel[depth[id] ?? -1, default: 0] += 1
    }
    guard drawn > Self.automaticLayoutThreshold else { return .leftToRight }
    let levels = perLevel.count
    let broadest = perLevel.values.max() ?? 1
    return levels * 3 > broadest ? .topToBottom : .leftToRight
  }

  private static func title(of graph: ObjectGraph, rootLabel root: String, cut: Cut) -> String {
    var title: String
    switch graph.cycles.count {
    case 0: title = "\(root): no retain cycle"
    case 1: title = "\(root): 1 retain cycle"
    default: title = "\(root): \(graph.cycles.count) retain cycles"
    }
    if graph.isTruncated {
      title += " (partial graph: a limit stopped the walk)"
    } else if !graph.isComplete {
      title += " (incomplete: parts not read, see the note)"
    }
    let count = graph.nodeCount
    if cut.drawn < count { title += "\n\(count - cut.drawn) of \(count) nodes not drawn" }
    return title
  }
}

extension DrawingPlan.NodeKind {
  /// How a node of `kind` is drawn.
  package init(_ kind: Node.Kind) {
    switch kind {
    case .object: self = .object
    case .closure: self = .closure
    case .value: self = .value
    case .task: self = .task
    }
  }
}

extension DrawingPlan.ReferenceKind {
  /// How a reference of `ownership` is drawn.
  package init(_ ownership: Ownership) {
    switch ownership {
    case .strong: self = .strong
    case .weak: self = .weak
    case .unowned: self = .unowned
    case .unownedUnsafe: self = .unownedUnsafe
    }
  }
}
