internal import RetainGraph

/// Counts per type after each run of a scenario, and what is new in each run; a failure names the
/// holders whose stored properties grow.
///
/// Each node is attributed to the reference that first reached it from the root (the last step of
/// its path). A growing type's instances are grouped by that reference's holder type and stored
/// property (`EventBus.observers`). An instance first reached from another instance of a growing type
/// (a closure stored in a new coordinator, an object it owns, what a new closure captures) is folded
/// into that instance's holder line ("with them: …") instead of getting a line of its own.
struct GrowthAnalysis {
  /// One snapshot: the graph after a run and its counts.
  private struct Generation {
    var graph: ObjectGraph
    /// Per type, its nodes not covered by a property allowance.
    var counts: [String: Int]
    /// Per type, a node of that type that was not there after the run before (or the last one
    /// found, for closure contexts, which cannot be told apart).
    var newInstance: [String: Node.ID]
    var probes: [ObjectIdentifier: WeakProbe]
    /// Whether each node was not there after the run before (every closure context counts as new).
    var isNew: [Bool]
    /// The property allowance each node is covered by (first reached through its property, or
    /// through a node so covered), nil for none.
    var coveredBy: [Int?]
    /// Per property allowance, how many nodes its property holds directly.
    var propertyCounts: [Int: Int]
    /// Per property allowance, a node its property holds directly, new when there is one.
    var propertyInstance: [Int: Node.ID]
  }

  let iterations: Int
  let allowances: [GrowthAllowance]
  let options: GraphOptions
  private var generations: [Generation] = []
  /// The allowance index that applies to each type name, found from the objects walked.
  private var allowanceOf: [String: Int] = [:]

  init(iterations: Int, allowances: [GrowthAllowance], options: GraphOptions) {
    self.iterations = iterations
    self.allowances = allowances
    self.options = options
  }

  var tooFewIterations: LeakFailure? {
    guard iterations < 4 else { return nil }
    return LeakFailure(
      message: "assertNoGrowth needs at least 4 iterations, got \(iterations): the first and the last run "
        + "are ignored, and growth must show in at least two runs in between. The scenario was not run.")
  }

  /// Walks the graph from `root` after a run and counts its objects per type.
  @inline(never)
  mutating func snapshot<Root>(_ root: Root) {
    let (graph, objects) = ObjectGraph.walk(root, options: options)
    let previous = generations.last?.probes ?? [:]
    var generation = Generation(
      graph: graph, counts: [:], newInstance: [:], probes: [:],
      isNew: Array(repeating: true, count: graph.nodeCount),
      coveredBy: Array(repeating: nil, count: graph.nodeCount), propertyCounts: [:], propertyInstance: [:])
    cover(&generation)
    for node in graph.nodes where node.kind != .value {
      if let object = objects[node.id] {
        let identity = ObjectIdentifier(object)
        generation.probes[identity] = WeakProbe(object)
        generation.isNew[node.id] = previous[identity]?.object !== object
      }
      if let index = generation.coveredBy[node.id] {
        // Held directly by the allowed property, not through something it holds.
        if let edge = graph.parentEdge(of: node.id), generation.coveredBy[edge.from] == nil {
          generation.propertyCounts[index, default: 0] += 1
          let shown = generation.propertyInstance[index]
          if shown == nil || (generation.isNew[node.id] && shown.map { !generation.isNew[$0] } == true) {
            generation.propertyInstance[index] = node.id
          }
        }
        continue
      }
      generation.counts[node.typeName, default: 0] += 1
      if allowanceOf[node.typeName] == nil,
        let index = allowances.firstIndex(where: { $0.matches(node, object: objects[node.id]) })
      {
        allowanceOf[node.typeName] = index
      }
      guard objects[node.id] != nil else {
        generation.newInstance[node.typeName] = node.id
        continue
      }
      if generation.isNew[node.id], generation.newInstance[node.typeName] == nil {
        generation.newInstance[node.typeName] = node.id
      }
    }
    generations.append(generation)
  }

