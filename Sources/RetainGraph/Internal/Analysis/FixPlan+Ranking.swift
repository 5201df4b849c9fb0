// How a fix plan ranks references: ownership idioms, and libraries' references.

extension FixPlan {
  /// An edge's rank without the reverse reference (for self-references and large components).
  func rankAlone(_ edgeIndex: Int32) -> Int {
    rankAmongLibraries(
      edgeIndex, base: Self.rank(edgeIndex, reverse: nil, storage: storage), appAware: isLibrary != nil)
  }

  /// Rank 7 + `base` for your object's structural reference (rank 3 or more) to a library's
  /// object, which you hold on purpose (a subscription, a subject); 4 for a library object's
  /// reference to yours that is not a closure you gave it (``Cycle/Break/Idiom/libraryReference``);
  /// otherwise `base`.
  func rankAmongLibraries(_ edgeIndex: Int32, base: Int, appAware: Bool) -> Int {
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
  func isLibraryReference(_ edge: CompactEdge) -> Bool {
    guard let isLibrary, isLibrary[Int(edge.from)], !isLibrary[Int(edge.to)] else { return false }
    if storage.nodeKinds[Int(edge.from)] == .closure { return true }
    switch storage.reference(edge).kind {
    case .singleCapture, .methodReference: return false
    default: return true
    }
  }

  func sortKey(_ edgeIndex: Int32) -> String {
    let edge = storage.edges[Int(edgeIndex)]
    return "\(storage.typeName(Int(edge.from)))\t\(storage.label(edge))\t\(storage.typeName(Int(edge.to)))"
  }

  func idiom(_ edgeIndex: Int32, rank: Int) -> Cycle.Break.Idiom {
    if isLibraryReference(storage.edges[Int(edgeIndex)]) { return .libraryReference }
    return switch rank {
    case 0:
      if case .methodReference = storage.reference(storage.edges[Int(edgeIndex)]).kind {
        .methodReference
      } else {
        .closureCapture
      }
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
  ///   - reverse: a strong reference back from the target to the holder, if there is one.
  ///   - storage: the graph.
  /// - Returns: the rank, 0 to 6.
  static func rank(_ edgeIndex: Int32, reverse: CompactEdge?, storage: GraphStorage) -> Int {
    let edge = storage.edges[Int(edgeIndex)]
    let reference = storage.reference(edge)
    let targetIsClosure = storage.nodeKinds[Int(edge.to)] == .closure
    if storage.nodeKinds[Int(edge.from)] == .closure { return targetIsClosure ? 6 : 0 }
    // A task is held by a `Task` value (it cannot be weak) and holds its closure; what the
    // closure captures, or the task's frame holds, is the reference to fix.
    if storage.nodeKinds[Int(edge.to)] == .task { return 6 }
    if storage.nodeKinds[Int(edge.from)] == .task { return targetIsClosure ? 6 : 0 }
    switch reference.kind {
    case .methodReference, .singleCapture: return 0
    case .closure: return 6
    default: if targetIsClosure { return 6 }
    }
    func propertyName(_ edge: CompactEdge) -> String {
      (storage.reference(edge).property ?? storage.label(edge)).lowercased()
    }
    let property = propertyName(edge)
    if backReferenceNames.contains(where: { property.contains($0) }) { return 1 }
    if let reverse {
      if storage.reference(reverse).kind == .element || propertyName(reverse).contains("child") { return 2 }
      return 3
    }
    return reference.kind == .element ? 5 : 4
  }
}
