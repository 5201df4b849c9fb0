internal import CRetainGraphCensus
internal import RetainGraph

// How a search reads the walked graph: the path to the target, its holders, its own cycle.
extension RetainerSearch {
  /// The task or block (one of `holders`, the names of the root's children that hold their
  /// closures) a root reference comes from, and where below it: nothing for the closure's own
  /// context, `capture 0` when the closure's context is the object itself.
  static func holder(of edge: Edge, among holders: [String]) -> (name: String, rest: String)? {
    guard let name = edge.property, holders.contains(name) else { return nil }
    switch edge.kind {
    case .singleCapture: return (name, "capture 0")
    case .methodReference(let method): return (name, "(method \(method))")
    default: return (name, "")
    }
  }

  static func analyse(
    _ graph: ObjectGraph, target: Node.ID, holders: [String], notes: [RetainerReport.Note]
  ) -> RetainerReport {
    let ends = graph.edgeEnds()
    let edgeCount = ends.from.count
    // Incoming edges per node, in edge order (compressed rows).
    var offsets = [Int](repeating: 0, count: graph.nodeCount + 1)
    for to in ends.to { offsets[Int(to) + 1] += 1 }
    for index in 0..<graph.nodeCount { offsets[index + 1] += offsets[index] }
    var fill = offsets
    var incoming = [Int32](repeating: 0, count: edgeCount)
    for index in 0..<edgeCount {
      let to = Int(ends.to[index])
      incoming[fill[to]] = Int32(index)
      fill[to] += 1
    }
    // A task's or block's own closure context is named as the holder it stands for.
    var holderContexts: [Node.ID: String] = [:]
    for position in 0..<edgeCount where Int(ends.from[position]) == graph.root {
      let to = Int(ends.to[position])
      guard to != target, graph.node(to).kind == .closure,
        let (holder, rest) = holder(of: graph.edge(at: position), among: holders), rest.isEmpty
      else { continue }
      holderContexts[to] = holder
    }
    func name(_ node: Node.ID) -> String { holderContexts[node] ?? graph.displayName(node) }
    func step(_ edge: Edge) -> TraceStep {
      TraceStep(
        holder: name(edge.from), holderKind: graph.node(edge.from).kind, label: edge.label, kind: edge.kind,
        ownership: edge.ownership, target: name(edge.to), targetKind: graph.node(edge.to).kind)
    }
    func heldBy(_ node: Node.ID) -> RetainerReport.Holder {
      if let name = holderContexts[node] { return .runtimeHolder(name: name) }
      return graph.node(node).kind == .closure ? .closure(name: name(node)) : .object(typeName: name(node))
    }

    var retainers: [RetainerReport.Retainer] = []
    for position in offsets[target]..<offsets[target + 1] {
      let edge = graph.edge(at: Int(incoming[position]))
      if edge.from == graph.root {
        if let (holder, rest) = holder(of: edge, among: holders) {
          retainers.append(
            .init(
              heldBy: .runtimeHolder(name: holder), label: rest, ownership: edge.ownership, kind: edge.kind,
              isClosureContext: edge.kind == .singleCapture))
        } else if edge.kind == .global {
          retainers.append(
            .init(heldBy: .global(name: edge.label), label: "", ownership: edge.ownership, kind: edge.kind))
        }
      } else {
        retainers.append(
          .init(
            heldBy: heldBy(edge.from), label: edge.label, ownership: edge.ownership, kind: edge.kind,
            isClosureContext: graph.node(edge.from).kind == .closure))
      }
    }
    retainers.sort {
      ($1.heldBy.isGlobal ? 1 : 0, $0.heldBy.name, $0.label) < (
        $0.heldBy.isGlobal ? 1 : 0, $1.heldBy.name, $1.label
      )
    }
    retainers = retainers.reduce(into: []) { unique, retainer in
      if unique.last != retainer { unique.append(retainer) }
    }

    // Backwards over strong references, nearest holders first, until a global holds one.
    var towardTarget = [Int32](repeating: -1, count: graph.nodeCount)
    var seen = [Bool](repeating: false, count: graph.nodeCount)
    seen[target] = true
    var queue = [target]
    var head = 0
    var origin: RetainerReport.Origin = .none
    var start: Node.ID?
    var startStep: TraceStep?
    var firstUnseen: Node.ID?
    search: while head < queue.count {
      let node = queue[head]
      head += 1
      var heldVisibly = false
      for position in offsets[node]..<offsets[node + 1] {
        let edgeIndex = Int(incoming[position])
        guard ends.isStrong[edgeIndex] else { continue }
        let from = Int(ends.from[edgeIndex])
        if from == graph.root {
          // The root's references are globals (labelled by name, `items[0]` for an array's
          // element) and the census's own list of live objects.
          let edge = graph.edge(at: edgeIndex)
          if let (holder, rest) = holder(of: edge, among: holders) {
            origin = .runtimeHolder(holder)
            start = node
            if holderContexts[node] == nil {
              // The holder's closure captures the node itself.
              startStep = TraceStep(
                holder: holder, holderKind: .closure, label: rest, kind: edge.kind, target: name(node),
                targetKind: graph.node(node).kind)
            }
            break search
          }
          if edge.kind == .global {
            origin = .global(edge.label)
            start = node
            break search
          }
          continue
        }
        heldVisibly = true
        if !seen[from] {
          seen[from] = true
          towardTarget[from] = Int32(edgeIndex)
          queue.append(from)
        }
      }
      if !heldVisibly, node != target, firstUnseen == nil { firstUnseen = node }
    }
    if start == nil, firstUnseen == nil,
      let loop = ownCycle(of: target, holders: seen, ends: ends, graph: graph)
    {
      // Every strong holder is on a loop back to the object: held only by its own cycle.
      return RetainerReport(
        typeName: name(target), retainers: retainers, origin: .ownCycle,
        path: loop.map(step), notes: notes + (graph.isTruncated ? [.walkCut] : []))
    }
    if start == nil {
      if let firstUnseen {
        origin = .unseenHolder
        start = firstUnseen
      } else if queue.count > 1 {
        let inCycles = Set(graph.cycles.flatMap(\.members))
        if let member = queue.first(where: { $0 != target && inCycles.contains($0) }) {
          origin = .retainCycle
          start = member
        }
      }
    }
    var path: [TraceStep] = startStep.map { [$0] } ?? []
    var node = start ?? target
    while node != target, towardTarget[node] >= 0 {
      let edge = graph.edge(at: Int(towardTarget[node]))
      path.append(step(edge))
      node = edge.to
    }
    var allNotes = notes
    if graph.isTruncated { allNotes.append(.walkCut) }
    return RetainerReport(
      typeName: name(target), retainers: retainers, origin: origin, path: path, notes: allNotes)
  }

