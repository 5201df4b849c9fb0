internal import RetainGraph

/// Turns graphs into the sentences a failure message is made of.
enum Explanation {
  /// Why `object`, which should be gone, is still alive: walks the graph from it and says whether a
  /// retain cycle keeps it (with the cycle, its path and the fix) or something outside its graph
  /// holds it.
  /// - Returns: the explanation, and the graph walked from the object.
  static func ofSurvivor(_ object: AnyObject, options: GraphOptions) -> (text: String, graph: ObjectGraph) {
    let graph = ObjectGraph(reflecting: object, options: options)
    let report = graph.report()
    let name = graph.nodes[graph.root].shortTypeName
    if graph.predictedLeaks().contains(graph.root) {
      return ("Why: a retain cycle keeps \(name) alive.\n\(report)", graph)
    }
    var text =
      "Why: no retain cycle keeps \(name) alive, so it is retained from outside its graph: "
      + "a global or singleton, a cache, a task or timer still running, or a variable of the test."
    if let census = CensusRegistration.running,
      let holder = census.retainerLines(of: object).first(where: { !$0.hasPrefix("allocated in ") })
    {
      text = "Why: no retain cycle keeps \(name) alive; it is retained by \(holder)."
    }
    if !report.isEmpty { text += "\nIts graph has other findings:\n\(report)" }
    return (text, graph)
  }

  /// A path from the root as indented lines, in the report's style:
  /// ```
  /// Dashboard
  ///  ├─ notifier → Notifier
  ///  ├─ observers[3] → Observer
  /// ```
  static func lines(for path: [Edge], in graph: ObjectGraph, indent: String) -> [String] {
    let start = path.first?.from ?? graph.root
    var lines = [indent + graph.nodes[start].shortTypeName]
    for edge in path {
      let ownership = edge.ownership == .strong ? "" : " (\(edge.ownership.rawValue))"
      lines.append("\(indent) ├─ \(edge.label) → \(graph.nodes[edge.to].shortTypeName)\(ownership)")
    }
    return lines
  }

  /// `1 object` / `3 objects`.
  static func count(_ number: Int, _ noun: String) -> String {
    "\(number) \(noun)\(number == 1 ? "" : "s")"
  }
}
