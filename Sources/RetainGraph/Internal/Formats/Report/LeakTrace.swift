internal import RetainGraphStorage
internal import RetainGraphSupport

extension GraphStorage {
  /// How a node is named in a trace, in advice and in a cycle's signature: the short type name, or
  /// for a closure its function without the module (`closure #1 in CartViewModel.init()`).
  func displayName(_ node: Node.ID) -> String {
    switch nodeKinds[node] {
    case .closure: Advice.closureName(typeName(node))
    case .task: Advice.taskDisplayName(typeName(node))
    default: shortTypeName(node)
    }
  }
}

extension ObjectGraph {
  /// How a node is named in a trace and in advice: the short type name, or for a closure its
  /// function without the module (`closure #1 in CartViewModel.init()`).
  package func displayName(_ node: Node.ID) -> String { storage.displayName(node) }

  /// One reference of a leak trace, below its holder: `  ↓ label`, with the ownership when it is
  /// not strong.
  func hop(_ edge: Edge) -> String { LeakTrace.hop(edge.label, ownership: edge.ownership) }

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
  ///   - maxHops: the most references to print: a longer path keeps its first and last
  ///     `maxHops / 2` references and the marked one, each run left out becomes one line
  ///     `  ⋮ 999990 more references`. `nil` prints them all.
  /// - Returns: the lines, without line breaks.
  package func traceLines(
    along path: [Edge], indent: String = "", marked: Edge? = nil, closesLoop: Bool = false,
    maxHops: Int? = nil
  ) -> [String] {
    // Names are made only for the hops printed: a million-hop loop prints a few dozen.
    LeakTrace.lines(
      start: displayName(path.first?.from ?? root), hopCount: path.count,
      hop: { (label: path[$0].label, ownership: path[$0].ownership, target: displayName(path[$0].to)) },
      indent: indent, marked: path.firstIndex { $0 == marked }, closesLoop: closesLoop, maxHops: maxHops)
  }

  /// The trace of one break of a fix plan: from the root to the loop's member nearest the root,
  /// then around the loop back to that member, the reference to break marked.
  /// - Returns: the lines, and whether the loop is reachable from the root.
  func traceLines(of fix: Cycle.Break, indent: String = "", maxHops: Int? = nil) -> (
    lines: [String], reachable: Bool
  ) {
    guard let chain = traceChain(of: fix) else { return ([], false) }
    let lines = LeakTrace.lines(
      start: displayName(chain.count == 0 ? root : chain.edge(0).from), hopCount: chain.count,
      hop: { index in
        let edge = chain.edge(index)
        return (label: edge.label, ownership: edge.ownership, target: displayName(edge.to))
      },
      indent: indent, marked: (0..<chain.count).first { chain.edge($0) == fix.edge }, closesLoop: true,
      maxHops: maxHops)
    return (lines, chain.reachable)
  }

  /// The references of one break's trace (``traceLines(of:indent:maxHops:)``) as values: from the
  /// root to the loop, then round the loop; the index of the one to break; whether the root reaches
  /// the loop.
  package func tracePath(of fix: Cycle.Break) -> (path: [Edge], marked: Int?, reachable: Bool) {
    guard let chain = traceChain(of: fix) else { return ([], nil, false) }
    let path = (0..<chain.count).map(chain.edge)
    return (path, path.firstIndex { $0 == fix.edge }, chain.reachable)
  }

  /// The report's sections below its summary, one per group of alike cycles, as
  /// ``report()`` prints them.
  package func reportSections() -> [ReportSection] {
    let writer = ReportWriter(graph: self, limits: ReportLimits())
    return writer.sections(ReportWriter.alikeGroups(cycles))
  }

