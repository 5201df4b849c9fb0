extension ObjectGraph {
  /// How a node is named in a trace and in advice: the short type name, or for a closure its
  /// function without the module (`closure #1 in CartViewModel.init()`).
  package func displayName(_ node: Node.ID) -> String {
    switch storage.nodeKinds[node] {
    case .closure: Advice.closureName(storage.typeName(node))
    case .task: Advice.taskDisplayName(storage.typeName(node))
    default: storage.shortTypeName(node)
    }
  }

  /// One reference of a leak trace, below its holder: `  ↓ label`, with the ownership when it is
  /// not strong.
  func hop(_ edge: Edge) -> String {
    let ownership = edge.ownership == .strong ? "" : " (\(edge.ownership.rawValue))"
    return "  ↓ \(edge.label)\(ownership)"
  }

  /// A chain of references as leak-trace lines, the one trace format of the report, the testing
  /// library and the command line: each object on its own line, each reference on the line below
  /// its holder, so the chain reads from top to bottom.
  /// ```
  /// ViewController
  ///   ↓ presenter
  /// Presenter
  ///   ↓ interactor
  /// Interactor
  ///   ↓ output   ← break this
  /// Presenter (loop closes)
  /// ```
  /// - Parameters:
  ///   - path: consecutive edges; an empty path is the root alone.
  ///   - indent: put before every line.
  ///   - marked: the reference to mark `← break this`, if any.
  ///   - closesLoop: whether the path ends where a loop of it started: the last object is marked
  ///     `(loop closes)`.
  /// - Returns: the lines, without line breaks.
  package func traceLines(
    along path: [Edge], indent: String = "", marked: Edge? = nil, closesLoop: Bool = false
  ) -> [String] {
    let start = path.first?.from ?? root
    var lines = [indent + displayName(start)]
    for (index, edge) in path.enumerated() {
      lines.append(indent + hop(edge) + (edge == marked ? "   ← break this" : ""))
      let closes = closesLoop && index == path.count - 1
      lines.append(indent + displayName(edge.to) + (closes ? " (loop closes)" : ""))
    }
    return lines
  }

  /// The trace of one break of a fix plan: from the root to the loop's member nearest the root,
  /// then around the loop back to that member, the reference to break marked.
  /// - Returns: the lines, and whether the loop is reachable from the root.
  func traceLines(of fix: Cycle.Break, indent: String = "") -> (lines: [String], reachable: Bool) {
    let search = storage.distances(from: root)
    let distance = search.distance
    guard
      let entry = fix.loop.indices.min(by: {
        (distance[fix.loop[$0].from], $0) < (distance[fix.loop[$1].from], $1)
      })
    else { return ([], false) }
    let loop = Array(fix.loop[entry...] + fix.loop[..<entry])
    let start = fix.loop[entry].from
    let prefix = search.pathEdges(to: start, in: storage)
    let lines = traceLines(
      along: (prefix ?? []).map { storage.edge(Int($0)) } + loop, indent: indent, marked: fix.edge,
      closesLoop: true)
    return (lines, prefix != nil)
  }
}
