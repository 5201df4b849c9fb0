internal import RetainGraph

/// Explains survivors with the graph walked before their root was released: which retain cycle
/// keeps each, which are retained from outside the graph, and which library objects are only
/// shared with a holder outside it.
struct SurvivorReport {
  let graph: ObjectGraph
  /// The survivors the failure is about.
  var survivors: [Node.ID]
  /// Who holds a survivor that no cycle explains, when the heap census can tell.
  var holders: (Node.ID) -> CensusHolderSearch? = { _ in nil }
  /// Library objects that survived only because a holder outside the graph shares them.
  var shared: [Node.ID] = []

  init(
    graph: ObjectGraph, survivors: [Node.ID],
    holders: @escaping (Node.ID) -> CensusHolderSearch? = { _ in nil }
  ) {
    self.graph = graph
    self.survivors = survivors
    self.holders = holders
  }

  /// The survivors split into leaked ones and library objects that are only shared: a library's
  /// object is shared when no retain cycle keeps it and it strongly reaches no surviving object of
  /// yours (it keeps none of yours alive); everything else is leaked.
  func leakedAndShared() -> (leaked: [Node.ID], shared: [Node.ID]) {
    let keptBy = cycleKeeping()
    let alive = Set(survivors)
    let strongOut = strongSuccessors()
    var leaked: [Node.ID] = []
    var shared: [Node.ID] = []
    for id in survivors {
      guard graph.isLibraryNode(id), keptBy[id] == nil else {
        leaked.append(id)
        continue
      }
      // Does it strongly reach a surviving object of yours?
      var seen: Set<Node.ID> = [id]
      var stack = [id]
      var keepsYours = false
      while let node = stack.popLast(), !keepsYours {
        for next in strongOut[node] where seen.insert(next).inserted {
          if alive.contains(next) && !graph.isLibraryNode(next) { keepsYours = true }
          stack.append(next)
        }
      }
      if keepsYours { leaked.append(id) } else { shared.append(id) }
    }
    return (leaked, shared)
  }

  func text(headline: String) -> String {
    let keptBy = cycleKeeping()
    let numbered = graph.cycles.count > 1
    var lines = [headline]
    var outside: [Node.ID] = []
    var groups: [(text: String, count: Int)] = []
    var groupIndex: [String: Int] = [:]
    func add(_ name: String, _ rest: String) {
      let key = name + "\u{0}" + rest
      if let index = groupIndex[key] {
        groups[index].count += 1
      } else {
        groupIndex[key] = groups.count
        groups.append((key, 1))
      }
    }
    // A surviving library object's strong references to survivors of yours: what it keeps alive.
    let alive = Set(survivors)
    var keptByLibrary: [Node.ID: Edge] = [:]
    for edge in graph.edges
    where edge.ownership == .strong && alive.contains(edge.from) && alive.contains(edge.to)
      && graph.isLibraryNode(edge.from) && !graph.isLibraryNode(edge.to) && keptByLibrary[edge.to] == nil
    {
      keptByLibrary[edge.to] = edge
    }
    for id in survivors {
      let name = graph.nodes[id].shortTypeName
      guard let keeper = keptBy[id] else {
        outside.append(id)
        if let edge = keptByLibrary[id] {
          let holder = graph.displayName(edge.from)
          add(
            name,
            "kept alive by \(holder), a library's object that a holder outside the graph shares, through \(holder).\(edge.label)"
          )
          continue
        }
        // Each census lookup walks the process: name the first few holders only.
        let search = outside.count <= 5 ? holders(id) : nil
        if let holder = search?.holderPath {
          add(name, "retained from outside the graph, by \(holder)")
        } else if let failure = search?.failure {
          add(name, "retained from outside the graph (\(failure))")
        } else {
          add(name, "retained from outside the graph")
        }
        continue
      }
      let cycle = numbered ? "retain cycle \(keeper.cycle + 1)" : "the retain cycle below"
      if let via = keeper.via {
        add(name, "kept alive by \(cycle), through \(graph.displayName(via.from)).\(via.label)")
      } else {
        add(name, "in \(cycle)")
      }
    }
    // Survivors of one type said alike are one line: `ChatMessage ×25: retained from outside the graph`.
    for group in groups {
      let parts = group.text.split(separator: "\u{0}", maxSplits: 1, omittingEmptySubsequences: false)
      lines.append("  \(parts[0])\(group.count > 1 ? " ×\(group.count)" : ""): \(parts[1])")
    }
    let explainedByCycles = outside.count < survivors.count
    let regionIsIncomplete =
      graph.incompleteness(graph.notes(about: reachingSurvivors()), includingCut: false, mayMiss: "") != nil
    if explainedByCycles {
      lines += ["", "Why: retain cycles (in the graph walked before the root was released):", graph.report()]
    }
    if !outside.isEmpty {
      lines += [
        "",
        (regionIsIncomplete
          ? "Retained from outside the graph, or through what the walk did not read (below): no retain "
            + "cycle it saw keeps these; something else holds them "
          : "Retained from outside the graph: no retain cycle keeps these; something else holds them ")
          + "(\(Explanation.outsideHolders)). Reached from the root by:",
      ]
      // One path per type, the paths apart.
      var shownTypes: Set<String> = []
      var paths: [[String]] = []
      for id in outside where shownTypes.insert(graph.nodes[id].typeName).inserted {
        var path = Explanation.lines(for: graph.path(to: id) ?? [], in: graph, indent: "  ")
        let others = outside.filter { graph.nodes[$0].typeName == graph.nodes[id].typeName }.count - 1
        if others > 0 { path.append("  (and \(others) more \(graph.nodes[id].shortTypeName) reached alike)") }
        paths.append(path)
      }
      lines += paths.joined(separator: [""])
    }
    lines += notesLines(repeatingReport: explainedByCycles)
    if !shared.isEmpty {
      lines += [
        "",
        "Shared, not leaked: these library objects outlive the root because a holder outside the graph "
          + "shares them, and they keep no object of yours alive:",
      ]
      var counts: [(name: String, count: Int)] = []
      for id in shared {
        let name = graph.displayName(id)
        if let index = counts.firstIndex(where: { $0.name == name }) {
          counts[index].count += 1
        } else {
          counts.append((name, 1))
        }
      }
      lines += counts.map { "  \($0.name)\($0.count > 1 ? " ×\($0.count)" : "")" }
    }
    return lines.joined(separator: "\n")
  }