  /// The chain of one break's trace: the path from the root to the loop's member nearest the root,
  /// then round the loop from it, each edge made when asked (`edge(index)`): a million-edge loop
  /// is not copied for a trace of a few dozen lines. Nil for an empty loop.
  private func traceChain(of fix: Cycle.Break) -> (count: Int, edge: (Int) -> Edge, reachable: Bool)? {
    let search = storage.distances(from: root)
    let distance = storage.distance(from: root)
    // The loop's edges by index: made into `Edge` values only for the hops printed.
    let loop = fix.loopEdges.indices
    let storage = storage
    func from(_ position: Int) -> Int { Int(storage.edges[Int(loop[position])].from) }
    guard
      let entry = loop.indices.min(by: { (distance[from($0)], $0) < (distance[from($1)], $1) })
    else { return nil }
    let prefix = search.pathEdges(to: from(entry), in: storage)
    let prefixEdges = prefix ?? []
    let count = prefixEdges.count + loop.count
    func edge(_ index: Int) -> Edge {
      index < prefixEdges.count
        ? storage.edge(Int(prefixEdges[index]))
        : storage.edge(Int(loop[(entry + index - prefixEdges.count) % loop.count]))
    }
    return (count, edge, prefix != nil)
  }
}

/// The leak-trace format itself, on names and labels: what ``ObjectGraph/traceLines(along:indent:marked:closesLoop:)``
/// draws from a graph, and what a report without a graph (the census's retainer report) draws
/// from the names it kept.
package enum LeakTrace {
  /// One reference, below its holder: `  ↓ label`, with the ownership when it is not strong.
  package static func hop(_ label: String, ownership: Ownership) -> String {
    "  ↓ \(label)" + (ownership == .strong ? "" : " (\(ownership.rawValue))")
  }

  /// A chain of references as leak-trace lines: `start`, then each hop on its own line below its
  /// holder and the object it reaches on the next.
  /// - Parameters:
  ///   - start: the first object's name.
  ///   - hops: each reference: its label, ownership and the name of the object it reaches.
  ///   - indent: put before every line.
  ///   - marked: the index of the hop to mark `← break this`, if any.
  ///   - closesLoop: whether the last object is the first again: marked `(loop closes)`.
  ///   - maxHops: the most references to print: a longer chain keeps its first and last
  ///   `maxHops / 2` references and the marked one; each run left out becomes one line
  ///   `  ⋮ 999990 more references`. `nil` prints them all.
  /// - Returns: the lines, without line breaks.
  package static func lines(
    start: String, hops: [(label: String, ownership: Ownership, target: String)], indent: String = "",
    marked: Int? = nil, closesLoop: Bool = false, maxHops: Int? = nil
  ) -> [String] {
    lines(
      start: start, hopCount: hops.count, hop: { hops[$0] }, indent: indent, marked: marked,
      closesLoop: closesLoop, maxHops: maxHops)
  }

  /// ``lines(start:hops:indent:marked:closesLoop:maxHops:)`` with each hop made on demand by `hop`
  /// (its index), only for the hops printed.
  static func lines(
    start: String, hopCount: Int, hop: (Int) -> (label: String, ownership: Ownership, target: String),
    indent: String = "", marked: Int? = nil, closesLoop: Bool = false, maxHops: Int? = nil
  ) -> [String] {
    var lines = [indent + start]
    let head = maxHops.map { max(1, $0 / 2) } ?? hopCount
    let tail = maxHops.map { max(1, $0 - $0 / 2) } ?? hopCount
    var skipped = 0
    for index in 0..<hopCount {
      if index >= head && index < hopCount - tail && index != marked {
        skipped += 1
        continue
      }
      if skipped > 0 {
        lines.append(indent + "  ⋮ \(skipped) more \(skipped == 1 ? "reference" : "references")")
        lines.append(indent + hop(index - 1).target)
        skipped = 0
      }
      let hop = hop(index)
      lines.append(
        indent + self.hop(hop.label, ownership: hop.ownership) + (index == marked ? "   ← break this" : ""))
      let closes = closesLoop && index == hopCount - 1
      lines.append(indent + hop.target + (closes ? " (loop closes)" : ""))
    }
    return lines
  }
}
