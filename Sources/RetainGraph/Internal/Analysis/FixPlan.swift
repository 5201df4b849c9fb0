/// Which references of one strongly connected component to weaken: the fewest whose weakening
/// leaves no strong cycle (a minimum feedback arc set), chosen among equals by ownership idiom, and
/// for each the loop it breaks.
///
/// Nothing here depends on the root or on node ids: candidates are ordered by idiom rank, then by
/// the holder's type name, the label and the target's type name, so the same objects get the same
/// plan whichever of them a graph was walked from.
///
/// When a graph has objects of library modules and of others (yours), a component's plan frees
/// your objects only: the fewest references, each touching one of your objects, whose weakening
/// leaves none of yours on a strong loop; a library object's reference to yours ranks before your
/// object's structural reference to a library's (you hold your subscriptions; the library should
/// not hold you). Loops among library objects alone are left to the library.
struct FixPlan {
  /// A chosen reference: its edge index, the loop it breaks (edge indices, starting at the
  /// reference's target and ending with the reference), and its idiom.
  struct Planned {
    var edge: Int32
    var loop: [Int32]
    var idiom: Cycle.Break.Idiom
  }

  /// Components with at most this many strong references between different members are solved
  /// exactly, by trying every subset of references in increasing size.
  static let exactLimit = 16
  /// Components with at most this many references get the greedy plan with pruning (quadratic);
  /// larger ones the back edges of Tarjan's depth-first search, which found the component (linear).
  static let greedyLimit = 2048
  /// Above ``greedyLimit``, how many of the plan's breaks are described (each needs a search for its
  /// loop): a plan of thousands of references is for a program, not a person.
  static let describedLimit = 8

  let storage: GraphStorage
  /// Whether each node of the graph is a library module's; nil when the plans treat every node
  /// alike.
  let isLibrary: [Bool]?