  /// What the walk did not see around the survivors (the survivors and what strongly reaches them),
  /// and how to see it; the notes alone when the cycles' report, which has them, is above.
  private func notesLines(repeatingReport: Bool) -> [String] {
    let region = reachingSurvivors()
    let notes = graph.notes(about: region)
    var lines: [String] = []
    if let incomplete = graph.incompleteness(
      notes, includingCut: false, mayMiss: "what keeps them alive")
    {
      lines += [""] + (repeatingReport ? [] : incomplete.lines) + [incomplete.howToSee]
    }
    let library = graph.libraryNoteLines(notes)
    if !library.isEmpty && !repeatingReport { lines += [""] + library }
    return lines
  }

  /// The survivors and every node that strongly reaches one.
  private func reachingSurvivors() -> Set<Node.ID> {
    var strongIn = [[Node.ID]](repeating: [], count: graph.nodeCount)
    for edge in graph.edges where edge.ownership == .strong { strongIn[edge.to].append(edge.from) }
    var region = Set(survivors)
    var stack = survivors
    while let node = stack.popLast() {
      for holder in strongIn[node] where region.insert(holder).inserted { stack.append(holder) }
    }
    return region
  }

  private func strongSuccessors() -> [[Node.ID]] {
    var strongOut = [[Node.ID]](repeating: [], count: graph.nodeCount)
    for edge in graph.edges where edge.ownership == .strong { strongOut[edge.from].append(edge.to) }
    return strongOut
  }

  /// For each node strongly reachable from a cycle: the first such cycle (by index), and the edge
  /// it was reached through (nil for the cycle's own members).
  private func cycleKeeping() -> [Node.ID: (cycle: Int, via: Edge?)] {
    var strongOut = [[Edge]](repeating: [], count: graph.nodes.count)
    for edge in graph.edges where edge.ownership == .strong { strongOut[edge.from].append(edge) }
    var keptBy: [Node.ID: (cycle: Int, via: Edge?)] = [:]
    for (index, cycle) in graph.cycles.enumerated() {
      for member in cycle.members { keptBy[member] = (index, nil) }
    }
    for cycle in graph.cycles {
      var stack = cycle.members
      while let node = stack.popLast() {
        for edge in strongOut[node] where keptBy[edge.to] == nil {
          keptBy[edge.to] = (keptBy[node]?.cycle ?? 0, edge)
          stack.append(edge.to)
        }
      }
    }
    return keptBy
  }
}
