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
      graph.isComplete
      ? "Why: no retain cycle keeps \(name) alive, so it is retained from outside its graph: \(outsideHolders)."
      : "Why: no retain cycle the walk saw keeps \(name) alive: it is retained from outside its graph "
        + "(\(outsideHolders)), or through what the walk did not read (below)."
    if let census = CensusRegistration.running {
      let search = census.holders(of: object)
      if let holder = search.holderPath {
        text = "Why: no retain cycle keeps \(name) alive; it is retained by \(holder)."
      } else if let failure = search.failure {
        text += " The heap census could not name the holder: \(failure)."
      }
    }
    if !report.isEmpty { text += "\nIts graph has other findings:\n\(report)" }
    return (text, graph)
  }

  /// What holds an object from outside its graph, as a list for a sentence.
  static let outsideHolders =
    "a global or singleton, a cache, a task or timer still running, or a variable of the test"

  /// A path from the root as indented lines, in the report's style:
  /// ```
  /// Dashboard
  ///  ├─ notifier → Notifier
  ///  ├─ observers[3] → Observer
  /// ```
  static func lines(for path: [Edge], in graph: ObjectGraph, indent: String) -> [String] {
    graph.traceLines(along: path, indent: indent)
  }

  /// `1 object` / `3 objects`.
  static func count(_ number: Int, _ noun: String) -> String {
    "\(number) \(noun)\(number == 1 ? "" : "s")"
  }
}

/// The failure for an object that should be gone: "`subject` is still alive `timeout` after `moment`",
/// with why. Nil when the object went while this ran.
func survivorFailure(
  _ probe: WeakProbe, wait: ReleaseWait, options: GraphOptions, subject: String? = nil, after moment: String
) -> LeakFailure? {
  guard let object = probe.object else { return nil }
  let (why, graph) = Explanation.ofSurvivor(object, options: options)
  return LeakFailure(
    message: "\(subject ?? probe.typeName) \(wait.stillAlive(after: moment)).\n\(why)",
    graphs: [("retain-graph-\(probe.typeName)", graph)])
}
