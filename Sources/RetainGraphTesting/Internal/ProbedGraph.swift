internal import RetainGraph

/// The graph walked from a fresh root, with a weak probe to each of its objects (by node id).
struct ProbedGraph {
  var graph: ObjectGraph
  var probes: [(id: Node.ID, probe: WeakProbe)]

  var survivors: [(id: Node.ID, probe: WeakProbe)] { probes.filter { $0.probe.isAlive } }

  /// The probes a wait for the release waits on: the objects of yours (a library's object that a
  /// holder outside the graph shares never goes, and is not waited for), or every probe when the
  /// graph has none of yours.
  var awaitedProbes: [WeakProbe] {
    let own = probes.filter { !graph.isLibraryNode($0.id) }.map(\.probe)
    return own.isEmpty ? probes.map(\.probe) : own
  }

  /// With the heap census running: who retains a surviving node's object
  /// (`Registry.shared.presenters[0]`), or why the census could not tell; nil without the census.
  func censusHolders(_ id: Node.ID) -> CensusHolderSearch? {
    guard let census = CensusRegistration.running,
      let object = probes.first(where: { $0.id == id })?.probe.object
    else { return nil }
    return census.holders(of: object)
  }
}

/// Builds the root and probes its graph in a frame of its own, so that the root and the walk's
/// objects are released when it returns.
@inline(never)
func probeGraph<Root>(_ make: () throws -> Root, options: GraphOptions) rethrows -> ProbedGraph {
  probe(ObjectGraph.walk(try make(), options: options))
}

/// The async twin of ``probeGraph(_:options:)``.
@inline(never)
func probeGraph<Root>(
  isolation: isolated (any Actor)?, _ make: () async throws -> Root, options: GraphOptions
) async rethrows -> ProbedGraph {
  probe(ObjectGraph.walk(try await make(), options: options))
}

private func probe(_ walk: (graph: ObjectGraph, objects: [AnyObject?])) -> ProbedGraph {
  var probes: [(id: Node.ID, probe: WeakProbe)] = []
  for (id, object) in walk.objects.enumerated() {
    if let object { probes.append((id, WeakProbe(object))) }
  }
  return ProbedGraph(graph: walk.graph, probes: probes)
}
