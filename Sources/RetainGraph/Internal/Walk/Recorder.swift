internal import RetainGraphStorage
internal import RetainGraphSupport

/// A reference retained once (+1) on behalf of the walk. Whoever holds it owns that retain: it
/// either hands it over (it becomes a node's keep-alive retain) or releases it. Never both, never
/// neither.
struct RetainedReference {
  let object: Unmanaged<AnyObject>

  /// Takes over a retain the caller already owns (a strong load, `swift_tryRetain`…).
  init(adopting retained: Unmanaged<AnyObject>) { object = retained }

  /// Retains `object` now.
  init(retaining object: Unmanaged<AnyObject>) { self.object = object.retain() }

  var address: UInt { UInt(bitPattern: object.toOpaque()) }
  var pointer: UnsafeRawPointer { UnsafeRawPointer(object.toOpaque()) }

  /// Gives the retain up.
  consuming func release() { object.release() }
}

/// What a walk produced: the graph's storage, its findings, and, when asked for, the objects.
struct WalkResult {
  var storage: GraphStorage
  var isTruncated: Bool
  var danglingReferences: [DanglingReference]
  var notes: [GraphNote]
  /// `objects[id]` is node `id`'s object (nil for a value root and for closure contexts); empty
  /// unless the walk kept them.
  var objects: [AnyObject?]
  /// `objectAddresses[id]` is the address of node `id`'s object (0 for a value root and for
  /// closure contexts), for ``ObjectGraph/node(for:)``.
  var objectAddresses: ChunkedArray<UInt>
}

/// Records the nodes and edges of a walk in compact form (type names and labels interned), keeps
/// every node's object alive until the walk ends, and maps object addresses to node ids.
struct Recorder {
  private var typeNames: [String] = []
  private var nodeTypes: [Int32] = []
  private(set) var nodeKinds: [Node.Kind] = []
  private var labels = Interner<ReferencePath>()
  private var edges = ChunkedArray<CompactEdge>()
  private var wideLabels = WideLabels()
  /// Node id by object address. Every object stays alive (in `keepAlive`) until the walk ends, so
  /// an address cannot be reused for another object meanwhile.
  private var identities = IdentityTable()
  /// One retain per node's object (released when the walk ends), as its address (0 for none): raw,
  /// so reading an object's fields costs no further reference counting. When the walk ends, the
  /// same memory becomes the graph's object addresses.
  private var keepAlive = ChunkedArray<UInt>()
  /// Depth of each node, kept only when a depth limit is set.
  private var depths: [Int32] = []
  private let tracksDepth: Bool
  private var slots: [ObjectIdentifier: TypeSlot] = [:]
  /// The type last looked up and its slot: a list's or a tree's objects are mostly of one type.
  private var lastKey: ObjectIdentifier?
  /// Unretained: `slots` keeps every slot for the whole walk.
  private var lastSlot: Unmanaged<TypeSlot>?

  /// A type's plan, with the graph's index for its name and its fields' interned labels. A class,
  /// so that looking one up (twice per object) costs one retain, not one per stored reference. The
  /// labels are memory of the slot's own (freed with it), so that passing them costs no reference
  /// counting; the walk reads them only while it holds the slot.
  final class TypeSlot {
    let plan: TypePlan
    let typeIndex: Int32
    let fieldLabels: UnsafeBufferPointer<Int32>
    /// For a field read as an array of objects, its elements' interned label (`items[…]`, the
    /// index kept apart); -1 for other fields.
    let elementLabels: UnsafeBufferPointer<Int32>

    init(plan: TypePlan, typeIndex: Int32, fieldLabels: [Int32], elementLabels: [Int32]) {
      self.plan = plan
      self.typeIndex = typeIndex
      self.fieldLabels = Self.copy(fieldLabels)
      self.elementLabels = Self.copy(elementLabels)
    }

    deinit {
      fieldLabels.deallocate()
      elementLabels.deallocate()
    }

    private static func copy(_ labels: [Int32]) -> UnsafeBufferPointer<Int32> {
      let copy = UnsafeMutableBufferPointer<Int32>.allocate(capacity: labels.count)
      _ = copy.initialize(from: labels)
      return UnsafeBufferPointer(copy)
    }
  }

