internal import RetainGraphRuntime

/// An object about to be recorded, and who owns the retain that keeps it alive meanwhile.
enum Referent {
  /// Kept alive by its holder for as long as it is needed: retained only if it becomes a node.
  case borrowed(Unmanaged<AnyObject>)
  /// Retained on behalf of the walk: the retain becomes the node's, or is released.
  case owned(RetainedReference)

  var object: Unmanaged<AnyObject> {
    switch self {
    case .borrowed(let object): object
    case .owned(let reference): reference.object
    }
  }

  /// A retain for a new node: the one owned, or a new one.
  consuming func retainForNode() -> RetainedReference {
    switch self {
    case .borrowed(let object): RetainedReference(retaining: object)
    case .owned(let reference): reference
    }
  }

  /// Gives up the object: releases the retain owned, if any.
  consuming func discard() {
    if case .owned(let reference) = self { reference.release() }
  }
}

extension Walker {
  /// Records a reference from the current node to an object the caller holds.
  mutating func addReference(borrowing object: AnyObject, label: PendingLabel, ownership: Ownership) {
    addReference(
      .borrowed(Unmanaged.passUnretained(object)), labelID: nil, label: { label }, ownership: ownership)
  }

  /// Records a reference whose retain the caller hands over.
  mutating func addReference(
    owning reference: RetainedReference, labelID: Int32?, label: PendingLabel, ownership: Ownership
  ) {
    addReference(
      .owned(reference), labelID: labelID, index: label.index, label: { label }, ownership: ownership)
  }

  /// Records a reference from the current node to `referent`, adding a node for it when it is new.
  /// `labelID` is the interned label when known (with `index`, the number the edge keeps apart);
  /// otherwise `label()` gives it, stored there directly or as `closure` (called only when
  /// needed). A closure context is recorded as a closure node named `closureName`.
  mutating func addReference(
    _ referent: consuming Referent, labelID: Int32?, index: Int32 = -1, label: () -> PendingLabel,
    ownership: Ownership, closure: ReferencePath.ClosureForm? = nil, closureName: String? = nil
  ) {
    if !options.ignoredReferences.isEmpty {
      let reference = labelID.map { recorder.label($0) } ?? ReferencePath(label(), closure: closure)
      let holderName = recorder.typeName(of: current)
      if isIgnoredByPattern(property: reference.property, holderName: holderName) {
        referent.discard()
        return
      }
    }
    let address = UInt(bitPattern: referent.object.toOpaque())
    let target: Int
    if let known = recorder.node(at: address) {
      referent.discard()
      target = known
    } else {
      if closureName == nil, options.ignoresTypes,
        isIgnored(HeapLayout.dynamicType(ofObject: UnsafeRawPointer(referent.object.toOpaque())))
      {
        referent.discard()
        return
      }
      guard let added = addNode(for: referent, closureName: closureName) else { return }
      target = added
    }
    if let labelID {
      appendEdge(to: target, labelID: labelID, index: index, ownership: ownership)
    } else {
      let (id, index) = recorder.intern(label(), closure: closure)
      appendEdge(to: target, labelID: id, index: index, ownership: ownership)
    }
  }

  /// Adds a node for `referent` and keeps it alive for the walk; nil (and the referent discarded)
  /// when the node limit is reached.
  mutating func addNode(for referent: consuming Referent, closureName: String? = nil) -> Int? {
    guard recorder.nodeCount < options.maxNodes else {
      noteTruncation(byDepth: false)
      referent.discard()
      return nil
    }
    let depth = recorder.nodeCount == 0 ? 0 : recorder.depth(of: current) + 1
    let reference = referent.retainForNode()
    if let closureName {
      return recorder.addNode(typeName: closureName, kind: .closure, object: reference, depth: depth)
    }
    let typeIndex = recorder.typeIndex(for: HeapLayout.dynamicType(ofObject: reference.pointer))
    return recorder.addObject(reference, typeIndex: typeIndex, depth: depth)
  }

  /// Appends an edge from the current node.
  mutating func appendEdge(to target: Int, labelID: Int32, index: Int32, ownership: Ownership) {
    storageReading?.record(from: current, to: target, ownership: ownership)
    if !recorder.appendEdge(from: current, to: target, labelID: labelID, index: index, ownership: ownership) {
      noteTruncation(byDepth: false)  // more distinct labels than an edge can name: not reachable in practice
    }
  }

  mutating func appendEdge(to target: Int, label: PendingLabel, ownership: Ownership) {
    let (id, index) = recorder.intern(label)
    appendEdge(to: target, labelID: id, index: index, ownership: ownership)
  }

  /// Whether a pattern of ``GraphOptions/ignoredReferences`` names the reference in `property` of the
  /// node being expanded: through its own type's name or, for an object, through a superclass whose
  /// stored properties (its own and inherited) include `property`, so that
  /// `.property("delegate", of: "Base")` names a subclass's inherited `delegate`, and not a
  /// `delegate` a subclass of a `Base` without one declares.
  mutating func isIgnoredByPattern(property: String?, holderName: String) -> Bool {
    guard let property, options.ignoredReferences.contains(where: { $0.property == property }) else {
      return false
    }
    if options.ignoredReferences.contains(where: { $0.matches(holderName: holderName, property: property) }) {
      return true
    }
    let superclasses = superclassesForPatterns(holderName: holderName)
    return options.ignoredReferences.contains { pattern in
      superclasses.contains {
        $0.fields.contains(property) && pattern.matches(holderName: $0.name, property: property)
      }
    }
  }

  /// The superclasses of the object being expanded, nearest first, each with its stored properties;
  /// empty for a value. Read once per holder type.
  private mutating func superclassesForPatterns(holderName: String) -> [(name: String, fields: Set<String>)] {
    if let known = patternSuperclasses[holderName] { return known }
    var found: [(name: String, fields: Set<String>)] = []
    if recorder.nodeKinds[current] == .object, let object = recorder.object(of: current) {
      var type: any Any.Type = Swift.type(of: object.takeUnretainedValue())
      for _ in 0..<64 {
        guard let superclass = Metadata.superclass(of: type) else { break }
        let fields = Set((FieldLayout.storedFields(of: superclass) ?? []).map(\.name))
        found.append((TypeNames.qualified(superclass), fields))
        type = superclass
      }
    }
    patternSuperclasses[holderName] = found
    return found
  }
}
