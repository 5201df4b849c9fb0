internal import RetainGraphStorage

/// The fix idioms, as one table: each rule says which references it matches (on the structured
/// reference: its ``Edge/Kind``, the holder's and the target's node kinds, the property's name, the
/// reference back, and which side of a library the two objects are on), the idiom it names, its rank
/// (lower is weakened first) and the advice it produces. A reference gets the first rule that
/// matches; adding an idiom is one row here and its sentence in `Advice/Advice.swift`.
enum Idioms {
  /// Every rule, in the order they are tried.
  static let rules: [IdiomRule] = [
    // A library's object (or closure) holds yours, and not through a closure you gave it: the
    // reference is the library's, and so is the way out.
    IdiomRule(.libraryReference, rank: 4, advice: .libraryWayOut) { $0.side == .libraryHoldsYours },
    // A stored method reference retains its object: store a closure capturing `[weak self]`.
    IdiomRule(.methodReference, rank: 0, advice: .weakMethodReference) { $0.shape == .methodReference },
    // A closure (or a task's closure) captures the object: `[weak self]` in it.
    IdiomRule(.closureCapture, rank: 0, advice: .weakCapture) { $0.shape == .capture },
    // A back reference by convention: `delegate`, `parent`, `owner`, observers…
    IdiomRule(.backReference, rank: 1, advice: .weakReference) { $0.shape == .backReferenceByName },
    // The reference to the object that holds this one as an element or a child.
    IdiomRule(.backReference, rank: 2, advice: .weakReference) { $0.shape == .referenceToContainer },
    // Your structural reference to a library's object, which you hold on purpose (a subscription, a
    // subject): after every structural reference of your own.
    IdiomRule(.structure, rank: 10, advice: .weakReference) {
      $0.side == .yoursHoldsLibrary && $0.shape == .mutual
    },
    IdiomRule(.structure, rank: 11, advice: .weakReference) {
      $0.side == .yoursHoldsLibrary && $0.shape == .property
    },
    IdiomRule(.structure, rank: 12, advice: .weakReference) {
      $0.side == .yoursHoldsLibrary && $0.shape == .element
    },
    IdiomRule(.structure, rank: 13, advice: .weakenStoredClosure) {
      $0.side == .yoursHoldsLibrary && $0.shape == .closureStorage
    },
    // Structure alone: one of two objects holding each other, any other property, an element, and
    // last the storage of a closure or a task (weaken what it captures instead).
    IdiomRule(.structure, rank: 3, advice: .weakReference) { $0.shape == .mutual },
    IdiomRule(.structure, rank: 4, advice: .weakReference) { $0.shape == .property },
    IdiomRule(.structure, rank: 5, advice: .weakReference) { $0.shape == .element },
    IdiomRule(.structure, rank: 6, advice: .weakenStoredClosure) { $0.shape == .closureStorage },
  ]

  /// The first rule that matches `facts`.
  static func rule(for facts: ReferenceFacts) -> IdiomRule {
    // Every shape has a rule of its own, side aside: the search always ends on one.
    rules.first { $0.matches(facts) } ?? rules[rules.count - 1]
  }

  /// Property names that are back references by convention (matched case-insensitively anywhere in
  /// the property name: `parentCoordinator`, `weakDelegate`).
  static let backReferenceNames = [
    "delegate", "datasource", "parent", "owner", "output", "observer", "listener",
  ]

