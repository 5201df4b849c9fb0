internal import CRetainGraphCensus
internal import RetainGraph
internal import RetainGraphProcess
internal import RetainGraphRuntime

extension LeakSearch {
  /// The whole search, in this process: collect, walk, count, group, report. Reads every live
  /// object: other threads must not change them meanwhile (a forked child, or a quiet moment).
  /// - Parameters:
  ///   - mark: report only cycles that hold an object allocated at or after this number.
  ///   - scopes: report only cycles that hold an object allocated in one of these leak scopes (nil:
  ///     any).
  ///   - attributing: name the function that made each cycle (``LeaksAtExit/maker(frames:)``).
  /// - Returns: the report.
  static func report(since mark: UInt64, scopes: Set<UInt32>? = nil, attributing: Bool = false) -> LeakReport
  {
    HeapWideRetains.during {
      let (accounting, recorded) = count()
      return groups(accounting, liveObjects: recorded, since: mark, scopes: scopes, attributing: attributing)
    }
  }

  /// Collects, walks and counts every recorded object; how many were recorded.
  static func count() -> (Accounting, recorded: Int) {
    let before = CensusTable.nextSequence
    CensusTable.settle()
    let (objects, population) = collect(before: before)
    // The roots' array is itself a storage the walk reads through, and the count reads its strong
    // count and words: it must outlive the count. An optimised build would free it after the walk,
    // and its memory, reused, is no object (a release build's children crashed on it).
    return withExtendedLifetime(objects) {
      let reading = ObjectGraph.readHeap(
        CensusRoots(graphChildren: [.strong(CensusRoots.censusLabel, objects)]),
        options: GraphOptions(maxNodes: Int(Int32.max)))
      return (account(reading, population: population), population.recordedCount)
    }
  }

  /// Groups the garbage into leaked cycles (strongly connected groups, and what only each keeps
  /// alive), each reported as a walked cycle is.
  static func groups(
    _ accounting: Accounting, liveObjects: Int, since mark: UInt64, scopes: Set<UInt32>? = nil,
    attributing: Bool = false
  )
    -> LeakReport
  {
    let population = accounting.population
    let count = population.addresses.count
    let successors = Successors(count: count, holders: accounting.holders, targets: accounting.targets)
    let garbage = (0..<count).filter { accounting.isGarbage[$0] }
    let components = StrongComponents.find(in: successors, among: accounting.isGarbage)
    // Cycles: components of more than one object, or of one that holds itself.
    var cycles: [[Int]] = []
    for component in components {
      if component.count > 1 || successors.neighbours(of: component[0]).contains(Int32(component[0])) {
        cycles.append(component)
      }
    }
    // A cycle's members are its own; every other garbage object belongs to the one cycle that
    // reaches it without passing through another cycle (-2: several do).
    var owner = [Int](repeating: -1, count: count)
    var isMember = [Bool](repeating: false, count: count)
    for (number, cycle) in cycles.enumerated() {
      for member in cycle {
        owner[member] = number
        isMember[member] = true
      }
    }
    var stamp = [Int](repeating: -1, count: count)
    for (number, cycle) in cycles.enumerated() {
      var stack = cycle
      for member in cycle { stamp[member] = number }
      while let node = stack.popLast() {
        if !isMember[node] { owner[node] = owner[node] == -1 || owner[node] == number ? number : -2 }
        for target in successors.neighbours(of: node) where stamp[Int(target)] != number {
          stamp[Int(target)] = number
          if accounting.isGarbage[Int(target)], !isMember[Int(target)] { stack.append(Int(target)) }
        }
      }
    }
    var groups = [[Int]](repeating: [], count: cycles.count)
    for object in garbage where owner[object] >= 0 { groups[owner[object]].append(object) }
    var leaks: [LeakReport.LeakedCycle] = []
    for (number, cycle) in cycles.enumerated() {
      let group = groups[number]
      let sequences = group.map { population.sequences[$0] }.filter { $0 != .max }
      guard let oldest = sequences.min(), let newest = sequences.max(), newest >= mark else { continue }
      if let scopes, !group.contains(where: { scopes.contains(population.scopes[$0]) }) { continue }
      if let leak = leakedCycle(cycle: cycle, group: group, population: population, attributing: attributing)
      {
        leaks.append(
          LeakReport.LeakedCycle(
            signature: leak.signature, cycleTypes: leak.types, objectCount: group.count, trace: leak.trace,
            fixes: leak.fixes, allocationSite: leak.site, sequences: oldest...newest, madeBy: leak.maker,
            isOfLibraryTypesOnly: attributing ? !leak.hasProgramType : nil))
      }
    }
    leaks.sort { $0.sequences.lowerBound < $1.sequences.lowerBound }
    return LeakReport(
      leaks: leaks, liveObjects: liveObjects, leakedObjects: garbage.count,
      unexplained: accounting.unexplained)
  }