  /// The plan for one strongly connected component.
  /// - Parameters:
  ///   - members: the component's node ids, sorted.
  ///   - component: the component's index in `componentOf`.
  ///   - componentOf: each node's component index (-1 outside every cyclic component).
  ///   - localIndex: each member's position in `members` (other entries are not read).
  ///   - strong: the strong adjacency of the whole graph.
  ///   - reachedBy: scratch space, one entry per node of the graph, all -1, and left so.
  /// - Returns: the breaks, the most idiomatic first (above ``greedyLimit``, the first
  ///   ``describedLimit`` only), how many references the whole plan weakens, and the members left
  ///   on loops of library objects alone.
  /// - Complexity: O(2^*e* · (*n* + *e*)) for *e* ≤ ``exactLimit``; O(*e* · (*n* + *e*)) up to
  ///   ``greedyLimit``; O(*n* + *e*) above, plus one breadth-first search per described break for its
  ///   loop.
  func plan(
    members: [Int32], component: Int32, componentOf: [Int32], localIndex: [Int32],
    strong: StrongRows, reachedBy: inout [Int32]
  ) -> (breaks: [Planned], total: Int, libraryLoopMembers: [Int32]) {
    let edges = storage.edges
    // Which members are a library's, when the component has some of each kind.
    let library = isLibrary.map { flags in members.map { flags[Int($0)] } }
    if let library, !library.contains(false) { return ([], 0, members) }
    // Above the greedy limit the plan is the back edges, read straight from the graph's rows. A
    // component of more members than the limit has more references too, without counting them.
    if members.count > Self.greedyLimit
      || Self.greedyLimit
        < internalReferenceCount(
          members: members, component: component, componentOf: componentOf, strong: strong)
    {
      let (breaks, total) = backEdgePlan(
        members: members, component: component, componentOf: componentOf, strong: strong,
        reachedBy: &reachedBy)
      return (breaks, total, [])
    }
    let appAware = library?.contains(true) == true
    var local = LocalGraph(nodeCount: members.count)
    var selfLoops: [Int32] = []
    for (position, member) in members.enumerated() {
      let node = Int(member)
      for slot in Int(strong.offsets[node])..<Int(strong.offsets[node + 1]) {
        let edgeIndex = strong.edgeIndices[slot]
        let target = Int(edges[Int(edgeIndex)].to)
        guard componentOf[target] == component else { continue }
        if target == node {
          selfLoops.append(edgeIndex)
        } else {
          local.add(from: Int32(position), to: localIndex[target], global: edgeIndex)
        }
      }
    }

    local.seal()
    // With libraries, only references that touch one of your objects are weakened, and only
    // self-references of yours; an app node is one that is not a library's.
    let appNodes = appAware ? library.map { $0.map { !$0 } } : nil
    var librarySelfLoops: [Int32] = []
    if let library, appAware {
      let isLibraryLoop = { (edge: Int32) in library[Int(localIndex[Int(edges[Int(edge)].from)])] }
      librarySelfLoops = selfLoops.filter(isLibraryLoop)
      selfLoops.removeAll(where: isLibraryLoop)
    }
    let candidates = appNodes.map { app in
      (0..<local.count).filter { app[Int(local.from[$0])] || app[Int(local.to[$0])] }
    }

    // Rank every reference, and order them by rank, then names.
    var rank = [Int](repeating: 0, count: local.count)
    var order = Array(0..<local.count)
    var reverse: [Int64: Int] = [:]
    for edge in 0..<local.count { reverse[local.pairKey(edge)] = edge }
    var keys = [String](repeating: "", count: local.count)
    for edge in 0..<local.count {
      let reverseLabel = reverse[local.reversePairKey(edge)].map {
        storage.label(edges[Int(local.global[$0])])
      }
      rank[edge] = rankAmongLibraries(
        local.global[edge],
        base: Self.rank(local.global[edge], reverseLabel: reverseLabel, storage: storage),
        appAware: appAware)
      keys[edge] = sortKey(local.global[edge])
    }
    order.sort { (rank[$0], keys[$0], local.global[$0]) < (rank[$1], keys[$1], local.global[$1]) }
    var position = [Int](repeating: 0, count: local.count)
    for (index, edge) in order.enumerated() { position[edge] = index }
    local.sortOutgoing(by: position)

    let chosen: [Int]
    if local.count <= Self.exactLimit {
      chosen = local.minimumFeedbackSet(
        rank: rank, position: position, candidates: candidates ?? Array(0..<local.count), appNodes: appNodes)
    } else {
      let allowed = candidates.map { Set($0) }
      chosen = local.greedyFeedbackSet(order: allowed.map { set in order.filter(set.contains) } ?? order)
    }

    var removed = [Bool](repeating: false, count: local.count)
    for edge in chosen { removed[edge] = true }
    var result: [Entry] = []
    for edge in chosen {
      removed[edge] = false
      // The caller's scratch has an entry for every member's local index too.
      let path =
        local.shortestPath(
          from: local.to[edge], to: local.from[edge], avoiding: removed, reachedBy: &reachedBy)
        ?? []
      removed[edge] = true
      result.append(entry(local.global[edge], loop: path.map { local.global[$0] }, rank: rank[edge]))
    }
    result += selfLoops.map { entry($0, loop: [], rank: base($0)) }
    var libraryLoopMembers: [Int32] = []
    if let library, appAware {
      // What the plan leaves strong: loops among library objects alone.
      var search = LocalGraph.Search(nodeCount: local.nodeCount)
      let onSelfLoop = Set(librarySelfLoops.map { localIndex[Int(edges[Int($0)].from)] })
      for node in 0..<local.nodeCount where library[node] {
        let onLoop =
          onSelfLoop.contains(Int32(node))
          || local.outgoing[node].contains {
            !removed[$0] && search.reaches(local, from: local.to[$0], to: Int32(node), avoiding: removed)
          }
        if onLoop { libraryLoopMembers.append(members[node]) }
      }
    }
    return (Self.ordered(result), chosen.count + selfLoops.count, libraryLoopMembers)
  }

  /// A planned break with what it is sorted by: its rank, then the names of its holder, label and
  /// target.
  private typealias Entry = (rank: Int, key: String, planned: Planned)

  /// The entry for weakening `edge`, which closes `loop` (the path back from its target).
  private func entry(_ edge: Int32, loop: [Int32], rank: Int) -> Entry {
    (rank, sortKey(edge), Planned(edge: edge, loop: loop + [edge], idiom: idiom(edge, rank: rank)))
  }

  /// The breaks, the most idiomatic first.
  private static func ordered(_ entries: [Entry]) -> [Planned] {
    entries.sorted { ($0.rank, $0.key, $0.planned.edge) < ($1.rank, $1.key, $1.planned.edge) }.map(\.planned)
  }

