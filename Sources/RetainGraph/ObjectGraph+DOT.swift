internal import RetainGraphFormats

extension ObjectGraph {
  /// The graph in Graphviz's DOT language, ready for `dot -Tsvg` or `RetainGraphRendering`.
  ///
  /// The root is a double octagon; each strong cycle is a red `cluster` subgraph whose strong edges
  /// are red and bold, and the reference to break is labelled "✂ break here". Weak references are
  /// dashed, `unowned` ones dotted, `unowned(unsafe)` ones dotted grey; closure contexts are ellipses.
  /// Node names are `n0`, `n1`, … (the node ids), so the SVG's `<title>` of a node is `n` + its id.
  ///
  /// The text is deterministic (the same graph and style give the same bytes) and every label is
  /// escaped: quotes, backslashes, line breaks, `<>{}|`, control characters and entity-like `&…;`.
  /// - Parameter style: what to draw and how.
  /// - Returns: a `digraph` in DOT.
  /// - Complexity: O(*n* + *e*) for *n* nodes and *e* edges.
  public func dot(style: DOTStyle = DOTStyle()) -> String {
    DOTWriter(plan: DrawingPlan(graph: self, style: style)).text()
  }

  /// How many nodes ``dot(style:)`` draws with `style`, and how many it would draw without
  /// ``DOTStyle/maxNodes`` (all of them, or the cycles and the paths to them with
  /// ``DOTStyle/cyclesOnly``): the command line's note on what its node cap left out.
  package func drawnNodeCounts(style: DOTStyle) -> (drawn: Int, candidates: Int) {
    let candidates = DrawingPlan.drawingOrder(graph: self, cyclesOnly: style.cyclesOnly).count
    let cut = DrawingPlan.Cut(candidates: candidates, cap: style.maxNodes, cyclesOnly: style.cyclesOnly)
    return (cut.drawn, cut.candidates)
  }
}
