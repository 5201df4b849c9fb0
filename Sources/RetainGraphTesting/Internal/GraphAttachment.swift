internal import RetainGraph

/// What a failure attaches for a graph, and how its message says to draw it.
///
/// The one place that decides the attachment's contents: the leak report and an edge list for now,
/// the graph's DOT text once `ObjectGraph.dot()` is available.
enum GraphAttachment {
  /// An attachment's file name and text.
  struct File {
    var name: String
    var contents: String
  }

  static func make(_ graph: ObjectGraph, named base: String) -> File {
    File(name: fileName(base), contents: contents(of: graph))
  }

  static func fileName(_ base: String) -> String { "\(base).txt" }

  /// The leak report (when there is one), then every node and reference.
  static func contents(of graph: ObjectGraph) -> String {
    var lines: [String] = []
    let report = graph.report()
    if !report.isEmpty { lines += [report, ""] }
    var outgoing = [[Edge]](repeating: [], count: graph.nodes.count)
    for edge in graph.edges { outgoing[edge.from].append(edge) }
    lines.append("nodes and references (root: \(graph.root)):")
    for node in graph.nodes {
      let kind = node.kind == .object ? "" : " (\(node.kind.rawValue))"
      lines.append("\(node.id) \(node.typeName)\(kind)")
      for edge in outgoing[node.id] {
        let ownership = edge.ownership == .strong ? "" : " (\(edge.ownership.rawValue))"
        lines.append("   \(edge.label) → \(edge.to)\(ownership)")
      }
    }
    return lines.joined(separator: "\n")
  }

  /// Where the graphs are and how to draw one.
  static func hint(for names: [String]) -> String {
    let files = names.map { "`\(fileName($0))`" }.joined(separator: ", ")
    return "Graph: attached to this issue as \(files) (Swift Testing). To draw it, save a snapshot "
      + "of it as snapshot.json and run: retain-graph render snapshot.json --format svg --output graph.svg"
  }
}
