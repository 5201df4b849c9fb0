internal import RetainGraphStorage
internal import RetainGraphSupport

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
  /// reference's target and ending with the reference), and the idiom rule it matched.
  struct Planned {
    var edge: Int32
    var loop: [Int32]
    var rule: IdiomRule
    /// The other references weakened by the same edit (the same declaration), in edge order.
    var sameEdit: [Int32] = []
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
  /// The library modules the plans use.
  let libraries: Libraries

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
    members: [Int32], component: Int32, componentOf: ComponentMap, localIndex: [Int32],
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
        let edgeIndex = strong.edgeIndex(at: slot)
        let edge = edges[Int(edgeIndex)]
        let target = Int(edge.to)
        guard edge.isStrong, componentOf[target] == component else { continue }
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

    // Match every reference with its idiom rule, and order them by rank, then names.
    var rules: [IdiomRule] = []
    rules.reserveCapacity(local.count)
    var order = Array(0..<local.count)
    var reverse: [Int64: Int] = [:]
    for edge in 0..<local.count { reverse[local.pairKey(edge)] = edge }
    var keys = [String](repeating: "", count: local.count)
    for edge in 0..<local.count {
      let reverseEdge = reverse[local.reversePairKey(edge)].map { edges[Int(local.global[$0])] }
      rules.append(rule(local.global[edge], reverse: reverseEdge, appAware: appAware))
      keys[edge] = sortKey(local.global[edge])
    }
    let rank = rules.map(\.rank)
    order.sort { (rank[$0], keys[$0], local.global[$0]) < (rank[$1], keys[$1], local.global[$1]) }
    var position = [Int](repeating: 0, count: local.count)
    for (index, edge) in order.enumerated() { position[edge] = index }
    local.sortOutgoing(by: position)

    // One edit weakens every reference made through the same declaration: the plan counts edits.
    // An actor-isolated closure holds its actor twice, as `self` and as the isolation it runs on;
    // `[weak self]` weakens both, so the isolation capture is the same edit as its sibling's.
    let editKey = { (edge: Int) -> String in
      let global = local.global[edge]
      guard storage.reference(edges[Int(global)]).isActorIsolation,
        let sibling = local.outgoing[Int(local.from[edge])].first(where: { other in
          guard other != edge, local.to[other] == local.to[edge] else { return false }
          guard case .capture = storage.reference(edges[Int(local.global[other])]).kind else { return false }
          return true
        })
      else { return declarationKey(global) }
      return declarationKey(local.global[sibling])
    }
    let allCandidates = candidates ?? Array(0..<local.count)
    let edits = Self.edits(of: allCandidates, key: editKey)
    // Never weaken what would free an object the cycle keeps on purpose: a structural reference
    // (not a capture, method reference or back reference) that is its target's only strong holder
    // on the cycle (a repository's cache, a cache's entries, a host's server, your router of a
    // library whose six route handlers capture you). Plans without such references are made while
    // one exists; otherwise the best of all.
    var holdersOnCycle = [Int32](repeating: 0, count: members.count)
    for edge in 0..<local.count { holdersOnCycle[Int(local.to[edge])] += 1 }
    let isOnlyHolder = { (edge: Int) in
      holdersOnCycle[Int(local.to[edge])] == 1 && rules[edge].idiom == .structure
    }
    let safeEdits = edits.filter { !$0.contains(where: isOnlyHolder) }
    let chosen: [Int]
    if local.count <= Self.exactLimit {
      let rankOf = { (edit: [Int]) in edit.map { rank[$0] }.min() ?? 0 }
      let positionOf = { (edit: [Int]) in edit.map { position[$0] }.min() ?? 0 }
      chosen =
        local.minimumEditSet(
          safeEdits, rank: safeEdits.map(rankOf), position: safeEdits.map(positionOf), appNodes: appNodes)
        ?? local.minimumEditSet(
          edits, rank: edits.map(rankOf), position: edits.map(positionOf), appNodes: appNodes)
        ?? allCandidates
    } else {
      // Greedy: the only holders are tried last.
      let allowed = Set(allCandidates)
      chosen = local.greedyFeedbackSet(
        order: order.filter { allowed.contains($0) && !isOnlyHolder($0) }
          + order.filter { allowed.contains($0) && isOnlyHolder($0) })
    }

    var removed = [Bool](repeating: false, count: local.count)
    for edge in chosen { removed[edge] = true }
    var result: [Entry] = []
    // One entry per edit: its most idiomatic reference, with the loop that reference alone closes.
    for edit in Self.edits(of: chosen, key: editKey) {
      // An actor isolation capture is shown after the `self` capture the same edit weakens.
      let isolationLast = { (edge: Int) in
        (storage.reference(edges[Int(local.global[edge])]).isActorIsolation ? 1 : 0, position[edge])
      }
      var sorted = edit.sorted { isolationLast($0) < isolationLast($1) }
      for member in edit { removed[member] = false }
      // The first reference of the edit that closes a loop once the edit is undone (one does: the
      // plan needs every edit). The caller's scratch has an entry for every member's local index too.
      var path: [Int] = []
      for (index, candidate) in sorted.enumerated() {
        if let found = local.shortestPath(
          from: local.to[candidate], to: local.from[candidate], avoiding: removed, reachedBy: &reachedBy)
        {
          path = found
          sorted.swapAt(0, index)
          break
        }
      }
      let edge = sorted[0]
      for member in edit { removed[member] = true }
      var planned = entry(local.global[edge], loop: path.map { local.global[$0] }, rule: rules[edge])
      planned.planned.sameEdit = sorted.dropFirst().map { local.global[$0] }.sorted()
      result.append(planned)
    }
    result += selfLoops.map { entry($0, loop: [], rule: ruleAlone($0)) }
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

  /// The candidates grouped by what a developer edits to weaken them (`key`), in order of first
  /// appearance; each group's members in candidate order.
  static func edits(of candidates: [Int], key: (Int) -> String) -> [[Int]] {
    var index: [String: Int] = [:]
    var groups: [[Int]] = []
    for candidate in candidates {
      let name = key(candidate)
      if let known = index[name] {
        groups[known].append(candidate)
      } else {
        index[name] = groups.count
        groups.append([candidate])
      }
    }
    return groups
  }

  /// The entry for weakening `edge`, which closes `loop` (the path back from its target).
  private func entry(_ edge: Int32, loop: [Int32], rule: IdiomRule) -> Entry {
    (rule.rank, sortKey(edge), Planned(edge: edge, loop: loop + [edge], rule: rule))
  }

  /// The breaks, the most idiomatic first.
  private static func ordered(_ entries: [Entry]) -> [Planned] {
    entries.sorted { ($0.rank, $0.key, $0.planned.edge) < ($1.rank, $1.key, $1.planned.edge) }.map(\.planned)
  }

  /// How many strong references join two different members of the component.
  private func internalReferenceCount(
    members: [Int32], component: Int32, componentOf: ComponentMap, strong: StrongRows
  ) -> Int {
    var count = 0
    for member in members {
      for slot in Int(strong.offsets[Int(member)])..<Int(strong.offsets[Int(member) + 1]) {
        let edge = storage.edges[Int(strong.edgeIndex(at: slot))]
        if edge.isStrong, edge.to != member, componentOf[Int(edge.to)] == component { count += 1 }
      }
    }
    return count
  }

  /// The plan of a component above ``greedyLimit``: Tarjan's back edges among its members and its
  /// self-references, all weakened; the first ``describedLimit`` described, self-references first,
  /// then the back edges of the smallest spans (short loops over the search tree), each loop found by a
  /// breadth-first search over the component's other references. No local copy of the component
  /// is made, nor a list of its back edges: they are counted, and the smallest kept as they are met.
  private func backEdgePlan(
    members: [Int32], component: Int32, componentOf: ComponentMap, strong: StrongRows,
    reachedBy: inout [Int32]
  ) -> (breaks: [Planned], total: Int) {
    var selfLoops: [Int32] = []
    var selfLoopCount = 0
    var backEdgeCount = 0
    // The back edges of the smallest spans met so far (a span ties go to the one met first), at
    // most `describedLimit`: those not described are only counted.
    var smallest: [(span: UInt8, slot: Int)] = []
    let edges = storage.edges
    // Through the rows' buffers (every member's row is in range): no bounds check per reference.
    strong.offsets.withUnsafeBufferPointer { offsets in
      strong.backEdgeSpan.withUnsafeBufferPointer { spans in
        for member in members {
          let node = Int(member)
          for slot in Int(offsets[node])..<Int(offsets[node + 1]) {
            let edge = edges[Int(strong.edgeIndex(at: slot))]
            guard edge.isStrong else { continue }
            if edge.to == member {
              selfLoopCount += 1
              if selfLoops.count < Self.describedLimit { selfLoops.append(strong.edgeIndex(at: slot)) }
            } else if spans[slot] > 0, componentOf[Int(edge.to)] == component {
              backEdgeCount += 1
              Self.keepSmallest((spans[slot], slot), in: &smallest, limit: Self.describedLimit)
            }
          }
        }
      }
    }
    // Self-references are described first; the back edges fill the rest.
    let described = smallest.prefix(Self.describedLimit - selfLoops.count)
    var result = selfLoops.map { entry($0, loop: [], rule: ruleAlone($0)) }
    for (_, slot) in described {
      let global = strong.edgeIndex(at: slot)
      let edge = storage.edges[Int(global)]
      let path =
        shortestPath(
          from: edge.to, to: edge.from, component: component, componentOf: componentOf, strong: strong,
          reachedBy: &reachedBy) ?? []
      result.append(entry(global, loop: path, rule: ruleAlone(global)))
    }
    return (Self.ordered(result), backEdgeCount + selfLoopCount)
  }

  /// Inserts `candidate` among `best` (ascending by span, earlier first among equals) when it is
  /// among the `limit` smallest met so far.
  private static func keepSmallest(
    _ candidate: (span: UInt8, slot: Int), in best: inout [(span: UInt8, slot: Int)], limit: Int
  ) {
    guard best.count < limit || candidate.span < best[best.count - 1].span else { return }
    let position = best.firstIndex { candidate.span < $0.span } ?? best.count
    best.insert(candidate, at: position)
    if best.count > limit { best.removeLast() }
  }

  /// The shortest path of strong references inside a component that are not back edges, from one
  /// member to another, as edge indices; nil when there is none.
  private func shortestPath(
    from start: Int32, to goal: Int32, component: Int32, componentOf: ComponentMap, strong: StrongRows,
    reachedBy: inout [Int32]
  ) -> [Int32]? {
    let slots = ShortestPath.search(from: start, to: goal, reachedBy: &reachedBy) { node, visit in
      for slot in Int(strong.offsets[node])..<Int(strong.offsets[node + 1])
      where strong.backEdgeSpan[slot] == 0 {
        let edge = storage.edges[Int(strong.edgeIndex(at: slot))]
        if edge.isStrong, componentOf[Int(edge.to)] == component, visit(Int32(slot), edge.to) { return }
      }
    } holder: { slot in
      storage.edges[Int(strong.edgeIndex(at: Int(slot)))].from
    }
    return slots?.map { strong.edgeIndex(at: Int($0)) }
  }
}