  /// The report of one cycle: the group walked from the cycle's oldest class instance, its graph
  /// kept to the group's objects.
  private static func leakedCycle(cycle: [Int], group: [Int], population: Population, attributing: Bool) -> (
    signature: LeakSignature, types: [String], trace: String, fixes: [String], site: [String]?,
    maker: String?,
    hasProgramType: Bool
  )? {
    let members = Set(group.map { population.addresses[$0] })
    let onCycle = Set(cycle.map { population.addresses[$0] })
    var root: AnyObject?
    for index in cycle.sorted(by: { population.sequences[$0] < population.sequences[$1] }) {
      guard let address = UnsafeRawPointer(bitPattern: population.addresses[index]),
        let metadata = CensusRuntime.metadata(ofObjectAt: address), CensusRuntime.isClass(metadata: metadata),
        let object = CensusRuntime.object(at: address)
      else { continue }
      root = object
      break
    }
    guard let root else { return nil }
    let (walked, objects) = ObjectGraph.walkKeepingContexts(root)
    var keep: [Int] = []
    var renumbered = [Int](repeating: -1, count: walked.nodeCount)
    for (node, object) in objects.enumerated() {
      guard let object, members.contains(UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())) else {
        continue
      }
      renumbered[node] = keep.count
      keep.append(node)
    }
    guard keep.first == 0 else { return nil }
    let nodes = keep.enumerated().map {
      Node(id: $0.offset, typeName: walked.node($0.element).typeName, kind: walked.node($0.element).kind)
    }
    let edges = walked.edges.filter { renumbered[$0.from] >= 0 && renumbered[$0.to] >= 0 }.map {
      Edge(
        from: renumbered[$0.from], to: renumbered[$0.to], label: $0.label, ownership: $0.ownership,
        kind: $0.kind,
        property: $0.property, closureFunction: $0.closureFunction)
    }
    guard let graph = try? ObjectGraph(nodes: nodes, edges: edges, root: 0) else { return nil }
    var lines = graph.report().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    // The first line is the walked graph's summary ("… reachable from …"): the leak has its own.
    if !lines.isEmpty { lines.removeFirst() }
    while lines.first == "" { lines.removeFirst() }
    var types: Set<String> = []
    var cycleMembers: [Node.ID] = []
    // Whether a class on the cycle is defined in the program (its type descriptor is in the image
    // the census is linked into), not only in libraries loaded beside it: asked (by `dladdr`) only
    // for a report that attributes its cycles.
    var hasProgramType = false
    for (kept, node) in keep.enumerated() {
      guard let object = objects[node],
        onCycle.contains(UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()))
      else { continue }
      cycleMembers.append(kept)
      types.insert(graph.displayName(kept))
      if attributing, !hasProgramType, let descriptor = Metadata.descriptor(of: type(of: object)) {
        hasProgramType = rgc_in_census_image(descriptor) != 0
      }
    }
    return (
      graph.signature(ofMembers: cycleMembers), types.sorted(), lines.joined(separator: "\n"),
      graph.cycles.flatMap { $0.fixPlan.map(\.fix) },
      rgc_backtraces_ever_recorded() != 0 ? HeapCensus.allocationBacktrace(of: root) : nil,
      attributing
        ? CensusTable.allocationFrames(of: UnsafeRawPointer(Unmanaged.passUnretained(root).toOpaque()))
          .flatMap(LeaksAtExit.maker(frames:)) : nil,
      hasProgramType
    )
  }
}

/// Tarjan's strongly connected components, iteratively, over the nodes marked `among`.
enum StrongComponents {
  static func find(in successors: Successors, among included: [Bool]) -> [[Int]] {
    let count = included.count
    var index = [Int](repeating: -1, count: count)
    var low = [Int](repeating: 0, count: count)
    var onStack = [Bool](repeating: false, count: count)
    var stack: [Int] = []
    var components: [[Int]] = []
    var next = 0
    // The explicit call stack: a node and the position of its next successor.
    var calls: [(node: Int, position: Int)] = []
    for start in 0..<count where included[start] && index[start] < 0 {
      calls.append((start, Int(successors.offsets[start])))
      index[start] = next
      low[start] = next
      next += 1
      stack.append(start)
      onStack[start] = true
      while let (node, position) = calls.last {
        if position < Int(successors.offsets[node + 1]) {
          calls[calls.count - 1].position += 1
          let target = Int(successors.targets[position])
          guard included[target] else { continue }
          if index[target] < 0 {
            index[target] = next
            low[target] = next
            next += 1
            stack.append(target)
            onStack[target] = true
            calls.append((target, Int(successors.offsets[target])))
          } else if onStack[target] {
            low[node] = min(low[node], index[target])
          }
          continue
        }
        calls.removeLast()
        if let parent = calls.last { low[parent.node] = min(low[parent.node], low[node]) }
        guard low[node] == index[node] else { continue }
        var component: [Int] = []
        while let member = stack.popLast() {
          onStack[member] = false
          component.append(member)
          if member == node { break }
        }
        components.append(component)
      }
    }
    return components
  }
}
