internal import RetainGraphStorage
internal import RetainGraphSupport

/// What a picture of a graph shows, decided once for every format: DOT (and through Graphviz the
/// SVG, PNG, PDF and the HTML page's drawing), and any new one. A format writes the plan in its own
/// words with the colours of ``DrawingPalette``; it decides nothing.
///
/// The plan holds the nodes drawn (most important first up to the node cap: the root, each cycle
/// and the path to it, then breadth-first), each with its element name, label, full type name and
/// cycle; the cycles that have a drawn member; the references between drawn nodes with their marks;
/// per holder how many of its targets were cut; the notes box; the dangling references; the
/// direction and the title; and how many nodes were cut and why (``cut``).
package struct DrawingPlan {
  /// A node drawn.
  package struct DrawnNode {
    package let id: Node.ID
    /// The element's name, which the SVG keeps as the node's `<title>`: `n12` for node 12.
    package let name: String
    /// What the box says: the short (or qualified) type name, a closure's name as the fix lines
    /// write it, shortened and wrapped (``DrawingLabel``).
    package let label: String
    /// The full type name (a tooltip).
    package let typeName: String
    package let kind: Node.Kind
    package let isRoot: Bool
    /// The index in `graph.cycles` of the cycle the node is on, nil when it is on none.
    package let cycle: Int?
    /// The node the picture is about (a retainer report's object), drawn with a heavier outline;
    /// none in a graph's picture.
    package var isFocus = false
  }

  /// A cycle with at least one member drawn (drawn as a group: a DOT cluster).
  package struct CycleGroup {
    /// The index in `graph.cycles`.
    package let index: Int
    /// `retain cycle 1 (3 objects)`: the count is of all its members, drawn or not.
    package let title: String
    /// The members drawn, in the cycle's order.
    package let members: [DrawnNode]
  }

  /// A reference between two drawn nodes.
  package struct DrawnReference {
    package let from: Node.ID
    package let to: Node.ID
    /// The reference's label with what it is (` (weak)`), ` ✂ break here` when a fix weakens it,
    /// shortened and wrapped.
    package let label: String
    package let ownership: Ownership
    /// A strong reference between two members of the same cycle.
    package let isOnCycle: Bool
    /// A strong reference that the fix plan weakens.
    package let isBreak: Bool
    /// A strong word of a suspended frame: a conservative reference (drawn dashed).
    package let isConservative: Bool
    /// The target is nearer the root than the holder (a weak `view`, the loop-closing `output`):
    /// drawn without pulling its target after its holder, so the picture reads outwards.
    package let pointsBack: Bool
  }

  /// A drawn holder's references to nodes the cap left out, drawn as one `+N more` box.
  package struct CollapsedTargets {
    package let holder: Node.ID
    package let count: Int
    /// `more12` for holder 12: the page's script finds it by this name.
    package let name: String
    package let label: String
  }

  /// What the walk did not see, as one box tied to the drawn nodes it is about.
  package struct NotesBox {
    package static let name = "notes"
    /// The box's lines, each wrapped, joined with line breaks.
    package let label: String
    /// The drawn nodes a note is about, once per note.
    package let attachedTo: [Node.ID]
  }

  /// A dangling `unowned` reference of a drawn holder, drawn to a placeholder.
  package struct DanglingTarget {
    package let holder: Node.ID
    /// `dangling3` for the graph's fourth dangling reference.
    package let name: String
    package let label: String
    /// The reference's label and ` (unowned)`, shortened.
    package let referenceLabel: String
  }

  /// How many nodes were drawn of how many could be, and why the others were not.
  package struct Cut {
    package let drawn: Int
    /// The nodes that could be drawn: all, or with ``DOTStyle/cyclesOnly`` the cycles and the
    /// paths to them.
    package let candidates: Int
    /// The node cap (``DOTStyle/maxNodes``), nil for none.
    package let cap: Int?
    package let cyclesOnly: Bool

    /// The cut of `candidates` nodes (in drawing order) in `style`.
    init(candidates: Int, style: DOTStyle) {
      self.candidates = candidates
      drawn = min(candidates, style.maxNodes.map { max(1, $0) } ?? candidates)
      cap = style.maxNodes
      cyclesOnly = style.cyclesOnly
    }
  }

  /// The picture's heading: the root, its cycles, what is partial, what is not drawn.
  package let title: String
  /// ``DOTStyle/RankDirection/leftToRight`` or ``DOTStyle/RankDirection/topToBottom``, never
  /// automatic: resolved from the drawn nodes.
  package let direction: DOTStyle.RankDirection
  /// More nodes than ``DOTStyle/automaticLayoutThreshold`` are drawn: tighter spacing.
  package let isLarge: Bool
  package let cycleGroups: [CycleGroup]
  /// Every drawn node, in id order.
  package let nodes: [DrawnNode]
  /// Every reference between drawn nodes, in the graph's edge order.
  package let references: [DrawnReference]
  package let collapsed: [CollapsedTargets]
  package let notes: NotesBox?
  package let dangling: [DanglingTarget]
  package let cut: Cut

  /// What a node's element name is made of: this and its id (`n12`). Graphviz keeps it as the
  /// node's SVG `<title>` (and an edge's as `n3->n12`), where the HTML page's script finds it.
  package static let nodeNamePrefix = "n"
  /// What a `+N more` box's element name is made of: this and its holder's id (`more12`).
  package static let collapsedNamePrefix = "more"

  /// The element name of node `id` in every drawing (`n12`).
  package static func elementName(of id: Node.ID) -> String { nodeNamePrefix + String(id) }
  /// The element name of holder `id`'s `+N more` box (`more12`).
  package static func collapsedName(of id: Node.ID) -> String { collapsedNamePrefix + String(id) }

  /// The plan for drawing `graph` in `style`.
  /// - Complexity: O(*n* + *e*) for *n* nodes and *e* edges.
  package init(graph: ObjectGraph, style: DOTStyle) {
    let count = graph.nodeCount
    var cycleOf = [Int?](repeating: nil, count: count)
    for (index, cycle) in graph.cycles.enumerated() {
      for member in cycle.members { cycleOf[member] = index }
    }
    let order = Self.drawingOrder(graph: graph, cyclesOnly: style.cyclesOnly)
    let cut = Cut(candidates: order.count, style: style)
    var shown = [Bool](repeating: false, count: count)
    var candidate = [Bool](repeating: false, count: count)
    for (position, id) in order.enumerated() {
      candidate[id] = true
      if position < cut.drawn { shown[id] = true }
    }
    self.cut = cut
    let depth: [Int?] = graph.storage.distance(from: graph.root).map { $0 == .max ? nil : Int($0) }
    isLarge = cut.drawn > DOTStyle.automaticLayoutThreshold
    direction = Self.direction(style.rankDirection, shown: shown, depth: depth)

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
          kind: node.kind,
          isRoot: id == graph.root, cycle: cycleOf[id]))
    }
    nodes = drawn
    cycleGroups = graph.cycles.enumerated().compactMap { index, cycle in
      let members = cycle.members.filter { shown[$0] }.map { drawn[Int(drawnIndex[$0])] }
      guard !members.isEmpty else { return nil }
      let count = cycle.members.count
      return CycleGroup(
        index: index, title: "retain cycle \(index + 1) (\(count) \(count == 1 ? "object" : "objects"))",
        members: members)
    }
    references = Self.references(of: graph, shown: shown, cycleOf: cycleOf, depth: depth)
    collapsed = Self.collapsedTargets(of: graph, shown: shown, candidate: candidate)
    notes = Self.notesBox(of: graph, shown: shown)
    dangling =
      style.showsDanglingReferences
      ? graph.danglingReferences.enumerated().compactMap { index, dangling in
        guard shown[dangling.holder] else { return nil }
        return DanglingTarget(
          holder: dangling.holder, name: "dangling\(index)", label: "dangling\n(deinitialized)",
          referenceLabel: DrawingLabel.abbreviated(dangling.label) + " (unowned)")
      } : []
    title = Self.title(of: graph, rootLabel: label(of: graph.root), cut: cut)
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

  /// `requested`, with ``DOTStyle/RankDirection/automatic`` resolved from the drawn nodes: a
  /// left-to-right picture is about as wide as the graph is deep, with room for a node and an edge
  /// label per level (about three node widths); a top-to-bottom one as wide as its broadest level.
  private static func direction(_ requested: DOTStyle.RankDirection, shown: [Bool], depth: [Int?])
    -> DOTStyle.RankDirection
  {
    guard requested == .automatic else { return requested }
    var perLevel: [Int: Int] = [:]
    var drawn = 0
    for id in shown.indices where shown[id] {
      drawn += 1
      perLevel[depth[id] ?? -1, default: 0] += 1
    }
    guard drawn > DOTStyle.automaticLayoutThreshold else { return .leftToRight }
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
