internal import RetainGraph

/// Explains survivors with the graph walked before their root was released: which retain cycle
/// keeps each, and which are retained from outside the graph.
struct SurvivorReport {
  let graph: ObjectGraph
  let survivors: [Node.ID]
  /// Who holds a survivor that no cycle explains, when the heap census can tell.
  var holders: (Node.ID) -> CensusHolderSearch? = { _ in nil }

  func text(headline: String) -> String {
    let keptBy = cycleKeeping()
    let numbered = graph.cycles.count > 1
    var lines = [headline]
    var outside: [Node.ID] = []
    for id in survivors {
      let name = graph.nodes[id].shortTypeName
      guard let keeper = keptBy[id] else {
        outside.append(id)
        // Each census lookup walks the process: name the first few holders only.
        let search = outside.count <= 5 ? holders(id) : nil
        if let holder = search?.holderPath {
          lines.append("  \(name): retained from outside the graph, by \(holder)")
        } else if let failure = search?.failure {
          lines.append("  \(name): retained from outside the graph (\(failure))")
        } else {
          lines.append("  \(name): retained from outside the graph")
        }
        continue
      }
      let cycle = numbered ? "retain cycle \(keeper.cycle + 1)" : "the retain cycle below"
      if let via = keeper.via {
        lines.append(
          "  \(name): kept alive by \(cycle), through \(graph.nodes[via.from].shortTypeName).\(via.label)")
      } else {
        lines.append("  \(name): in \(cycle)")
      }
    }
    if outside.count < survivors.count {
      lines += ["", "Why: retain cycles (in the graph walked before the root was released):", graph.report()]
    }
    if !outside.isEmpty {
      lines += [
        "",
        "Retained from outside the graph: no retain cycle keeps these; something else holds them "
          + "(\(Explanation.outsideHolders)). Reached from the root by:",
      ]
      for id in outside {
        lines += Explanation.lines(for: graph.path(to: id) ?? [], in: graph, indent: "  ")
      }
    }
    return lines.joined(separator: "\n")
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
