internal import RetainGraphSupport

/// Chooses what to draw for a ``DOTStyle`` and writes it.
struct DOTWriter {
  let graph: ObjectGraph
  let style: DOTStyle
  /// The cycle index of every node that is in a cycle.
  var cycleOf: [Int?]
  /// The nodes drawn, in the order of `graph.nodes`.
  var shown: [Bool]
  /// Per holder, how many nodes it references that are not drawn.
  var hiddenTargets: [Int]
  /// Every node's distance from the root over all references, nil when it cannot be reached.
  var depth: [Int?]

  init(graph: ObjectGraph, style: DOTStyle) {
    self.graph = graph
    self.style = style
    cycleOf = Array(repeating: nil, count: graph.nodes.count)
    for (index, cycle) in graph.cycles.enumerated() {
      for member in cycle.members { cycleOf[member] = index }
    }
    let order = Self.drawingOrder(graph: graph, cyclesOnly: style.cyclesOnly)
    let limit = style.maxNodes.map { max(1, $0) } ?? order.count
    shown = Array(repeating: false, count: graph.nodes.count)
    var candidate = Array(repeating: false, count: graph.nodes.count)
    for (position, id) in order.enumerated() {
      candidate[id] = true
      if position < limit { shown[id] = true }
    }
    depth = graph.storage.distance(from: graph.root).map { $0 == .max ? nil : Int($0) }
    hiddenTargets = Array(repeating: 0, count: graph.nodes.count)
    var counted = Set<[Int]>()
    for edge in graph.edges where shown[edge.from] && candidate[edge.to] && !shown[edge.to] {
      if counted.insert([edge.from, edge.to]).inserted { hiddenTargets[edge.from] += 1 }
    }
  }

  /// The nodes that may be drawn, most important first: the root, then each cycle with the path to
  /// it, then (unless only cycles are drawn) the rest breadth-first from the root, then the unreachable.
  static func drawingOrder(graph: ObjectGraph, cyclesOnly: Bool) -> [Node.ID] {
    var order: [Node.ID] = []
    var seen = Array(repeating: false, count: graph.nodes.count)
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
    for id in graph.nodes.indices { add(id) }
    return order
  }

  func text() -> String {
    var lines: [String] = ["digraph \"retain-graph\" {"]
    // newrank: Graphviz 2.43's classic ranking double-frees on some graphs with clusters and edge
    // labels (found by the random-graph tests); the newer ranking handles them.
    let isLarge = shown.filter { $0 }.count > DOTStyle.automaticLayoutThreshold
    lines.append(
      "  graph [rankdir=\(direction().rawValue), charset=\"UTF-8\", fontname=\"Helvetica\", "
        + "fontsize=12, labelloc=t, label=\(DOTText.quoted(title())), nodesep=\(isLarge ? "0.25" : "0.35"), "
        + "ranksep=\(isLarge ? "0.3" : "0.5"), newrank=true];"
    )
    lines.append(
      "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#f4f6f8\", color=\"#4a5866\", "
        + "fontname=\"Helvetica\", fontsize=11];")
    lines.append("  edge [fontname=\"Helvetica\", fontsize=10, color=\"#333333\"];")

    for (index, cycle) in graph.cycles.enumerated() where cycle.members.contains(where: { shown[$0] }) {
      let count = cycle.members.count
      let title = "retain cycle \(index + 1) (\(count) \(count == 1 ? "object" : "objects"))"
      lines.append("  subgraph cluster_\(index) {")
      lines.append(
        "    graph [label=\(DOTText.quoted(title)), style=\"rounded,dashed\", color=\"#cc0000\", "
          + "fontcolor=\"#cc0000\"];")
      for member in cycle.members where shown[member] {
        lines.append("    " + nodeStatement(graph.nodes[member]))
      }
      lines.append("  }")
    }
    for node in graph.nodes where shown[node.id] && cycleOf[node.id] == nil {
      lines.append("  " + nodeStatement(node))
    }

    // Every reference an edit weakens is marked (six route handlers' captures: six marks).
    let breaks = Set(graph.cycles.flatMap { $0.fixPlan.flatMap(\.edges) })
    for edge in graph.edges where shown[edge.from] && shown[edge.to] {
      lines.append("  " + edgeStatement(edge, isBreak: edge.ownership == .strong && breaks.contains(edge)))
    }

    for (id, count) in hiddenTargets.enumerated() where count > 0 {
      lines.append(
        "  \"more\(id)\" [label=\(DOTText.quoted("+\(count) more")), shape=note, style=filled, "
          + "fillcolor=\"#eeeeee\", color=\"#999999\", fontcolor=\"#666666\"];")
      lines.append("  \"n\(id)\" -> \"more\(id)\" [style=dashed, color=\"#999999\"];")
    }

    lines += noteStatements()
    if style.showsDanglingReferences {
      for (index, dangling) in graph.danglingReferences.enumerated() where shown[dangling.holder] {
        lines.append(
          "  \"dangling\(index)\" [label=\"dangling\\n(deinitialized)\", shape=box, "
            + "style=\"filled,dashed\", color=\"#cc0000\", fillcolor=\"#ffd6d6\", fontcolor=\"#cc0000\"];")
        let label = DOTText.abbreviated(dangling.label) + " (unowned)"
        lines.append(
          "  \"n\(dangling.holder)\" -> \"dangling\(index)\" [label=\(DOTText.quoted(label)), "
            + "style=dotted, color=\"#cc0000\", fontcolor=\"#cc0000\"];")
      }
    }
    lines.append("}")
    return lines.joined(separator: "\n") + "\n"
  }

