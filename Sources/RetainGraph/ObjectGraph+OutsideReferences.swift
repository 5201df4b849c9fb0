internal import RetainGraphProcess
package import RetainGraphRuntime

// Whether anything outside a graph refers to its objects: the test for a leak nothing can end.

/// The result of ``ObjectGraph/auditOutsideReferences(of:callerReferences:options:knownWeakReferences:)``.
package struct OutsideReferenceAudit {
  /// The graph walked from the audited object.
  package let graph: ObjectGraph
  /// The objects (by node id) that something outside the graph refers to, with how many references
  /// of each ownership the graph does not explain; a count below zero means the walk found a
  /// reference the runtime does not count. Empty when nothing outside refers to any of its objects.
  package let outsideReferences: [(node: Node.ID, counts: ReferenceCounts)]
  /// Why the audit could not be made (a truncated walk, an object it could not keep); nil when made.
  package let incomplete: String?

  /// Whether no reference from outside the graph reaches any of its objects: no code can reach them
  /// (other than through `unowned(unsafe)` references or raw pointers, which the runtime does not count),
  /// so nothing can break a retain cycle among them.
  package var isClosed: Bool { incomplete == nil && outsideReferences.isEmpty }

  /// `1 strong, 1 weak`: what the graph does not explain at `node`; nil when it explains all.
  package func description(of node: Node.ID) -> String? {
    guard let counts = outsideReferences.first(where: { $0.node == node })?.counts else { return nil }
    return [(counts.strong, "strong"), (counts.weak, "weak"), (counts.unowned, "unowned")]
      .filter { $0.0 != 0 }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
  }
}

extension ObjectGraph {
  /// Walks the graph from `root` and compares each object's reference counts, as the runtime keeps
  /// them, with the references the walk found inside the graph.
  ///
  /// When every count is explained by the graph's own references (and the caller's), nothing outside
  /// the graph refers to any of its objects: no queued block, task, timer, global or other thread can
  /// reach them, so a retain cycle among them can never be broken. Any count the graph does not
  /// explain (a truncated walk, an object the walk could not keep) makes the graph not closed: the
  /// answer errs towards "something may still release it".
  ///
  /// Not seen: a collection buffer, box or existential box shared with a holder outside the graph
  /// (the walk follows through them without making them nodes), and `unowned(unsafe)` references.
  /// Once the heap census was started, one `unowned` reference from outside is taken for the
  /// census's own hold on the objects it records.
  /// - Parameters:
  ///   - root: the object to walk from.
  ///   - callerReferences: how many strong references the caller holds to `root` while this runs.
  ///   - options: limits and filters for the walk.
  ///   - knownWeakReferences: how many weak references the caller holds to the object at an address
  ///     (its probes).
  ///   - deadline: until when to wait for a running census search to end (none starts while the
  ///     audit waits or counts); nil to give up at once when one runs.
  /// - Returns: the graph, and the first object something outside refers to.
  @inline(never)
  package static func auditOutsideReferences(
    of root: AnyObject, callerReferences: Int, options: GraphOptions,
    knownWeakReferences: (UInt) -> Int, waitingForSearchesUntil deadline: ContinuousClock.Instant? = nil
  ) -> OutsideReferenceAudit {
    // A heap-wide operation (a census search) retains every object while it runs.
    HeapWideRetains.excluded(waitingUntil: deadline) { quiet in
      guard quiet else {
        return OutsideReferenceAudit(
          graph: ObjectGraph(reflecting: root, options: options), outsideReferences: [],
          incomplete: "a census search holds every object while it runs")
      }
      return unguardedAudit(
        of: root, callerReferences: callerReferences, options: options,
        knownWeakReferences: knownWeakReferences)
    }
  }

  /// ``auditOutsideReferences(of:callerReferences:options:knownWeakReferences:waitingForSearchesUntil:)``
  /// once no census search runs.
  @inline(never)
  private static func unguardedAudit(
    of root: AnyObject, callerReferences: Int, options: GraphOptions,
    knownWeakReferences: (UInt) -> Int
  ) -> OutsideReferenceAudit {
    // The root's counts before the walk: its temporaries come and go with the walk.
    let rootCounts = ReferenceCounts(of: root)
    var walker = Walker(options: options)
    let result = walker.walk(root, keepingObjects: true, keepingContexts: true)
    let graph = ObjectGraph(walk: result, options: options)
    let objects = result.objects
    let addresses = objects.map { object in
      object.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) }
    }
    let none = ReferenceCounts(strong: 0, weak: 0, unowned: 0)
    if graph.isTruncated || addresses.first == nil {
      return OutsideReferenceAudit(graph: graph, outsideReferences: [], incomplete: "the walk was cut short")
    }
    var inside = [ReferenceCounts](repeating: none, count: addresses.count)
    for edge in graph.edges {
      switch edge.ownership {
      case .strong: inside[edge.to].strong += 1
      case .weak: inside[edge.to].weak += 1
      case .unowned: inside[edge.to].unowned += 1
      case .unownedUnsafe: break
      }
    }
    let censusMayHold = CensusRegistration.mayHoldUnownedCounts
    var outside: [(node: Node.ID, counts: ReferenceCounts)] = []
    var incomplete: String?
    withExtendedLifetime(objects) {
      for (id, address) in addresses.enumerated() {
        guard let address, let pointer = UnsafeRawPointer(bitPattern: address) else {
          incomplete = "node \(id) is not an object the walk could keep"
          return
        }
        // `objects` holds one strong reference to each; the caller holds the root.
        var counts = id == 0 ? rootCounts : ReferenceCounts(ofObjectAt: pointer)
        counts.strong -= (id == 0 ? callerReferences : 1) + inside[id].strong
        counts.weak -= knownWeakReferences(address) + inside[id].weak
        counts.unowned -= inside[id].unowned
        // The census's own hold on a recorded object (whether this one was recorded is not asked:
        // one unowned reference from outside is then taken for the census's).
        if censusMayHold, counts.unowned == 1 { counts.unowned = 0 }
        if counts != none { outside.append((id, counts)) }
      }
    }
    return OutsideReferenceAudit(graph: graph, outsideReferences: outside, incomplete: incomplete)
  }
}
