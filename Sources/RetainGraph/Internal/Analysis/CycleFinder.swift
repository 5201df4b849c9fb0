internal import RetainGraphStorage
internal import RetainGraphSupport

/// One strong cycle as the analysis found it, in edge and node indices: its members, its loop, the
/// path to it, and its fix plan's breaks with the idiom rule each matched. The advice (the sentences)
/// is written from it afterwards (`Advice/Advice+Cycle.swift`).
struct FoundCycle {
  /// The component's nodes, ascending.
  var members: [Int32]
  /// The shortest loop through the member nearest the root.
  var loop: [Int32]
  /// The loop's first member: the path from the root to it is read from `rootParentEdges` when
  /// asked for (a graph of many cycles far from its root keeps one tree, not a path per cycle).
  var entry: Int32
  /// The root search's parent edge of each node (shared by every cycle of the graph).
  var rootParentEdges: [Int32]
  /// The plan's breaks, the most idiomatic first.
  var breaks: [FixPlan.Planned]
  /// How many references the whole plan weakens.
  var referencesToWeaken: Int
  /// The members left on loops of library objects alone.
  var libraryLoopMembers: [Int32]
}

/// Finds the strong cycles of a graph, and for each its loop and its fix plan.
struct CycleFinder {
  let storage: GraphStorage
  let root: Int
  let libraries: Libraries
  /// Whether each node is a library's (see ``libraryNodes()``), decided once.
  let isLibrary: [Bool]?

  init(storage: GraphStorage, root: Int, libraryModules: Set<String>) {
    self.storage = storage
    self.root = root
    self.libraries = Libraries(modules: libraryModules)
    self.isLibrary = Self.libraryNodes(storage: storage, libraries: libraries)
  }

  /// Whether each node's type (a closure's function) is declared in one of ``libraryModules``; nil
  /// when the graph's nodes are all of library modules or none is, and the plans treat every node
  /// alike.
  private static func libraryNodes(storage: GraphStorage, libraries: Libraries) -> [Bool]? {
    guard !libraries.modules.isEmpty else { return nil }
    // Decided once per type name (the names are interned).
    let byType = storage.typeNames.map(libraries.isLibrary(nodeNamed:))
    guard byType.contains(true), byType.contains(false) else { return nil }
    var flags = storage.nodeTypes.map { byType[Int($0)] }
    markUnnamedClosuresOfLibraries(&flags, storage: storage)
    return flags.contains(true) && flags.contains(false) ? flags : nil
  }

  /// A closure the walk could not name (a build without the binary readers names it after where it
  /// is stored: `closure at LockedBuffer.header.observations[0].kind.willSetTracking`) is the
  /// library's when only library objects hold it: Observation's own tracking closure, whose loop
  /// is the library's, not a cycle of yours. A closure of yours that a library keeps still loops
  /// back through your object, which keeps the cycle yours (advised as the library's reference).
  private static func markUnnamedClosuresOfLibraries(_ flags: inout [Bool], storage: GraphStorage) {
    var unnamed: [Bool] = storage.typeNames.map { $0.hasPrefix(Walker.unnamedClosurePrefix) }
    guard unnamed.contains(true) else { return }
    unnamed = storage.nodeTypes.map { unnamed[Int($0)] }
    // A closure stored in a library's unnamed closure is the library's too: repeated until nothing
    // changes (at most once per closure).
    var changed = true
    while changed {
      changed = false
      var heldByOthers = [Bool](repeating: false, count: flags.count)
      var heldByLibrary = [Bool](repeating: false, count: flags.count)
      for edge in storage.edges where edge.isStrong && unnamed[Int(edge.to)] && !flags[Int(edge.to)] {
        if flags[Int(edge.from)] {
          heldByLibrary[Int(edge.to)] = true
        } else {
          heldByOthers[Int(edge.to)] = true
        }
      }
      for node in flags.indices where heldByLibrary[node] && !heldByOthers[node] {
        flags[node] = true
        changed = true
      }
    }
  }

