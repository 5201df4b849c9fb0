public import RetainGraph

/// Builds a module with `make`, walks the whole graph from its root, takes a weak reference to every
/// object in it, releases the root, and returns what survived and why.
///
/// Every object reachable from the root is checked, not only the ones a test names: a view,
/// presenter and interactor need no extra API to be exposed. Each survivor is listed with the retain
/// cycle that keeps it; survivors that no cycle explains are listed separately as retained from
/// outside the graph (a global, a singleton, a cache, a task, or a variable of the test).
/// - Parameters:
///   - timeout: how long to wait for the objects to go (default 1 second; returns as soon as they are).
///   - options: limits and filters for the walk (e.g. `ignoredTypes` for shared services).
///   - make: builds the module and returns its root. Keep no other reference to it.
/// - Returns: the failure text, or nil when every object was deallocated.
public func verifyNoLeaks<Root>(
  timeout: Duration = .seconds(1),
  options: GraphOptions = GraphOptions(),
  _ make: () throws -> Root
) rethrows -> String? {
  try noLeaksFailure(timeout: timeout, options: options, make)?.fullText
}

/// Fails the current test (XCTest or Swift Testing) at the caller's line when any object reachable
/// from the root that `make` returns is still alive after the root is released.
///
/// ```swift
/// assertNoLeaks { ProfileModule.make(user: .preview) }
/// ```
/// The failure lists each survivor with the retain cycle that keeps it (the path from the root, the
/// loop, the reference to make weak) and, separately, the survivors retained from outside the graph.
/// - Parameters:
///   - timeout: how long to wait for the objects to go (default 1 second; returns as soon as they are).
///   - options: limits and filters for the walk (e.g. `ignoredTypes` for shared services).
///   - message: more context for the failure message.
///   - fileID: the caller's file ID.
///   - filePath: the caller's file path.
///   - line: the caller's line.
///   - column: the caller's column.
///   - make: builds the module and returns its root. Keep no other reference to it.
public func assertNoLeaks<Root>(
  timeout: Duration = .seconds(1),
  options: GraphOptions = GraphOptions(),
  _ message: @autoclosure () -> String = "",
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column,
  _ make: () throws -> Root
) rethrows {
  guard let failure = try noLeaksFailure(timeout: timeout, options: options, make) else { return }
  failure.record(
    at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), context: message())
}

// MARK: - Shared

/// The graph walked from a fresh root, with a weak probe to each of its objects (by node id).
struct ProbedGraph {
  var graph: ObjectGraph
  var probes: [(id: Node.ID, probe: WeakProbe)]

  var survivors: [(id: Node.ID, probe: WeakProbe)] { probes.filter { $0.probe.isAlive } }

  /// With the heap census running: who retains a surviving node's object
  /// (`Registry.shared.presenters[0]`); nil without the census or when it sees no holder.
  func censusHolders(_ id: Node.ID) -> String? {
    guard let census = CensusRegistration.running,
      let object = probes.first(where: { $0.id == id })?.probe.object
    else { return nil }
    return census.retainerLines(of: object).first { !$0.hasPrefix("allocated in ") }
  }
}

/// Builds the root and probes its graph in a frame of its own, so that the root and the walk's
/// objects are released when it returns.
@inline(never)
private func probeGraph<Root>(_ make: () throws -> Root, options: GraphOptions) rethrows -> ProbedGraph {
  let (graph, objects) = ObjectGraph.walk(try make(), options: options)
  var probes: [(id: Node.ID, probe: WeakProbe)] = []
  for (id, object) in objects.enumerated() {
    if let object { probes.append((id, WeakProbe(object))) }
  }
  return ProbedGraph(graph: graph, probes: probes)
}

private func noLeaksFailure<Root>(
  timeout: Duration, options: GraphOptions, _ make: () throws -> Root
) rethrows -> LeakFailure? {
  let probed = try probeGraph(make, options: options)
  if waitUntil(timeout: timeout, { probed.probes.allSatisfy { !$0.probe.isAlive } }) { return nil }
  let survivors = probed.survivors.map(\.id)
  guard !survivors.isEmpty else { return nil }
  let rootName = probed.graph.nodes[probed.graph.root].shortTypeName
  return LeakFailure(
    message: SurvivorReport(graph: probed.graph, survivors: survivors, holders: probed.censusHolders).text(
      headline: "\(Explanation.count(survivors.count, "object")) reachable from \(rootName) "
        + "\(survivors.count == 1 ? "is" : "are") still alive \(timeout) after \(rootName) was released:"),
    graphs: [("retain-graph-\(rootName)", probed.graph)])
}

/// Explains survivors with the graph walked before their root was released: which retain cycle
/// keeps each, and which are retained from outside the graph.
struct SurvivorReport {
  let graph: ObjectGraph
  let survivors: [Node.ID]
  /// Who holds a survivor that no cycle explains, when the heap census can tell.
  var holders: (Node.ID) -> String? = { _ in nil }

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
        if outside.count <= 5, let holder = holders(id) {
          lines.append("  \(name): retained from outside the graph, by \(holder)")
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
          + "(a global or singleton, a cache, a task or timer still running, or a variable of the test). "
          + "Reached from the root by:",
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
