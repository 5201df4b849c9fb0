internal import RetainGraphRuntime
internal import RetainGraphStorage
internal import RetainGraphSupport

/// The public description of the found cycles: their plans' breaks with their advice, written after
/// the analysis from the idiom rule each break matched.
extension Advice {
  /// The ``Cycle`` of each of `found`, every break with its ``FixAdvice`` and, when one edit weakens
  /// several references, which (the break's ``Cycle/Break/fix`` says how many and which).
  static func cycles(
    _ found: [FoundCycle], isLibrary: [Bool]?, libraries: [LibraryRule] = [], in storage: GraphStorage
  ) -> [Cycle] {
    // The strong references into the holders of edits that weaken several references, found in one
    // pass over the edges: they say where each holder is (`entries[#0…#2]`).
    var holdersOf: [Int32: [Int32]] = [:]
    for cycle in found {
      for planned in cycle.breaks where !planned.sameEdit.isEmpty {
        for edge in [planned.edge] + planned.sameEdit { holdersOf[storage.edges[Int(edge)].from] = [] }
      }
    }
    if !holdersOf.isEmpty {
      for (index, edge) in storage.edges.enumerated() where edge.isStrong && holdersOf[edge.to] != nil {
        holdersOf[edge.to]?.append(Int32(index))
      }
    }
    return found.map {
      cycle(describing: $0, isLibrary: isLibrary, libraries: libraries, holdersOf: holdersOf, in: storage)
    }
  }

  private static func cycle(
    describing found: FoundCycle, isLibrary: [Bool]?, libraries: [LibraryRule], holdersOf: [Int32: [Int32]],
    in storage: GraphStorage
  ) -> Cycle {
    // Made only for an edit that weakens several references (a million-member cycle's set costs
    // about 9 bytes a member).
    var members: Set<Int32>?
    func memberSet() -> Set<Int32> {
      if let members { return members }
      let made = Set(found.members)
      members = made
      return made
    }
    // An alternative is said once per cycle: six route handlers stored in a router that the state
    // holds have one other edit, the state's `router`.
    var alternativeEdges: Set<Int32> = []
    let fixPlan = found.breaks.map { planned in
      let advice = fix(
        breaking: planned.edge, loop: planned.loop, form: planned.rule.advice, isLibrary: isLibrary,
        libraries: libraries, in: storage)
      let edges = [planned.edge] + planned.sameEdit
      var other = alternative(to: planned, advice: advice, isLibrary: isLibrary, in: storage)
      if let edge = other?.edgeIndex.indices.first, !alternativeEdges.insert(edge).inserted { other = nil }
      return Cycle.Break(
        edge: storage.edge(Int(planned.edge)),
        edges: EdgeIndices(edges, in: storage),
        loop: EdgeIndices(planned.loop, in: storage),
        idiom: planned.rule.idiom,
        advice: advice,
        references: edges.count == 1
          ? nil : whichReferences(edges, members: memberSet(), holdersOf: holdersOf, in: storage),
        declaration: declaration(editedBy: advice, breaking: planned.edge, in: storage),
        alternative: other)
    }
    return Cycle(
      members: found.members.map { Int($0) },
      path: EdgeIndices(found.loop, in: storage),
      pathFromRoot: EdgeIndices(pathTo: found.entry, parentEdges: found.rootParentEdges, in: storage),
      fixPlan: fixPlan, referencesToWeaken: found.referencesToWeaken,
      libraryLoopMembers: found.libraryLoopMembers.map { Int($0) })
  }

  /// Type names of objects whose only purpose is to end something when freed: weakening the
  /// reference to one frees it at once and ends what it holds (an `AnyCancellable` cancels).
  private static let endsWhenFreed = ["Cancellable", "Subscription", "Token", "Registration", "Disposable"]

