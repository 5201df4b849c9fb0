internal import CRetainGraphCensus
internal import RetainGraph

/// The root of the census walk: global holders (labelled by name) and every live object the census
/// saw (so that each one's references are read, whoever holds it).
private struct CensusRoots: GraphReflectable {
  static let censusLabel = "(census)"
  var graphChildren: [GraphChild]
}

/// Finds who retains an object, with the walker's own reading of every reference.
enum RetainerSearch {
  static func report(for target: AnyObject) -> RetainerReport {
    let before = CensusTable.nextSequence
    CensusTable.settle()
    let targetAddress = UInt(bitPattern: Unmanaged.passUnretained(target).toOpaque())
    // Every live class instance the census saw, held for the search. Closure contexts and boxes are
    // reached through their holders, which the walker reads.
    // Closure contexts whose memory holds the object's address: a holder to report when the walk
    // does not reach the closure (its holder is something the walk cannot see into).
    var capturingContexts = 0
    var objects: [AnyObject] = CensusTable.withLiveRecords(before: before) { records in
      var found: [AnyObject] = []
      found.reserveCapacity(records.count)
      for record in records {
        guard let metadata = CensusRuntime.metadata(ofObjectAt: record.object) else { continue }
        if CensusRuntime.isClosureContext(metadata: metadata) {
          if contains(targetAddress, record) { capturingContexts += 1 }
          continue
        }
        guard CensusRuntime.isClass(metadata: metadata), let object = CensusRuntime.object(at: record.object)
        else { continue }
        found.append(object)
      }
      return found
    }
    var byAddress: [UInt: Int] = [:]
    byAddress.reserveCapacity(objects.count + 1)
    for (index, object) in objects.enumerated() {
      byAddress[UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())] = index
    }
    if byAddress[targetAddress] == nil {
      byAddress[targetAddress] = objects.count
      objects.append(target)
    }
    let globals = GlobalReferences.find { byAddress[$0] != nil }
    var children: [GraphChild] = []
    var globalLabels: Set<String> = []
    var notes: [String] = []
    for global in globals {
      guard let index = byAddress[global.object] else { continue }
      if global.isVerified {
        if globalLabels.insert(global.name).inserted { children.append(.strong(global.name, objects[index])) }
      } else if global.object == targetAddress {
        notes.append("\(global.name) holds a word equal to its address (it may be a number, not a reference)")
      }
    }
    // Globals holding objects made before the census started, read with their declared type.
    for variable in GlobalReferences.typedVariables() where globalLabels.insert(variable.name).inserted {
      children.append(.strong(variable.name, variable.value))
    }
    children += objects.map { .strong(CensusRoots.censusLabel, $0) }
    let (graph, nodeObjects) = ObjectGraph.walk(
      CensusRoots(graphChildren: children), options: GraphOptions(maxNodes: Int(Int32.max)))
    children = []
    objects = []
    guard let targetNode = nodeObjects.firstIndex(where: { $0 === target }) else {
      return RetainerReport(
        typeName: CensusRuntime.shortName(String(reflecting: type(of: target))), retainers: [], origin: .none,
        path: [], notes: notes + ["the walk did not reach it"])
    }
    var report = analyse(graph, target: targetNode, notes: notes)
    if capturingContexts > 0, !report.retainers.contains(where: { $0.label.hasPrefix("capture") }) {
      // The walk did not reach these closures: their holder is storage it cannot see into.
      for _ in 0..<capturingContexts {
        report.retainers.append(.init(holder: "(closure context)", label: "capture", ownership: .strong, isGlobal: false))
      }
      if case .none = report.origin {
        report.origin = .unseenHolder
        report.path = [.init(holder: "(closure context)", label: "capture", target: report.typeName)]
      }
    }
    return report
  }

  /// Whether the words of a recorded object (after its header) include `address`.
  private static func contains(_ address: UInt, _ record: rgc_record) -> Bool {
    let words = Int(record.size) / 8
    guard words > 2 else { return false }
    for index in 2..<words where record.object.load(fromByteOffset: index * 8, as: UInt.self) == address {
      return true
    }
    return false
  }

  private static func analyse(
    _ graph: ObjectGraph, target: Node.ID, notes: [String]
  ) -> RetainerReport {
    let edges = graph.edges
    // Incoming edges per node, in edge order (compressed rows).
    var offsets = [Int](repeating: 0, count: graph.nodeCount + 1)
    for edge in edges { offsets[edge.to + 1] += 1 }
    for index in 0..<graph.nodeCount { offsets[index + 1] += offsets[index] }
    var fill = offsets
    var incoming = [Int32](repeating: 0, count: edges.count)
    for (index, edge) in edges.enumerated() {
      incoming[fill[edge.to]] = Int32(index)
      fill[edge.to] += 1
    }
    func name(_ node: Node.ID) -> String { graph.node(node).shortTypeName }

    var retainers: [RetainerReport.Retainer] = []
    for position in offsets[target]..<offsets[target + 1] {
      let edge = edges[Int(incoming[position])]
      if edge.from == graph.root {
        if edge.label != CensusRoots.censusLabel {
          retainers.append(.init(holder: edge.label, label: "", ownership: .strong, isGlobal: true))
        }
      } else {
        retainers.append(
          .init(holder: name(edge.from), label: edge.label, ownership: edge.ownership, isGlobal: false))
      }
    }
    retainers.sort { ($1.isGlobal ? 1 : 0, $0.holder, $0.label) < ($0.isGlobal ? 1 : 0, $1.holder, $1.label) }
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
    var firstUnseen: Node.ID?
    search: while head < queue.count {
      let node = queue[head]
      head += 1
      var heldVisibly = false
      for position in offsets[node]..<offsets[node + 1] {
        let edgeIndex = Int(incoming[position])
        let edge = edges[edgeIndex]
        guard edge.ownership == .strong else { continue }
        if edge.from == graph.root {
          // The root's references are globals (labelled by name, `items[0]` for an array's
          // element) and the census's own list of live objects.
          if edge.label != CensusRoots.censusLabel {
            origin = .global(edge.label)
            start = node
            break search
          }
          continue
        }
        heldVisibly = true
        if !seen[edge.from] {
          seen[edge.from] = true
          towardTarget[edge.from] = Int32(edgeIndex)
          queue.append(edge.from)
        }
      }
      if !heldVisibly, node != target, firstUnseen == nil { firstUnseen = node }
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
    var path: [RetainerReport.Step] = []
    var node = start ?? target
    while node != target, towardTarget[node] >= 0 {
      let edge = edges[Int(towardTarget[node])]
      path.append(.init(holder: name(edge.from), label: edge.label, target: name(edge.to)))
      node = edge.to
    }
    var allNotes = notes
    if graph.isTruncated { allNotes.append("the census walk was cut short by its node limit") }
    return RetainerReport(
      typeName: name(target), retainers: retainers, origin: origin, path: path, notes: allNotes)
  }
}
