internal import CRetainGraphCensus
internal import RetainGraph
internal import RetainGraphRuntime

// One leaked cycle described: its group walked from its oldest class instance, the leak trace and
// fixes of the walked graph, who declares its references, and the breaks with two edits.

extension LeakSearch {
  /// What the walk of one leaked cycle gives.
  struct Analysed {
    var signature: LeakSignature
    var types: [String]
    /// The trace and fix plan, as values.
    var sections: [LeakReport.TraceSection]
    var site: [String]?
    var maker: String?
    var hasProgramType: Bool
    /// The modules whose code declares the cycle's references, when none is the program's.
    var libraryModules: [String]?
    /// The breaks that gave two edits, to be decided from the live instances.
    var twoEdits: [TwoEdits] = []
  }

  /// The report of one cycle: the group walked from the cycle's oldest class instance, its graph
  /// kept to the group's objects.
  static func leakedCycle(cycle: [Int], group: [Int], population: Population, attributing: Bool)
    -> Analysed?
  {
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
    // The report's sections, without the walked graph's summary ("… reachable from …"): the leak
    // has its own.
    let reported = graph.reportSections()
    let sections = LeakReport.TraceSection.sections(of: graph, reported: reported)
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
    // Whose code declares the cycle's references: when none is the program's, the libraries'.
    var libraryModules: [String]?
    if attributing {
      let onCycleNodes = Set(cycleMembers)
      var modules: Set<String> = []
      var isProgram = false
      for edge in graph.edges
      where edge.ownership == .strong && onCycleNodes.contains(edge.from)
        && onCycleNodes.contains(edge.to)
      {
        guard let holder = objects[keep[edge.from]] else { continue }
        let declaration = DeclaringCode.declaration(
          of: edge, holder: holder, holderName: walked.node(keep[edge.from]).typeName)
        if declaration.isProgram {
          isProgram = true
          break
        }
        if let module = declaration.module { modules.insert(module) }
      }
      libraryModules = isProgram ? nil : modules.sorted()
    }
    // The breaks with two edits, with the metadata of the object the closure captures.
    var twoEdits: [TwoEdits] = []
    for (section, group) in zip(sections.indices, reported) {
      for (number, fix) in group.cycle.fixPlan.enumerated() {
        guard let alternative = fix.alternative else { continue }
        func metadata(ofNode node: Int) -> UInt? {
          objects[keep[node]].flatMap {
            CensusRuntime.metadata(ofObjectAt: UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()))
          }.map { UInt(bitPattern: $0) }
        }
        guard let captured = metadata(ofNode: alternative.edge.from),
          let holder = metadata(ofNode: fix.edge.from)
        else { continue }
        twoEdits.append(
          TwoEdits(capturedMetadata: captured, holderMetadata: holder, section: section, fix: number))
      }
    }
    return Analysed(
      signature: graph.signature(ofMembers: cycleMembers), types: types.sorted(),
      sections: sections,
      site: rgc_backtraces_ever_recorded() != 0 ? HeapCensus.allocationBacktrace(of: root) : nil,
      maker: attributing
        ? CensusTable.allocationFrames(of: UnsafeRawPointer(Unmanaged.passUnretained(root).toOpaque()))
          .flatMap(LeaksAtExit.maker(frames:)) : nil,
      hasProgramType: hasProgramType, libraryModules: libraryModules, twoEdits: twoEdits)
  }
}
