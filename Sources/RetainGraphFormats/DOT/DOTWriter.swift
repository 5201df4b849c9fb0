/// Writes a ``DrawingPlan`` in Graphviz's DOT language with the colours of a ``DrawingPalette``:
/// what is drawn, the names, the labels and the direction are the plan's; the shapes, line styles
/// and quoting (``DOTText``) are DOT's.
package struct DOTWriter {
  package let plan: DrawingPlan
  package var palette = DrawingPalette.standard

  package init(plan: DrawingPlan, palette: DrawingPalette = .standard) {
    self.plan = plan
    self.palette = palette
  }

  package func text() -> String {
    var lines: [String] = ["digraph \"retain-graph\" {"]
    // newrank: Graphviz 2.43's classic ranking double-frees on some graphs with clusters and edge
    // labels (found by the random-graph tests); the newer ranking handles them.
    lines.append(
      "  graph [rankdir=\(plan.direction.rawValue), charset=\"UTF-8\", fontname=\"\(palette.font)\", "
        + "fontsize=12, labelloc=t, label=\(DOTText.quoted(plan.title)), "
        + "nodesep=\(plan.isLarge ? "0.25" : "0.35"), ranksep=\(plan.isLarge ? "0.3" : "0.5"), newrank=true];"
    )
    lines.append(
      "  node [shape=box, style=\"rounded,filled\", fillcolor=\"\(palette.nodeFill)\", "
        + "color=\"\(palette.nodeOutline)\", fontname=\"\(palette.font)\", fontsize=11];")
    lines.append("  edge [fontname=\"\(palette.font)\", fontsize=10, color=\"\(palette.reference)\"];")

    for group in plan.cycleGroups {
      lines.append("  subgraph cluster_\(group.index) {")
      lines.append(
        "    graph [label=\(DOTText.quoted(group.title)), style=\"rounded,dashed\", color=\"\(palette.cycle)\", "
          + "fontcolor=\"\(palette.cycle)\"];")
      for member in group.members { lines.append("    " + nodeStatement(member)) }
      lines.append("  }")
    }
    for node in plan.nodes where node.cycle == nil { lines.append("  " + nodeStatement(node)) }
    for reference in plan.references { lines.append("  " + referenceStatement(reference)) }
    for collapsed in plan.collapsed {
      lines.append(
        "  \"\(collapsed.name)\" [label=\(DOTText.quoted(collapsed.label)), shape=note, style=filled, "
          + "fillcolor=\"\(palette.collapsedFill)\", color=\"\(palette.collapsedOutline)\", "
          + "fontcolor=\"\(palette.collapsedText)\"];")
      lines.append(
        "  \"\(DrawingPlan.elementName(of: collapsed.holder))\" -> \"\(collapsed.name)\" "
          + "[style=dashed, color=\"\(palette.collapsedOutline)\"];")
    }
    if let notes = plan.notes {
      let name = DrawingPlan.NotesBox.name
      lines.append(
        "  \"\(name)\" [label=\(DOTText.quoted(notes.label)), shape=note, style=filled, "
          + "fillcolor=\"\(palette.noteFill)\", color=\"\(palette.noteOutline)\", "
          + "fontcolor=\"\(palette.noteText)\"];")
      for node in notes.attachedTo {
        lines.append(
          "  \"\(DrawingPlan.elementName(of: node))\" -> \"\(name)\" [style=dotted, "
            + "color=\"\(palette.noteOutline)\", arrowhead=none];")
      }
    }
    for dangling in plan.dangling {
      lines.append(
        "  \"\(dangling.name)\" [label=\(DOTText.quoted(dangling.label)), shape=box, "
          + "style=\"filled,dashed\", color=\"\(palette.cycle)\", fillcolor=\"\(palette.danglingFill)\", "
          + "fontcolor=\"\(palette.cycle)\"];")
      lines.append(
        "  \"\(DrawingPlan.elementName(of: dangling.holder))\" -> \"\(dangling.name)\" "
          + "[label=\(DOTText.quoted(dangling.referenceLabel)), style=dotted, color=\"\(palette.cycle)\", "
          + "fontcolor=\"\(palette.cycle)\"];")
    }
    lines.append("}")
    return lines.joined(separator: "\n") + "\n"
  }

  /// The root is a double octagon, a closure context an ellipse, a value dashed, a task a tag; a
  /// cycle's member is outlined and filled in the cycle's colours.
  private func nodeStatement(_ node: DrawingPlan.DrawnNode) -> String {
    var attributes = ["label=\(DOTText.quoted(node.label))", "tooltip=\(DOTText.quoted(node.typeName))"]
    if node.isRoot {
      attributes += ["shape=doubleoctagon", "style=filled", "penwidth=1.5"]
    } else {
      switch node.kind {
      case .object: break
      case .closure: attributes += ["shape=ellipse", "style=filled"]
      case .value: attributes += ["style=\"rounded,filled,dashed\""]
      case .task: attributes += ["shape=cds", "style=filled"]
      }
    }
    if node.kind == .closure { attributes.append("fillcolor=\"\(palette.closureFill)\"") }
    if node.kind == .task { attributes.append("fillcolor=\"\(palette.taskFill)\"") }
    if node.cycle != nil {
      attributes += ["color=\"\(palette.cycle)\"", "fillcolor=\"\(palette.cycleFill)\""]
    }
    if node.isFocus { attributes.append("penwidth=2.5") }
    return "\"\(node.name)\" [\(attributes.joined(separator: ", "))];"
  }

  /// A cycle's strong reference is bold in the cycle's colour; a conservative one dashed; weak
  /// dashed, `unowned` dotted, `unowned(unsafe)` dotted and pale.
  private func referenceStatement(_ reference: DrawingPlan.DrawnReference) -> String {
    var attributes = ["label=\(DOTText.quoted(reference.label))"]
    switch reference.ownership {
    case .strong:
      if reference.isOnCycle {
        attributes += ["color=\"\(palette.cycle)\"", "fontcolor=\"\(palette.cycle)\"", "penwidth=2.5"]
        attributes.append(reference.isConservative ? "style=\"bold,dashed\"" : "style=bold")
      } else if reference.isConservative {
        attributes.append("style=dashed")
      }
    case .weak:
      attributes += ["style=dashed", "color=\"\(palette.weak)\"", "fontcolor=\"\(palette.weak)\""]
    case .unowned:
      attributes += ["style=dotted", "color=\"\(palette.reference)\""]
    case .unownedUnsafe:
      attributes += [
        "style=dotted", "color=\"\(palette.unownedUnsafe)\"", "fontcolor=\"\(palette.unownedUnsafe)\"",
      ]
    }
    let from = DrawingPlan.elementName(of: reference.from)
    let to = DrawingPlan.elementName(of: reference.to)
    // A reference back toward the root is written reversed with `dir=back`: drawn the same, but it
    // no longer pulls its target after its holder. (`constraint=false` would do the same, but it
    // crashes Graphviz 2.43 on some graphs.)
    if reference.pointsBack {
      attributes.append("dir=back")
      return "\"\(to)\" -> \"\(from)\" [\(attributes.joined(separator: ", "))];"
    }
    return "\"\(from)\" -> \"\(to)\" [\(attributes.joined(separator: ", "))];"
  }
}

extension DrawingPlan {
  /// The plan in DOT, as every picture is written (for a picture drawn outside the core: a retainer
  /// report's).
  package func dot() -> String { DOTWriter(plan: self).text() }
}