  /// How many strong references join two different members of the component.
  private func internalReferenceCount(
    members: [Int32], component: Int32, componentOf: [Int32], strong: StrongRows
  ) -> Int {
    var count = 0
    for member in members {
      for slot in Int(strong.offsets[Int(member)])..<Int(strong.offsets[Int(member) + 1]) {
        let target = storage.edges[Int(strong.edgeIndices[slot])].to
        if target != member, componentOf[Int(target)] == component { count += 1 }
      }
    }
    return count
  }

  /// The plan of a component above ``greedyLimit``: Tarjan's back edges among its members and its
  /// self-references, all weakened; the first ``describedLimit`` described, self-references first,
  /// then the back edges of the smallest spans (short loops over the search tree), each loop found by a
  /// breadth-first search over the component's other references. No local copy of the component
  /// is made.
  private func backEdgePlan(
    members: [Int32], component: Int32, componentOf: [Int32], strong: StrongRows, reachedBy: inout [Int32]
  ) -> (breaks: [Planned], total: Int) {
    var selfLoops: [Int32] = []
    var backSlots: [Int32] = []
    for member in members {
      let node = Int(member)
      for slot in Int(strong.offsets[node])..<Int(strong.offsets[node + 1]) {
        let target = storage.edges[Int(strong.edgeIndices[slot])].to
        if target == member {
          selfLoops.append(strong.edgeIndices[slot])
        } else if strong.backEdgeSpan[slot] > 0, componentOf[Int(target)] == component {
          backSlots.append(Int32(slot))
        }
      }
    }
    let describedSelfLoops = selfLoops.prefix(Self.describedLimit)
    let described = Self.smallest(
      Self.describedLimit - describedSelfLoops.count, of: backSlots.count
    ) { strong.backEdgeSpan[Int(backSlots[$0])] }
    var result = describedSelfLoops.map { entry($0, loop: [], rank: base($0)) }
    for index in described {
      let slot = Int(backSlots[index])
      let global = strong.edgeIndices[slot]
      let edge = storage.edges[Int(global)]
      let path =
        shortestPath(
          from: edge.to, to: edge.from, component: component, componentOf: componentOf, strong: strong,
          reachedBy: &reachedBy) ?? []
      result.append(entry(global, loop: path, rank: base(global)))
    }
    return (Self.ordered(result), backSlots.count + selfLoops.count)
  }

  /// The indices of the `limit` smallest keys among `0..<count`, smaller index first among equals,
  /// in that order; one pass, without sorting them all.
  static func smallest(_ limit: Int, of count: Int, key: (Int) -> UInt8) -> [Int] {
    var best: [(key: UInt8, index: Int)] = []
    guard limit > 0 else { return [] }
    for index in 0..<count {
      let candidate = (key: key(index), index: index)
      guard best.count < limit || candidate.key < best[best.count - 1].key else { continue }
      let position = best.firstIndex { candidate.key < $0.key } ?? best.count
      best.insert(candidate, at: position)
      if best.count > limit { best.removeLast() }
    }
    return best.map(\.index)
  }

  /// The shortest path of strong references inside a component that are not back edges, from one
  /// member to another, as edge indices; nil when there is none.
  private func shortestPath(
    from start: Int32, to goal: Int32, component: Int32, componentOf: [Int32], strong: StrongRows,
    reachedBy: inout [Int32]
  ) -> [Int32]? {
    let slots = ShortestPath.search(from: start, to: goal, reachedBy: &reachedBy) { node, visit in
      for slot in Int(strong.offsets[node])..<Int(strong.offsets[node + 1])
      where strong.backEdgeSpan[slot] == 0 {
        let target = storage.edges[Int(strong.edgeIndices[slot])].to
        if componentOf[Int(target)] == component, visit(Int32(slot), target) { return }
      }
    } holder: { slot in
      storage.edges[Int(strong.edgeIndices[Int(slot)])].from
    }
    return slots?.map { strong.edgeIndices[Int($0)] }
  }

  /// An edge's rank without the reverse reference (for self-references and large components).
  private func base(_ edgeIndex: Int32) -> Int {
    rankAmongLibraries(
      edgeIndex, base: Self.rank(edgeIndex, reverseLabel: nil, storage: storage), appAware: isLibrary != nil)
  }