  /// The layout direction, with ``DOTStyle/RankDirection/automatic`` resolved from the drawn nodes:
  /// a left-to-right picture is about as wide as the graph is deep, with room for a node and an edge
  /// label per level (about three node widths); a top-to-bottom one as wide as its broadest level.
  private func direction() -> DOTStyle.RankDirection {
    guard style.rankDirection == .automatic else { return style.rankDirection }
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

  private func title() -> String {
    let root = name(of: graph.nodes[graph.root])
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
    let hidden = shown.count - shown.filter { $0 }.count
    if hidden > 0 { title += "\n\(hidden) of \(shown.count) nodes not drawn" }
    return title
  }

  /// A note box with what the walk did not see (each note of yours, once each, and one short line
  /// per library), tied with a dotted line to the first drawn node it is about.
  private func noteStatements() -> [String] {
    var seen: Set<String> = []
    let own = graph.walkNotes.filter {
      !graph.isLibraryNote($0) && seen.insert($0.description).inserted
    }
    let library = graph.libraryNoteLines(graph.walkNotes).map { String($0.dropFirst("note: ".count)) }
    guard !own.isEmpty || !library.isEmpty else { return [] }
    let shownNotes = own.prefix(5).map { "not seen: " + $0.description }
    let more = own.count > 5 ? ["+\(own.count - 5) more notes"] : []
    let text = (shownNotes + more + library).map { DOTText.wrapped($0) }.joined(separator: "\n")
    var lines = [
      "  \"notes\" [label=\(DOTText.quoted(text)), shape=note, style=filled, fillcolor=\"#fff8e1\", "
        + "color=\"#b58900\", fontcolor=\"#5c4400\"];"
    ]
    for note in own {
      if let node = note.node, node < shown.count, shown[node] {
        lines.append("  \"n\(node)\" -> \"notes\" [style=dotted, color=\"#b58900\", arrowhead=none];")
      }
    }
    return lines
  }

  /// A node's label: its short (or qualified) type name, a closure by the name the fix lines and
  /// traces give it (`ObjectGraph.displayName`), wrapped when long; the full name is the node's
  /// tooltip.
  private func name(of node: Node) -> String {
    if style.qualifiedTypeNames { return DOTText.wrapped(DOTText.abbreviated(node.typeName)) }
    return DOTText.wrapped(DOTText.abbreviated(graph.displayName(node.id)))
  }

  private func nodeStatement(_ node: Node) -> String {
    var attributes = ["label=\(DOTText.quoted(name(of: node)))", "tooltip=\(DOTText.quoted(node.typeName))"]
    if node.id == graph.root {
      attributes += ["shape=doubleoctagon", "style=filled", "penwidth=1.5"]
    } else {
      switch node.kind {
      case .object: break
      case .closure: attributes += ["shape=ellipse", "style=filled"]
      case .value: attributes += ["style=\"rounded,filled,dashed\""]
      case .task: attributes += ["shape=cds", "style=filled"]
      }
    }
    if node.kind == .closure { attributes.append("fillcolor=\"#eef2ff\"") }
    if node.kind == .task { attributes.append("fillcolor=\"#fff4dd\"") }
    if cycleOf[node.id] != nil { attributes += ["color=\"#cc0000\"", "fillcolor=\"#ffe3e3\""] }
    return "\"n\(node.id)\" [\(attributes.joined(separator: ", "))];"
  }

  private func edgeStatement(_ edge: Edge, isBreak: Bool) -> String {
    var label = DOTText.abbreviated(edge.label)
    var attributes: [String] = []
    switch edge.ownership {
    case .strong:
      // A word of a suspended frame is a conservative reference: drawn dashed.
      let isFrame = graph.nodes[edge.from].kind == .task && edge.kind == .suspendedFrame
      if let cycle = cycleOf[edge.from], cycleOf[edge.to] == cycle {
        attributes += ["color=\"#cc0000\"", "fontcolor=\"#cc0000\"", "penwidth=2.5"]
        attributes.append(isFrame ? "style=\"bold,dashed\"" : "style=bold")
      } else if isFrame {
        attributes.append("style=dashed")
      }
    case .weak:
      label += " (weak)"
      attributes += ["style=dashed", "color=\"#666666\"", "fontcolor=\"#666666\""]
    case .unowned:
      label += " (unowned)"
      attributes += ["style=dotted", "color=\"#333333\""]
    case .unownedUnsafe:
      label += " (unowned(unsafe))"
      attributes += ["style=dotted", "color=\"#999999\"", "fontcolor=\"#999999\""]
    }
    if isBreak { label += " ✂ break here" }
    attributes.insert("label=\(DOTText.quoted(DOTText.wrapped(label)))", at: 0)
    // A reference back toward the root (a weak `view`, the loop-closing `output`) is written
    // reversed with `dir=back`: drawn the same, but it no longer pulls its target after its holder,
    // so the picture reads from the root outwards. (`constraint=false` would do the same, but it
    // crashes Graphviz 2.43 on some graphs.)
    if let from = depth[edge.from], let to = depth[edge.to], to < from {
      attributes.append("dir=back")
      return "\"n\(edge.to)\" -> \"n\(edge.from)\" [\(attributes.joined(separator: ", "))];"
    }
    return "\"n\(edge.from)\" -> \"n\(edge.to)\" [\(attributes.joined(separator: ", "))];"
  }
}