  init(tracksDepth: Bool) {
    self.tracksDepth = tracksDepth
  }

  var nodeCount: Int { nodeKinds.count }

  func typeName(of node: Int) -> String { typeNames[Int(nodeTypes[node])] }

  /// The object of node `id`, while the walk keeps it alive (nil for a value root).
  func object(of id: Int) -> Unmanaged<AnyObject>? {
    UnsafeRawPointer(bitPattern: keepAlive[id]).map { Unmanaged.fromOpaque($0) }
  }

  func depth(of node: Int) -> Int32 { tracksDepth ? depths[node] : 0 }

  /// The node of the object at `address`, if it is in the graph.
  func node(at address: UInt) -> Int? { identities.node(at: address, addresses: keepAlive).map(Int.init) }

  // MARK: - Nodes

  /// Adds an object node whose object is kept alive by `reference`'s retain, handed over here.
  mutating func addObject(_ reference: consuming RetainedReference, typeIndex: Int32, depth: Int32) -> Int {
    let id = nodeCount
    identities.insert(reference.address, node: Int32(id), addresses: keepAlive)
    nodeTypes.append(typeIndex)
    nodeKinds.append(.object)
    keepAlive.append(reference.address)
    if tracksDepth { depths.append(depth) }
    return id
  }

  /// Adds a node with a type name of its own: a closure context (kept alive by `reference`'s
  /// retain, handed over here) or a value root (no object).
  mutating func addNode(
    typeName: String, kind: Node.Kind, object reference: consuming RetainedReference?, depth: Int32
  ) -> Int {
    let id = nodeCount
    if let address = reference?.address { identities.insert(address, node: Int32(id), addresses: keepAlive) }
    nodeTypes.append(Int32(typeNames.count))
    typeNames.append(typeName)
    nodeKinds.append(kind)
    keepAlive.append(reference?.address ?? 0)
    if tracksDepth { depths.append(depth) }
    return id
  }

  // MARK: - Edges and labels

  /// The id of a reference's structured label, interned.
  mutating func intern(_ reference: ReferencePath) -> Int32 { labels.intern(reference) }

  /// The id of the label of a reference at `label` (stored there directly, or as `closure`), and
  /// the number the edge keeps apart.
  mutating func intern(
    _ label: PendingLabel, closure: ReferencePath.ClosureForm? = nil
  ) -> (id: Int32, index: Int32) {
    (intern(ReferencePath(label, closure: closure)), label.index)
  }

  func label(_ id: Int32) -> ReferencePath { labels.values[Int(id)] }

  /// Appends an edge. A label and index too large to pack together (`items[70000]`) are kept as a
  /// pair beside the edges. Returns false when no label can name the edge (more than 2²⁸ distinct
  /// labels or wide pairs).
  @inline(__always)
  mutating func appendEdge(
    from holder: Int, to target: Int, labelID: Int32, index: Int32, ownership: Ownership
  ) -> Bool {
    // Most edges (a field's, with its interned label and no index) pack at once.
    if index < 0, let edge = CompactEdge(from: holder, to: target, label: labelID, ownership: ownership) {
      edges.append(edge)
      return true
    }
    return appendIndexedEdge(from: holder, to: target, labelID: labelID, index: index, ownership: ownership)
  }

  /// ``appendEdge(from:to:labelID:index:ownership:)`` for an edge with an element index (or a
  /// label too large to pack).
  private mutating func appendIndexedEdge(
    from holder: Int, to target: Int, labelID: Int32, index: Int32, ownership: Ownership
  ) -> Bool {
    guard
      let edge = wideLabels.edge(from: holder, to: target, label: labelID, index: index, ownership: ownership)
    else { return false }
    edges.append(edge)
    return true
  }

  /// The targets of the strong edges held by each of `holders` (one pass over the edges).
  func strongTargets(of holders: Set<Int>) -> [Int: Set<Int>] {
    var targets: [Int: Set<Int>] = [:]
    guard !holders.isEmpty else { return targets }
    for edge in edges where edge.isStrong && holders.contains(Int(edge.from)) {
      targets[Int(edge.from), default: []].insert(Int(edge.to))
    }
    return targets
  }