  /// Rank 7 + `base` for your object's structural reference (rank 3 or more) to a library's
  /// object, which you hold on purpose (a subscription, a subject); 4 for a library object's
  /// reference to yours that is not a closure you gave it (``Cycle/Break/Idiom/libraryReference``);
  /// otherwise `base`.
  private func rankAmongLibraries(_ edgeIndex: Int32, base: Int, appAware: Bool) -> Int {
    guard appAware, let isLibrary else { return base }
    let edge = storage.edges[Int(edgeIndex)]
    switch (isLibrary[Int(edge.from)], isLibrary[Int(edge.to)]) {
    case (false, true): return base >= 3 ? 7 + base : base
    case (true, false): return isLibraryReference(edge) ? 4 : base
    default: return base
    }
  }

  /// Whether a library object's (or a library closure's) reference to your object is the
  /// library's own: not a closure of yours stored in it.
  private func isLibraryReference(_ edge: CompactEdge) -> Bool {
    guard let isLibrary, isLibrary[Int(edge.from)], !isLibrary[Int(edge.to)] else { return false }
    if storage.nodeKinds[Int(edge.from)] == .closure { return true }
    let label = storage.label(edge)
    return !EdgeLabel.isSingleCapture(label) && !EdgeLabel.isMethodReference(label)
  }

  private func sortKey(_ edgeIndex: Int32) -> String {
    let edge = storage.edges[Int(edgeIndex)]
    return "\(storage.typeName(Int(edge.from)))\t\(storage.label(edge))\t\(storage.typeName(Int(edge.to)))"
  }

  private func idiom(_ edgeIndex: Int32, rank: Int) -> Cycle.Break.Idiom {
    if isLibraryReference(storage.edges[Int(edgeIndex)]) { return .libraryReference }
    return switch rank {
    case 0:
      EdgeLabel.isMethodReference(storage.label(storage.edges[Int(edgeIndex)]))
        ? .methodReference : .closureCapture
    case 1, 2: .backReference
    default: .structure
    }
  }

  /// Property names that are back references by convention (matched case-insensitively anywhere in
  /// the property name: `parentCoordinator`, `weakDelegate`).
  static let backReferenceNames = [
    "delegate", "datasource", "parent", "owner", "output", "observer", "listener",
  ]

  /// How much a reference is the one to weaken, lower first:
  /// 0 a closure's capture or a stored method reference; 1 a back reference by name; 2 a reference
  /// to the object that holds this one as an element or a child; 3 one of two objects holding each
  /// other; 4 any other property; 5 a collection element; 6 the storage of a closure (weaken its
  /// capture instead).
  /// - Parameters:
  ///   - edgeIndex: the reference.
  ///   - reverseLabel: the label of a strong reference back from the target to the holder, if
  ///     there is one.
  ///   - storage: the graph.
  /// - Returns: the rank, 0 to 6.
  static func rank(_ edgeIndex: Int32, reverseLabel: String?, storage: GraphStorage) -> Int {
    let edge = storage.edges[Int(edgeIndex)]
    let label = storage.label(edge)
    let targetIsClosure = storage.nodeKinds[Int(edge.to)] == .closure
    if storage.nodeKinds[Int(edge.from)] == .closure { return targetIsClosure ? 6 : 0 }
    if EdgeLabel.isMethodReference(label) || EdgeLabel.isSingleCapture(label) { return 0 }
    if targetIsClosure || EdgeLabel.isClosureStorage(label) { return 6 }
    let property = (EdgeLabel.property(of: label) ?? label).lowercased()
    if backReferenceNames.contains(where: { property.contains($0) }) { return 1 }
    if let reverseLabel {
      let reverseProperty = (EdgeLabel.property(of: reverseLabel) ?? reverseLabel).lowercased()
      if reverseLabel.contains("[") || reverseProperty.contains("child") { return 2 }
      return 3
    }
    return label.contains("[") ? 5 : 4
  }
}

/// A component's strong references between different members, numbered 0..<count, with the
/// members numbered 0..<nodeCount.
struct LocalGraph {
  let nodeCount: Int
  private(set) var from: [Int32] = []
  private(set) var to: [Int32] = []
  private(set) var global: [Int32] = []
  /// Outgoing references of each node (made by ``seal()``): one array in compressed rows, not an
  /// array per node, which would cost an allocation per member of a million-object component.
  private(set) var outgoing = Adjacency()

  /// References by holder, in compressed rows: `outgoing[node]` are the references of `node`.
  struct Adjacency {
    var offsets: [Int32] = [0]
    var edges: [Int] = []

