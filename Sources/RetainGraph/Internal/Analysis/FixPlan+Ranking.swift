internal import RetainGraphStorage
internal import RetainGraphSupport

// How a fix plan ranks references: the first rule of `Idioms.rules` each one matches.

extension FixPlan {
  /// The rule an edge matches without the reverse reference (for self-references and large
  /// components).
  func ruleAlone(_ edgeIndex: Int32) -> IdiomRule {
    rule(edgeIndex, reverse: nil, appAware: isLibrary != nil)
  }

  /// The rule of ``Idioms/rules`` the edge at `edgeIndex` matches.
  /// - Parameters:
  ///   - edgeIndex: the reference.
  ///   - reverse: a strong reference back from the target to the holder, if there is one.
  ///   - appAware: whether the component has objects of libraries and of yours.
  /// - Returns: the first rule that matches.
  func rule(_ edgeIndex: Int32, reverse: CompactEdge?, appAware: Bool) -> IdiomRule {
    let edge = storage.edges[Int(edgeIndex)]
    let facts = ReferenceFacts(
      shape: Idioms.shape(of: edge, reverse: reverse, in: storage),
      side: appAware ? side(of: edge) : .same)
    return Idioms.rule(for: facts)
  }

  /// Which side of a library the edge's holder and target are on.
  func side(of edge: CompactEdge) -> ReferenceFacts.Side {
    guard let isLibrary else { return .same }
    switch (isLibrary[Int(edge.from)], isLibrary[Int(edge.to)]) {
    case (false, true): return .yoursHoldsLibrary
    case (true, false): return isYourClosure(edge) ? .same : .libraryHoldsYours
    default: return .same
    }
  }

  /// Whether a library's reference to your object is a closure of yours that the library stores (a
  /// closure whose only capture is the object, or a method reference), rather than the library's
  /// own reference. In a library's closure context, only a closure the walk names as yours is.
  func isYourClosure(_ edge: CompactEdge) -> Bool {
    let reference = storage.reference(edge)
    switch reference.kind {
    case .singleCapture:
      guard storage.nodeKinds[Int(edge.from)] == .closure else { return true }
      return reference.function.map { !libraries.isLibrary(nodeNamed: $0) } ?? false
    case .methodReference:
      return storage.nodeKinds[Int(edge.from)] != .closure
    default:
      return false
    }
  }

  /// What a developer edits to weaken the reference: references with the same key are weakened by
  /// one change. A stored property of a type (every `NoteDetailViewModel.repository`, every element of
  /// `DetailCache.entries`), one closure's capture (by the closure's function), one method reference.
  func declarationKey(_ edgeIndex: Int32) -> String {
    let edge = storage.edges[Int(edgeIndex)]
    let holder = storage.typeName(Int(edge.from))
    let reference = storage.reference(edge)
    // A closure of yours with the object as its only capture, named by its function, is that
    // function's edit wherever it is stored: six route handlers in a library's six wrapper closures
    // are six edits (six functions), one closure made six times in a loop is one.
    if reference.kind == .singleCapture, let function = reference.function {
      return "closure\t" + function
    }
    switch storage.nodeKinds[Int(edge.from)] {
    case .closure, .task: return "capture\t\(holder)\t\(reference.text(number: storage.index(edge)))"
    default: break
    }
    let property = reference.property ?? reference.text(number: storage.index(edge))
    switch reference.kind {
    case .singleCapture:
      return "closure\t" + (reference.function ?? "\(holder).\(property)")
    case .methodReference(let method): return "method\t\(holder).\(property)\t\(method)"
    default: return "property\t\(holder).\(property)"
    }
  }

  /// The order among references of one rank: the holder's type name, the reference's text, the
  /// target's type name, and the function of the closure it is stored as (names only, so that the
  /// plan does not depend on node ids; six route handlers come as closures #1…#6).
  func sortKey(_ edgeIndex: Int32) -> String {
    let edge = storage.edges[Int(edgeIndex)]
    let reference = storage.label(edge)
    let function = storage.reference(edge).function ?? ""
    return "\(storage.typeName(Int(edge.from)))\t\(reference)\t\(storage.typeName(Int(edge.to)))\t\(function)"
  }
}