  /// The shortest loop of strong references from `target` back to it through objects that hold it
  /// (`holders`, marked by the backward search), when there is one.
  static func ownCycle(
    of target: Node.ID, holders: [Bool], ends: (from: [Int32], to: [Int32], isStrong: [Bool]),
    graph: ObjectGraph
  ) -> [Edge]? {
    // Strong references between holders, by source (compressed rows).
    var offsets = [Int](repeating: 0, count: graph.nodeCount + 1)
    for index in ends.from.indices where ends.isStrong[index] && holders[Int(ends.from[index])] {
      offsets[Int(ends.from[index]) + 1] += 1
    }
    for index in 0..<graph.nodeCount { offsets[index + 1] += offsets[index] }
    var fill = offsets
    var outgoing = [Int32](repeating: 0, count: offsets[graph.nodeCount])
    for index in ends.from.indices where ends.isStrong[index] && holders[Int(ends.from[index])] {
      let from = Int(ends.from[index])
      outgoing[fill[from]] = Int32(index)
      fill[from] += 1
    }
    var reachedBy = [Int32](repeating: -1, count: graph.nodeCount)
    var queue = [target]
    var head = 0
    while head < queue.count {
      let node = queue[head]
      head += 1
      for position in offsets[node]..<offsets[node + 1] {
        let edgeIndex = Int(outgoing[position])
        let to = Int(ends.to[edgeIndex])
        guard holders[to] || to == target else { continue }
        if to == target {
          var loop = [graph.edge(at: edgeIndex)]
          var current = node
          while current != target {
            let edge = graph.edge(at: Int(reachedBy[current]))
            loop.append(edge)
            current = edge.from
          }
          return loop.reversed()
        }
        if reachedBy[to] < 0 {
          reachedBy[to] = Int32(edgeIndex)
          queue.append(to)
        }
      }
    }
    return nil
  }
}