  // MARK: - Types

  /// The graph's index for the name of `type` (what a new node needs of its slot).
  mutating func typeIndex(for type: any Any.Type) -> Int32 {
    if ObjectIdentifier(type) == lastKey, let lastSlot {
      return lastSlot._withUnsafeGuaranteedRef { $0.typeIndex }
    }
    return slot(for: type).typeIndex
  }

  /// The plan of `type`, with its interned name and field labels, looked up once per walk.
  @inline(__always)
  mutating func slot(for type: any Any.Type) -> TypeSlot {
    let key = ObjectIdentifier(type)
    if key == lastKey, let lastSlot { return lastSlot.takeUnretainedValue() }
    return lookUpSlot(for: type).takeUnretainedValue()
  }

  /// ``slot(for:)`` unretained, for a caller that uses the slot only while the recorder lives (it
  /// keeps every slot for the whole walk): no reference counting per object.
  @inline(__always)
  mutating func unretainedSlot(for type: any Any.Type) -> Unmanaged<TypeSlot> {
    if ObjectIdentifier(type) == lastKey, let lastSlot { return lastSlot }
    return lookUpSlot(for: type)
  }

  /// The slot of a type other than the last one looked up.
  private mutating func lookUpSlot(for type: any Any.Type) -> Unmanaged<TypeSlot> {
    let key = ObjectIdentifier(type)
    if let slot = slots[key] {
      lastKey = key
      lastSlot = Unmanaged.passUnretained(slot)
      return Unmanaged.passUnretained(slot)
    }
    let plan = TypePlans.plan(for: type)
    let typeIndex = Int32(typeNames.count)
    typeNames.append(plan.typeName)
    var fieldLabels: [Int32] = []
    var elementLabels: [Int32] = []
    if case .object(let fields) = plan.shape {
      fieldLabels = fields.map { intern(ReferencePath(property: $0.name)) }
      elementLabels = fields.map { field in
        guard case .objectArray = field.action else { return -1 }
        return intern(ReferencePath(PendingLabel.empty.appending(field.name).element(0)))
      }
    }
    let slot = TypeSlot(
      plan: plan, typeIndex: typeIndex, fieldLabels: fieldLabels, elementLabels: elementLabels)
    slots[key] = slot
    lastKey = key
    lastSlot = Unmanaged.passUnretained(slot)
    return Unmanaged.passUnretained(slot)
  }

  // MARK: - The end

  /// Ends the recording: releases every object the walk kept alive (after handing them to the
  /// result when `keepingObjects`; closure contexts too when `keepingContexts`) and returns the
  /// storage and the objects' addresses (the keep-alive list itself, its other nodes' entries
  /// zeroed: no copy).
  mutating func finish(
    keepingObjects: Bool, keepingContexts: Bool = false
  ) -> (storage: GraphStorage, objects: [AnyObject?], objectAddresses: ChunkedArray<UInt>) {
    identities = IdentityTable(capacity: 0)
    var objects: [AnyObject?] = []
    if keepingObjects {
      objects = keepAlive.indices.map {
        nodeKinds[$0] == .object || (keepingContexts && nodeKinds[$0] == .closure)
          ? object(of: $0)?.takeUnretainedValue() : nil
      }
    }
    for id in keepAlive.indices {
      object(of: id)?.release()
      if nodeKinds[id] != .object { keepAlive[id] = 0 }
    }
    let objectAddresses = keepAlive
    keepAlive = ChunkedArray()
    let storage = GraphStorage(
      typeNames: typeNames, nodeTypes: nodeTypes, nodeKinds: nodeKinds, labels: labels.values, edges: edges,
      wideLabels: wideLabels)
    return (storage, objects, objectAddresses)
  }
}

/// Interned values: each distinct value gets the next id.
struct Interner<Value: Hashable> {
  private(set) var values: [Value] = []
  private var ids: [Value: Int32] = [:]

  mutating func intern(_ value: Value) -> Int32 {
    if let known = ids[value] { return known }
    let id = Int32(values.count)
    values.append(value)
    ids[value] = id
    return id
  }
}