  func cycles() -> [FoundCycle] {
    let nodeCount = storage.nodeCount
    var strong = storage.strongRows()
    var spans = [UInt8](repeating: 0, count: strong.count)
    var components = Tarjan.cyclicComponents(
      nodeCount: nodeCount, offsets: strong.offsets, edgeIndices: strong.edgeIndices, edges: storage.edges,
      backEdgeSpans: &spans)
    guard !components.isEmpty else { return [] }
    strong.backEdgeSpan = spans
    spans = []

    let search = storage.distances(from: root)
    let componentOf = ComponentMap(components, nodeCount: nodeCount)
    var reachedBy = [Int32](repeating: -1, count: nodeCount)
    // Made when a component small enough for a local copy needs it (see `FixPlan.plan`).
    var localIndex: [Int32] = []
    let planner = FixPlan(storage: storage, isLibrary: isLibrary, libraries: libraries)
    var result: [FoundCycle] = []
    for index in components.indices {
      // The members, sorted in place: each component becomes its cycle's members (no copy).
      var members: [Int32] = []
      swap(&members, &components[index])
      Self.sortAscending(&members)
      if members.count <= FixPlan.greedyLimit, localIndex.isEmpty {
        localIndex = [Int32](repeating: -1, count: nodeCount)
      }
      result.append(
        describe(
          members, index: Int32(index), componentOf: componentOf, strong: strong, search: search,
          reachedBy: &reachedBy, planner: planner, localIndex: &localIndex))
    }
    return result.sorted { $0.members[0] < $1.members[0] }
  }

  /// Sorts `members` (distinct ids) ascending. A component Tarjan's search closed along one path
  /// (a list's) comes in descending order: it is reversed, not sorted.
  private static func sortAscending(_ members: inout [Int32]) {
    let descending = members.withUnsafeBufferPointer { members in
      var position = 1
      while position < members.count, members[position - 1] > members[position] { position += 1 }
      return position >= members.count
    }
    if descending { members.reverse() } else { members.sort() }
  }

  /// Describes one component, its `members` sorted. `localIndex` has an entry per node when the
  /// component is small enough for the plan to copy it (``FixPlan/greedyLimit`` members at most).
  private func describe(
    _ members: [Int32], index: Int32, componentOf: ComponentMap,
    strong: StrongRows, search: RootDistances, reachedBy: inout [Int32],
    planner: FixPlan, localIndex: inout [Int32]
  ) -> FoundCycle {
    let edges = storage.edges
    let entry = Int(search.nearest(of: members))

    // Breadth-first search inside the component from the entry, until an edge closes the loop.
    var queue: [Int32] = [Int32(entry)]
    var head = 0
    var closing: Int32 = -1
    search: while head < queue.count {
      let node = Int(queue[head])
      head += 1
      for position in Int(strong.offsets[node])..<Int(strong.offsets[node + 1]) {
        let edgeIndex = strong.edgeIndex(at: position)
        let edge = edges[Int(edgeIndex)]
        let target = Int(edge.to)
        guard edge.isStrong, componentOf[target] == index else { continue }
        if target == entry {
          closing = edgeIndex
          break search
        }
        if reachedBy[target] < 0 {
          reachedBy[target] = edgeIndex
          queue.append(Int32(target))
        }
      }
    }
    var loop: [Int32] = []
    if closing >= 0 {
      loop.append(closing)
      var node = Int(edges[Int(closing)].from)
      while node != entry, reachedBy[node] >= 0 {
        loop.append(reachedBy[node])
        node = Int(edges[Int(reachedBy[node])].from)
      }
      loop.reverse()
    }
    for node in queue { reachedBy[Int(node)] = -1 }
    queue = []

    if members.count <= FixPlan.greedyLimit {
      for (position, member) in members.enumerated() { localIndex[Int(member)] = Int32(position) }
    }
    let plan = planner.plan(
      members: members, component: index, componentOf: componentOf, localIndex: localIndex, strong: strong,
      reachedBy: &reachedBy)
    return FoundCycle(
      members: members, loop: loop, entry: Int32(entry), rootParentEdges: search.parentEdge,
      breaks: plan.breaks,
      referencesToWeaken: plan.total, libraryLoopMembers: plan.libraryLoopMembers)
  }
}

/// Each node's cyclic component (-1 outside every one): an index per node, or, when there is one
/// component (a list, a random graph: one giant component), a bit per node.
struct ComponentMap {
  private var indices: [Int32] = []
  private var bits: [UInt64] = []

  init(_ components: [[Int32]], nodeCount: Int) {
    if components.count == 1 {
      bits = [UInt64](repeating: 0, count: (nodeCount + 63) / 64)
      for member in components[0] { bits[Int(member) >> 6] |= 1 << UInt64(member & 63) }
    } else {
      indices = [Int32](repeating: -1, count: nodeCount)
      for (index, component) in components.enumerated() {
        for member in component { indices[Int(member)] = Int32(index) }
      }
    }
  }

  /// The component of `node`, or -1.
  subscript(node: Int) -> Int32 {
    if indices.isEmpty { return bits[node >> 6] & (1 << UInt64(node & 63)) != 0 ? 0 : -1 }
    return indices[node]
  }
}