  /// Marks the nodes first reached through a property that an allowance names, and what is first
  /// reached through them.
  private func cover(_ generation: inout Generation) {
    guard allowances.contains(where: { $0.property != nil }) else { return }
    let graph = generation.graph
    for id in graph.searchOrder {
      guard let edge = graph.parentEdge(of: id) else { continue }
      generation.coveredBy[id] =
        generation.coveredBy[edge.from] ?? allowances.firstIndex { $0.matches(edge, in: graph) }
    }
  }

  /// The failure, or nil when no type grew (or left its allowance) in the judged runs.
  func failure() -> LeakFailure? {
    guard generations.count >= 4 else { return nil }
    let judged = 1..<(generations.count - 1)
    let types = Set(generations.flatMap(\.counts.keys)).sorted()
    var growing: Set<String> = []
    var overAllowance: [(type: String, counts: [Int], allowance: GrowthAllowance, run: Int)] = []
    for type in types {
      let counts = generations.map { $0.counts[type] ?? 0 }
      if let index = allowanceOf[type] {
        let allowance = allowances[index]
        if let run = judged.first(where: { !allowance.survivors.contains(counts[$0]) }) {
          overAllowance.append((type, counts, allowance, run))
        }
      } else if judged.allSatisfy({ counts[$0] > counts[$0 - 1] }) {
        growing.insert(type)
      }
    }
    var overProperty: [(index: Int, counts: [Int], run: Int)] = []
    for index in allowances.indices where allowances[index].property != nil {
      let counts = generations.map { $0.propertyCounts[index] ?? 0 }
      if let run = judged.first(where: { !allowances[index].survivors.contains(counts[$0]) }) {
        overProperty.append((index, counts, run))
      }
    }
    guard !growing.isEmpty || !overAllowance.isEmpty || !overProperty.isEmpty else { return nil }
    var lines: [String] = []
    var marks: [GraphAttachment.Mark] = []
    for holder in holders(of: growing) {
      lines += describe(holder)
      let note = "\(holder.name) grows by \(perRun(holder.counts))"
      marks += holder.nodes.sorted().map { GraphAttachment.Mark(node: $0, note: note) }
    }
    for (type, counts, allowance, run) in overAllowance {
      let graph = generations[run].graph
      lines.append(
        "  \(short(type, in: graph)): \(list(counts)) after each run; "
          + "\(counts[run]) after run \(run + 1) is outside its allowance of \(allowance.survivors) survivors"
      )
      lines += newInstanceLines(generations[run].newInstance[type], run: run)
    }
    for (index, counts, run) in overProperty {
      let allowance = allowances[index]
      lines.append(
        "  \(allowance.property ?? ""): holds \(list(counts)) after each run; \(counts[run]) after run "
          + "\(run + 1) is outside its allowance of \(allowance.survivors) survivors")
      lines += newInstanceLines(generations[run].propertyInstance[index], run: run)
    }
    return failure(lines, marks: marks)
  }

  /// The growing instances held through one holder type's stored property, across the runs.
  private struct Holder {
    /// `EventBus.observers`.
    var name: String
    /// Per run, how many instances of the growing types the property holds.
    var counts: [Int]
    /// The growing types it holds, as shown.
    var types: Set<String> = []
    /// Per folded type (as shown), per run, how many instances are held through the held ones.
    var folded: [String: [Int]] = [:]
    /// A held instance in the last judged run, new when there is one.
    var instance: Node.ID?
    /// The objects whose property holds them in the last judged run (the page marks them).
    var nodes: Set<Node.ID> = []
  }