  /// What `edge` is in its holder, for the rules: read from the structured reference and the nodes'
  /// kinds, never from the label's text.
  /// - Parameters:
  ///   - edge: the reference.
  ///   - reverse: a strong reference back from the target to the holder, if there is one.
  ///   - storage: the graph.
  /// - Returns: the reference's shape.
  static func shape(of edge: CompactEdge, reverse: CompactEdge?, in storage: GraphStorage)
    -> ReferenceFacts.Shape
  {
    let reference = storage.reference(edge)
    let holderKind = storage.nodeKinds[Int(edge.from)]
    let targetKind = storage.nodeKinds[Int(edge.to)]
    let targetIsClosure = targetKind == .closure
    // What a closure context or a task holds directly is a capture (a method reference when one is
    // captured), unless it is another closure's storage.
    let held: ReferenceFacts.Shape =
      if case .methodReference = reference.kind { .methodReference } else { .capture }
    if holderKind == .closure { return targetIsClosure ? .closureStorage : held }
    // A task is held by a `Task` value (it cannot be weak) and holds its closure; what the
    // closure captures, or the task's frame holds, is the reference to fix.
    if targetKind == .task { return .closureStorage }
    if holderKind == .task { return targetIsClosure ? .closureStorage : held }
    switch reference.kind {
    case .methodReference: return .methodReference
    case .singleCapture: return .capture
    case .closure: return .closureStorage
    default: if targetIsClosure { return .closureStorage }
    }
    if isBackReferenceName(reference.property) { return .backReferenceByName }
    if let reverse {
      let back = storage.reference(reverse)
      if back.kind == .element || back.property?.lowercased().contains("child") == true {
        return .referenceToContainer
      }
      return .mutual
    }
    return reference.kind == .element ? .element : .property
  }

  /// Whether a stored property's name says it is a back reference.
  static func isBackReferenceName(_ property: String?) -> Bool {
    guard let name = property?.lowercased() else { return false }
    return backReferenceNames.contains { name.contains($0) }
  }
}

/// One row of ``Idioms/rules``.
struct IdiomRule: Sendable {
  /// The idiom a matching reference is given.
  let idiom: Cycle.Break.Idiom
  /// How much a matching reference is the one to weaken, lower first.
  let rank: Int
  /// The advice it produces.
  let advice: AdviceForm
  /// Whether the rule applies to a reference.
  let matches: @Sendable (ReferenceFacts) -> Bool

  init(
    _ idiom: Cycle.Break.Idiom, rank: Int, advice: AdviceForm,
    matches: @escaping @Sendable (ReferenceFacts) -> Bool
  ) {
    self.idiom = idiom
    self.rank = rank
    self.advice = advice
    self.matches = matches
  }
}

/// What the idiom rules match on: one reference, structured.
struct ReferenceFacts: Hashable, Sendable {
  /// What the reference is in its holder.
  enum Shape: Hashable, Sendable {
    /// A closure's (or a task's) capture of an object, or a closure stored with the object as its
    /// only capture.
    case capture
    /// A stored method reference (`completion = handleResponse`).
    case methodReference
    /// The storage of a closure or a task: what it captures is the reference to weaken.
    case closureStorage
    /// A stored property named as a back reference (``Idioms/backReferenceNames``).
    case backReferenceByName
    /// A reference to the object that holds the holder as an element or a child.
    case referenceToContainer
    /// One of two objects holding each other.
    case mutual
    /// A collection's element.
    case element
    /// Any other stored reference.
    case property
  }

  /// Which side of a library the holder and the target are on.
  enum Side: Hashable, Sendable {
    /// Both yours, both a library's, or no libraries in the graph; also a closure of yours that a
    /// library stores (its capture is yours to weaken).
    case same
    /// A library's object or closure holds your object, by a reference of its own.
    case libraryHoldsYours
    /// Your object holds a library's object.
    case yoursHoldsLibrary
  }

  var shape: Shape
  var side: Side
}

/// The advice a rule produces: what the developer edits. `Advice/Advice.swift` writes the sentence.
enum AdviceForm: Hashable, Sendable {
  /// The library's reference: the library's way out (cancel, remove, a weaker extent), or a closure
  /// capturing `[weak self]` given to it instead of the object.
  case libraryWayOut
  /// A weak capture in the closure that captures the object: `[weak self]` when it is the
  /// closure's `self`, otherwise named by its type (capture names are not in the binary).
  case weakCapture
  /// Store a closure capturing `[weak self]` instead of the method reference.
  case weakMethodReference
  /// Weaken what the stored closure (or task) captures.
  case weakenStoredClosure
  /// Make the reference weak: a `weak` property, or a weak box for an element.
  case weakReference
}
