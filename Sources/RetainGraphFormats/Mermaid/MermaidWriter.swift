/// Writes a ``DrawingPlan`` as a Mermaid flowchart (the text GitHub draws in issues, pull requests
/// and Markdown files) with the colours of a ``DrawingPalette``: what is drawn, the names, the labels
/// and the direction are the plan's; the shapes, arrows and escaping (``MermaidText``) are Mermaid's.
///
/// Mermaid's default limits are kept: at most ``maxEdges`` links (its `maxEdges`, 500) and
/// ``maxCharacters`` characters (its `maxTextSize`, 50,000). What does not fit is left out, the
/// cycles' nodes and references first kept, and a note box says how much was left out and why.
package struct MermaidWriter {
  package let plan: DrawingPlan
  package var palette = DrawingPalette.standard

  package init(plan: DrawingPlan, palette: DrawingPalette = .standard) {
    self.plan = plan
    self.palette = palette
  }
  /// Mermaid's default `maxEdges`: a diagram with more links is not drawn.
  package static let maxEdges = 500
  /// Mermaid's default `maxTextSize`: a longer diagram is not drawn.
  package static let maxCharacters = 50_000
  /// What is kept free of the character budget for the style lines and the note of what was cut.
  package static let reserve = 2_000

  package func text() -> String {
    var lines = ["flowchart \(plan.direction == .leftToRight ? "LR" : "TB")"]
    for line in plan.title.split(separator: "\n", omittingEmptySubsequences: false) {
      lines.append("%% " + MermaidText.comment(String(line)))
    }
    var size = lines.reduce(0) { $0 + $1.count + 1 }
    let budget = Self.maxCharacters - Self.reserve
    // Nodes: the cycles' members first (in their groups), then the others in id order.
    var declared: Set<String> = []
    var nodesLeftOut = 0
    for group in plan.cycleGroups {
      var block = ["  subgraph cycle\(group.index) [\(MermaidText.quoted(group.title))]"]
      let end = "  end"
      var blockSize = block[0].count + 1 + end.count + 1
      for member in group.members {
        let line = "    " + nodeStatement(member)
        guard size + blockSize + line.count + 1 <= budget else {
          nodesLeftOut += 1
          continue
        }
        block.append(line)
        blockSize += line.count + 1
        declared.insert(member.name)
      }
      guard block.count > 1 else { continue }
      block.append(end)
      lines += block
      size += blockSize
    }
    for node in plan.nodes where node.cycle == nil {
      let line = "  " + nodeStatement(node)
      guard size + line.count + 1 <= budget else {
        nodesLeftOut += 1
        continue
      }
      lines.append(line)
      size += line.count + 1
      declared.insert(node.name)
    }
    // Links: the cycles' references first (their indices are the ones `linkStyle` colours), then
    // the others, then the boxes' links; each only between declared nodes.
    var links: [(line: String, isOnCycle: Bool)] = []
    var extraNodes: [(name: String, line: String)] = []
    let ordered = plan.references.filter(\.isOnCycle) + plan.references.filter { !$0.isOnCycle }
    for reference in ordered {
      let from = DrawingPlan.elementName(of: reference.from)
      let to = DrawingPlan.elementName(of: reference.to)
      guard declared.contains(from), declared.contains(to) else { continue }
      links.append((referenceStatement(reference, from: from, to: to), reference.isOnCycle))
    }
    for collapsed in plan.collapsed where declared.contains(DrawingPlan.elementName(of: collapsed.holder)) {
      extraNodes.append(
        (collapsed.name, "  \(collapsed.name)>\(MermaidText.quoted(collapsed.label))]:::more"))
      links.append(("  \(DrawingPlan.elementName(of: collapsed.holder)) -.- \(collapsed.name)", false))
    }
    if let notes = plan.notes {
      let name = DrawingPlan.NotesBox.name
      extraNodes.append((name, "  \(name)>\(MermaidText.quoted(notes.label))]:::note"))
      for node in notes.attachedTo where declared.contains(DrawingPlan.elementName(of: node)) {
        links.append(("  \(DrawingPlan.elementName(of: node)) -.- \(DrawingPlan.NotesBox.name)", false))
      }
    }
    for dangling in plan.dangling where declared.contains(DrawingPlan.elementName(of: dangling.holder)) {
      extraNodes.append(
        (dangling.name, "  \(dangling.name)[\(MermaidText.quoted(dangling.label))]:::dangling"))
      links.append(
        (
          "  \(DrawingPlan.elementName(of: dangling.holder)) -.->|\(MermaidText.quoted(dangling.referenceLabel))| "
            + dangling.name, false
        ))
    }
    for (name, line) in extraNodes where size + line.count + 1 <= budget {
      lines.append(line)
      size += line.count + 1
      declared.insert(name)
    }
    var linksLeftOut = 0
    var drawnLinks = 0
    var cycleLinks: [Int] = []
    for link in links {
      let ends = Self.ends(of: link.line)
      guard drawnLinks < Self.maxEdges, declared.contains(ends.from), declared.contains(ends.to),
        size + link.line.count + 1 <= budget
      else {
        linksLeftOut += 1
        continue
      }
      if link.isOnCycle { cycleLinks.append(drawnLinks) }
      lines.append(link.line)
      size += link.line.count + 1
      drawnLinks += 1
    }
    if nodesLeftOut > 0 || linksLeftOut > 0 {
      var parts: [String] = []
      if nodesLeftOut > 0 { parts.append("\(nodesLeftOut) node\(nodesLeftOut == 1 ? "" : "s")") }
      if linksLeftOut > 0 { parts.append("\(linksLeftOut) reference\(linksLeftOut == 1 ? "" : "s")") }
      let note =
        "\(parts.joined(separator: " and ")) not drawn: Mermaid draws at most \(Self.maxEdges) links and "
        + "\(Self.maxCharacters) characters (see the SVG or HTML output for all of it)"
      lines.append("  mermaidCut>\(MermaidText.quoted(note))]:::note")
    }
    lines += styleLines(cycleLinks: cycleLinks)
    return lines.joined(separator: "\n") + "\n"
  }

  /// The holder and target of a link line (`  n1 --> n2`, with a label or not).
  package static func ends(of line: String) -> (from: String, to: String) {
    let words = line.split(separator: " ")
    return (String(words.first ?? ""), String(words.last ?? ""))
  }

  /// The root is a subroutine box, a closure context a stadium, a task a flag, a value dashed; a
  /// cycle's member is outlined in the cycle's colour.
  private func nodeStatement(_ node: DrawingPlan.DrawnNode) -> String {
    let label = MermaidText.quoted(node.label)
    let shape: String
    if node.isRoot {
      shape = "[[\(label)]]"
    } else {
      switch node.kind {
      case .object, .value: shape = "[\(label)]"
      case .closure: shape = "([\(label)])"
      case .task: shape = ">\(label)]"
      }
    }
    // One class a node (Mermaid's `:::` takes one).
    let style: String?
    if node.cycle != nil {
      style = "cycle"
    } else if node.isFocus {
      style = "focus"
    } else {
      switch node.kind {
      case .closure: style = "closure"
      case .task: style = "task"
      case .value: style = "value"
      case .object: style = nil
      }
    }
    return node.name + shape + (style.map { ":::" + $0 } ?? "")
  }

  /// A cycle's strong reference is thick (`==>`, coloured by `linkStyle`); weak and `unowned`
  /// ones dotted (`-.->`); the label says the ownership and `✂ break here` (the plan's).
  private func referenceStatement(_ reference: DrawingPlan.DrawnReference, from: String, to: String) -> String
  {
    let arrow: String
    switch reference.ownership {
    case .strong: arrow = reference.isOnCycle ? "==>" : (reference.isConservative ? "-.->" : "-->")
    case .weak, .unowned, .unownedUnsafe: arrow = "-.->"
    }
    return "  \(from) \(arrow)|\(MermaidText.quoted(reference.label))| \(to)"
  }

  private func styleLines(cycleLinks: [Int]) -> [String] {
    var lines = [
      "  classDef cycle fill:\(palette.cycleFill),stroke:\(palette.cycle),stroke-width:2px",
      "  classDef closure fill:\(palette.closureFill)",
      "  classDef task fill:\(palette.taskFill)",
      "  classDef value stroke-dasharray:4 3",
      "  classDef focus stroke-width:3px",
      "  classDef more fill:\(palette.collapsedFill),stroke:\(palette.collapsedOutline),color:\(palette.collapsedText)",
      "  classDef note fill:\(palette.noteFill),stroke:\(palette.noteOutline),color:\(palette.noteText)",
      "  classDef dangling fill:\(palette.danglingFill),stroke:\(palette.cycle),color:\(palette.cycle)",
    ]
    if !cycleLinks.isEmpty {
      lines.append(
        "  linkStyle \(cycleLinks.map(String.init).joined(separator: ",")) stroke:\(palette.cycle),stroke-width:3px"
      )
    }
    return lines
  }
}

extension DrawingPlan {
  /// The plan as a Mermaid flowchart.
  package func mermaid() -> String { MermaidWriter(plan: self).text() }
}