    subscript(node: Int) -> ArraySlice<Int> { edges[Int(offsets[node])..<Int(offsets[node + 1])] }

    /// The `position`th reference of `node`.
    func edge(_ node: Int, _ position: Int) -> Int { edges[Int(offsets[node]) + position] }
  }

  init(nodeCount: Int) {
    self.nodeCount = nodeCount
  }

  var count: Int { from.count }

  mutating func add(from: Int32, to: Int32, global: Int32) {
    self.from.append(from)
    self.to.append(to)
    self.global.append(global)
  }

  /// Groups the references by holder, once all are added.
  mutating func seal() {
    var offsets = [Int32](repeating: 0, count: nodeCount + 1)
    for holder in from { offsets[Int(holder) + 1] += 1 }
    for node in 0..<nodeCount { offsets[node + 1] += offsets[node] }
    var cursor = offsets
    var edges = [Int](repeating: 0, count: from.count)
    for (edge, holder) in from.enumerated() {
      edges[Int(cursor[Int(holder)])] = edge
      cursor[Int(holder)] += 1
    }
    outgoing = Adjacency(offsets: offsets, edges: edges)
  }

  func pairKey(_ edge: Int) -> Int64 { Int64(from[edge]) << 32 | Int64(to[edge]) }
  func reversePairKey(_ edge: Int) -> Int64 { Int64(to[edge]) << 32 | Int64(from[edge]) }

  mutating func sortOutgoing(by position: [Int]) {
    for node in 0..<nodeCount {
      outgoing.edges[Int(outgoing.offsets[node])..<Int(outgoing.offsets[node + 1])].sort {
        position[$0] < position[$1]
      }
    }
  }

  /// Whether the references not in `removed` form no cycle (Kahn's algorithm).
  func isAcyclic(removed: [Bool], indegree: inout [Int32], queue: inout [Int32]) -> Bool {
    for node in 0..<nodeCount { indegree[node] = 0 }
    for edge in 0..<count where !removed[edge] { indegree[Int(to[edge])] += 1 }
    queue.removeAll(keepingCapacity: true)
    for node in 0..<nodeCount where indegree[node] == 0 { queue.append(Int32(node)) }
    var head = 0
    while head < queue.count {
      let node = Int(queue[head])
      head += 1
      for edge in outgoing[node] where !removed[edge] {
        let target = Int(to[edge])
        indegree[target] -= 1
        if indegree[target] == 0 { queue.append(Int32(target)) }
      }
    }
    return queue.count == nodeCount
  }

  /// The minimum feedback arc set by exhaustive search over subsets of `candidates` in increasing
  /// size; among the smallest, the lowest total rank, then the one whose references come first in
  /// `position`. With `appNodes`, a set is enough when no app node is left on a loop.
  func minimumFeedbackSet(rank: [Int], position: [Int], candidates: [Int], appNodes: [Bool]?) -> [Int] {
    precondition(candidates.count <= 30)
    var removed = [Bool](repeating: false, count: count)
    var indegree = [Int32](repeating: 0, count: nodeCount)
    var queue: [Int32] = []
    queue.reserveCapacity(nodeCount)
    var search = Search(nodeCount: nodeCount)
    func isResolved() -> Bool {
      guard let appNodes else { return isAcyclic(removed: removed, indegree: &indegree, queue: &queue) }
      for node in 0..<nodeCount where appNodes[node] {
        for edge in outgoing[node] where !removed[edge] {
          if search.reaches(self, from: to[edge], to: Int32(node), avoiding: removed) { return false }
        }
      }
      return true
    }
    for size in 0...candidates.count {
      var best: (rankSum: Int, positions: [Int], set: [Int])?
      // Every `size`-subset of 0..<count as a bit mask, by Gosper's hack.
      var mask: UInt32 = size == 0 ? 0 : (UInt32(1) << size) - 1
      let limit: UInt32 = UInt32(1) << candidates.count
      while mask < limit {
        var set: [Int] = []
        for (bit, edge) in candidates.enumerated() {
          removed[edge] = mask & (1 << bit) != 0
          if removed[edge] { set.append(edge) }
        }
        if isResolved() {
          let rankSum = set.reduce(0) { $0 + rank[$1] }
          let positions = set.map { position[$0] }.sorted()
          let better =
            best.map {
              rankSum < $0.rankSum
                || (rankSum == $0.rankSum && positions.lexicographicallyPrecedes($0.positions))
            } ?? true
          if better { best = (rankSum, positions, set) }
        }
        if mask == 0 { break }
        let lowest = mask & (~mask &+ 1)
        let ripple = mask &+ lowest
        mask = (((ripple ^ mask) >> 2) / lowest) | ripple
      }
      if let best { return best.set }
    }
    return candidates
  }