  /// The holders of the growing types' instances, sorted by name: each instance is attributed to the
  /// reference that first reached it, climbing past holders that are themselves of a growing type.
  private func holders(of growing: Set<String>) -> [Holder] {
    guard !growing.isEmpty else { return [] }
    let last = generations.count - 2
    var holders: [String: Holder] = [:]
    for (run, generation) in generations.enumerated() {
      let graph = generation.graph
      for node in graph.nodes where growing.contains(node.typeName) && generation.coveredBy[node.id] == nil {
        var top = node.id
        while let edge = graph.parentEdge(of: top), edge.from != graph.root,
          growing.contains(graph.node(edge.from).typeName)
        {
          top = edge.from
        }
        guard let edge = graph.parentEdge(of: top) else { continue }
        let name = "\(graph.displayName(edge.from)).\(edge.property ?? edge.label)"
        var holder =
          holders[name] ?? Holder(name: name, counts: Array(repeating: 0, count: generations.count))
        let shown = graph.displayName(node.id)
        if top == node.id {
          holder.counts[run] += 1
          if run == last { holder.nodes.insert(edge.from) }
          holder.types.insert(shown)
          // The first new object, or the last closure context (they cannot be told apart), or the
          // first one when none is new.
          if run == last, generation.isNew[node.id] || holder.instance == nil,
            holder.instance.map({ !generation.isNew[$0] || node.kind == .closure }) ?? true
          {
            holder.instance = node.id
          }
        } else {
          holder.folded[shown, default: Array(repeating: 0, count: generations.count)][run] += 1
        }
        holders[name] = holder
      }
    }
    return holders.values.sorted { $0.name < $1.name }
  }

  /// A holder's lines: what grows by how much, what grows with it, and a path to a new instance.
  private func describe(_ holder: Holder) -> [String] {
    let types = holder.types.sorted().joined(separator: ", ")
    var lines = [
      "  \(holder.name) grows by \(perRun(holder.counts)): \(types) (\(list(holder.counts)) after each run)"
    ]
    if !holder.folded.isEmpty {
      let folded = holder.folded.sorted { $0.key < $1.key }.map { "\($0.key) (\(perRun($0.value)))" }
      lines.append("    with them: " + folded.joined(separator: ", "))
    }
    lines += newInstanceLines(holder.instance, run: generations.count - 2)
    return lines
  }

  /// `1 per run`, or `0 to 2 per run` when the judged runs differ.
  private func perRun(_ counts: [Int]) -> String {
    let steps = (1..<(counts.count - 1)).map { counts[$0] - counts[$0 - 1] }
    let low = steps.min() ?? 0
    let high = steps.max() ?? 0
    return low == high ? "\(low) per run" : "\(low) to \(high) per run"
  }

  private func list(_ counts: [Int]) -> String { counts.map(String.init).joined(separator: ", ") }

  /// "a new instance after run N, reached by:" and the trace to it.
  private func newInstanceLines(_ node: Node.ID?, run: Int) -> [String] {
    let graph = generations[run].graph
    guard let node, let path = graph.path(to: node) else { return [] }
    return ["    a new instance after run \(run + 1), reached by:"]
      + Explanation.lines(for: path, in: graph, indent: "      ")
  }

  /// The failure's text and the graph after the last judged run, `marks` marked on its page.
  private func failure(_ findings: [String], marks: [GraphAttachment.Mark]) -> LeakFailure {
    let last = generations.count - 2  // the last judged run
    let graph = generations[last].graph
    let rootName = graph.nodes[graph.root].shortTypeName
    var lines = [
      "Objects reachable from \(rootName) kept growing over \(generations.count) runs of the scenario "
        + "(runs 2–\(generations.count - 1) judged; the first and the last are ignored):"
    ]
    lines += findings
    let report = graph.report()
    if !report.isEmpty { lines += ["", "The graph after run \(last + 1) also has:", report] }
    let name = "retain-graph-\(rootName)-run\(last + 1)"
    return LeakFailure(message: lines.joined(separator: "\n"), graphs: [(name, graph)], marks: [name: marks])
  }

  private func short(_ typeName: String, in graph: ObjectGraph) -> String {
    graph.nodes.first { $0.typeName == typeName }?.shortTypeName ?? typeName
  }
}