  /// The other edit of a closure's capture of an object that holds, by a stored property, the
  /// object that stores the closure (``Cycle/Break/alternative``): that property made weak. Nil
  /// when the loop has no such property (the closure stored in the object's own property), when the
  /// property is a library's, or when its target ends something when freed.
  private static func alternative(
    to planned: FixPlan.Planned, advice: FixAdvice, isLibrary: [Bool]?, in storage: GraphStorage
  ) -> Cycle.Break.Alternative? {
    let capturedBy: String
    switch advice {
    case .weakCapture: capturedBy = "closure"
    case .weakMethodReference: capturedBy = "method reference"
    default: return nil
    }
    let loop = planned.loop
    guard loop.count >= 2 else { return nil }
    let first = storage.edges[Int(loop[0])]
    let holder = Int(first.from)
    let target = Int(first.to)
    guard storage.nodeKinds[holder] == .object, storage.nodeKinds[target] == .object,
      storage.reference(first).kind == .property, isLibrary?[holder] != true
    else { return nil }
    let targetName = TypeNames.withoutGenericArguments(storage.typeName(target))
    guard !endsWhenFreed.contains(where: { targetName.contains($0) }) else { return nil }
    let rotated = Array(loop.dropFirst()) + [loop[0]]
    let edit = fix(breaking: loop[0], loop: rotated, form: .weakReference, isLibrary: nil, in: storage)
    return Cycle.Break.Alternative(
      edge: EdgeIndices([loop[0]], in: storage), advice: edit, capturedBy: capturedBy,
      breakFrees: String(storage.shortTypeName(holder)), frees: String(storage.shortTypeName(target)),
      declaration: declaration(editedBy: edit, breaking: loop[0], in: storage))
  }

  /// The declaration the fix edits, when it is one the graph names: the closure that captures the
  /// object, or the holder's stored property, when the reference is in that property itself (not in
  /// a value it holds: `state.task`'s declaration is in the value's type, which the graph does not
  /// name).
  static func declaration(editedBy advice: FixAdvice, breaking edgeIndex: Int32, in storage: GraphStorage)
    -> SourceDeclaration?
  {
    let edge = storage.edges[Int(edgeIndex)]
    let reference = storage.reference(edge)
    let holder = Int(edge.from)
    switch advice {
    case .weakCapture(_, closure: .some, _):
      let function = reference.kind == .singleCapture ? reference.function : storage.typeName(holder)
      guard let function, isClosureSymbol(function) else { return nil }
      return .closure(function: function)
    case .weakProperty, .weakElement, .weakenStoredClosure:
      guard storage.nodeKinds[holder] == .object, let property = reference.property,
        reference.path == property, reference.tail.isEmpty
      else { return nil }
      return .storedProperty(type: storage.typeName(holder), name: property)
    default:
      return nil
    }
  }

  /// Which references one edit weakens, by where their holders are on the cycle: the elements of one
  /// collection (`entries[#0…#2]`, in no particular order: a dictionary's keys have none), or else
  /// one in each holder (`one in each of 2 Node objects`).
  private static func whichReferences(
    _ edges: [Int32], members: Set<Int32>, holdersOf: [Int32: [Int32]], in storage: GraphStorage
  ) -> String {
    let holders = edges.map { storage.edges[Int($0)].from }
    if Set(holders).count == 1 {
      // Captures of one closure (its `self` and its actor isolation): name them.
      // Each with its element's number (`handlers[0] (closure) → capture 0`), as its label says.
      let references = edges.map {
        (storage.reference(storage.edges[Int($0)]), storage.label(storage.edges[Int($0)]))
      }
      let plain = references.filter { !$0.0.isActorIsolation }.map(\.1)
      let isolation = references.filter(\.0.isActorIsolation).map {
        "\($0.0.storagePath()) as the actor it runs on"
      }
      return (plain + isolation).joined(separator: ", and ")
    }
    // The collections on the cycle that hold every holder as an element (a holder, its property):
    // decided from the graph alone, so that the answer is the same from any root.
    struct Collection: Hashable {
      let holder: Int32
      let property: String
    }
    var common: Set<Collection>?
    for holder in holders {
      var here: Set<Collection> = []
      for index in holdersOf[holder] ?? [] {
        let edge = storage.edges[Int(index)]
        let reference = storage.reference(edge)
        guard members.contains(edge.from), reference.kind == .element, let property = reference.property
        else { continue }
        here.insert(Collection(holder: edge.from, property: property))
      }
      common = common.map { $0.intersection(here) } ?? here
      if common?.isEmpty == true { break }
    }
    if let property = common?.map(\.property).min() {
      let last = edges.count - 1
      return last == 1 ? "\(property)[#0, #1]" : "\(property)[#0…#\(last)]"
    }
    // By name: every closure node has a name of its own, equal for one function's closures.
    let types = Set(holders.map { storage.typeName(Int($0)) })
    guard types.count == 1, let holder = holders.first else { return "one in each of \(edges.count) holders" }
    let name =
      switch storage.nodeKinds[Int(holder)] {
      case .closure: "closures (\(closureName(storage.typeName(Int(holder)))))"
      case .task:
        // `task (closure #1 in Poller.start())` → `tasks (closure #1 in Poller.start())`.
        "tasks" + taskDisplayName(storage.typeName(Int(holder))).dropFirst("task".count)
      default: "\(storage.shortTypeName(Int(holder))) objects"
      }
    return "one in each of \(edges.count) \(name)"
  }
}