  /// Greedy: weaken each reference in `order` that is on a loop of what is still strong, then keep
  /// strong again, least preferred first, every weakened reference that closes no loop. The result
  /// is inclusion-minimal, and at most `count` − `nodeCount` + 1 references (each weakened reference
  /// is on a cycle, so weakening it keeps the component connected).
  func greedyFeedbackSet(order: [Int]) -> [Int] {
    var removed = [Bool](repeating: false, count: count)
    var chosen: [Int] = []
    var search = Search(nodeCount: nodeCount)
    for edge in order where search.reaches(self, from: to[edge], to: from[edge], avoiding: removed) {
      removed[edge] = true
      chosen.append(edge)
    }
    for edge in chosen.reversed() {
      removed[edge] = false
      if search.reaches(self, from: to[edge], to: from[edge], avoiding: removed) { removed[edge] = true }
    }
    return chosen.filter { removed[$0] }
  }

  /// The shortest path of references not `avoiding` from one node to another, exploring each node's
  /// references in their sorted order; nil when there is none. `reachedBy` is scratch space of
  /// `nodeCount` entries, all -1, and is left so.
  func shortestPath(
    from start: Int32, to goal: Int32, avoiding removed: [Bool], reachedBy: inout [Int32]
  ) -> [Int]? {
    ShortestPath.search(from: start, to: goal, reachedBy: &reachedBy) { node, visit in
      for edge in outgoing[node] where !removed[edge] {
        if visit(Int32(edge), to[edge]) { return }
      }
    } holder: {
      from[Int($0)]
    }?.map { Int($0) }
  }

  /// Reachability with a reused visited stamp.
  struct Search {
    private var stamp: [Int32]
    private var current: Int32 = 0
    private var stack: [Int32] = []

    init(nodeCount: Int) { stamp = [Int32](repeating: 0, count: nodeCount) }

    mutating func reaches(_ graph: LocalGraph, from start: Int32, to goal: Int32, avoiding removed: [Bool])
      -> Bool
    {
      current += 1
      stack.removeAll(keepingCapacity: true)
      stack.append(start)
      stamp[Int(start)] = current
      while let node = stack.popLast() {
        if node == goal { return true }
        for edge in graph.outgoing[Int(node)] where !removed[edge] {
          let target = Int(graph.to[edge])
          if stamp[target] != current {
            stamp[target] = current
            stack.append(Int32(target))
          }
        }
      }
      return false
    }
  }
}

/// Breadth-first search for a shortest path, over any graph whose references have ids.
enum ShortestPath {
  /// A shortest path from one node to another.
  /// - Parameters:
  ///   - start: the node to start from.
  ///   - goal: the node to reach.
  ///   - reachedBy: scratch space, one entry per node, all -1; left so.
  ///   - references: calls `visit` with each reference of a node that may be used and its target,
  ///     in the order to explore them, until `visit` returns true (the goal is found).
  ///   - holder: the node a reference comes from.
  /// - Returns: the path's references, in order; nil when there is none.
  static func search(
    from start: Int32, to goal: Int32, reachedBy: inout [Int32],
    references: (Int, (Int32, Int32) -> Bool) -> Void, holder: (Int32) -> Int32
  ) -> [Int32]? {
    var queue: [Int32] = [start]
    // Every entry set is the goal's or a queued node's.
    defer {
      for node in queue { reachedBy[Int(node)] = -1 }
      reachedBy[Int(goal)] = -1
    }
    var head = 0
    var found = start == goal
    while head < queue.count, !found {
      let node = Int(queue[head])
      head += 1
      references(node) { reference, target in
        guard target != start, reachedBy[Int(target)] < 0 else { return false }
        reachedBy[Int(target)] = reference
        if target == goal {
          found = true
          return true
        }
        queue.append(target)
        return false
      }
    }
    guard found else { return nil }
    var path: [Int32] = []
    var node = goal
    while node != start {
      path.append(reachedBy[Int(node)])
      node = holder(reachedBy[Int(node)])
    }
    return path.reversed()
  }
}
