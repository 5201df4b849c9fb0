/// A label on its way to an edge: a path, and an element index appended as `[index]` when ≥ 0.
/// Keeping the index apart lets a million `items[i]` labels share one interned `items`.
struct PendingLabel {
  var base: String
  var index: Int32 = -1

  static let empty = PendingLabel(base: "")

  var text: String { index < 0 ? base : "\(base)[\(index)]" }

  /// The label of a component below this one: `state.loading`, `items[3].owner`.
  func appending(_ name: String) -> PendingLabel {
    let prefix = text
    return PendingLabel(base: prefix.isEmpty ? name : "\(prefix).\(name)")
  }

  func element(_ index: Int) -> PendingLabel {
    self.index < 0 ? PendingLabel(base: base, index: Int32(index)) : PendingLabel(base: "\(text)[\(index)]")
  }
}

/// One step of the walk, queued so that references are recorded in field order.
enum Work {
  /// A value to walk.
  case value(Any, PendingLabel)
  /// A reference read while its storage was readable, retained once: whoever performs (or drops)
  /// this work owns that retain.
  case loaded(Unmanaged<AnyObject>, Int32?, PendingLabel, Ownership)
  /// A reference to a node already in the graph.
  case edge(Int, Int32?, PendingLabel, Ownership)
  /// A stored closure: its context (retained once, owned by this work) and function.
  case closure(Unmanaged<AnyObject>, UnsafeRawPointer?, PendingLabel)
  case dangling(PendingLabel)
  case unsafeAddress(UInt, PendingLabel)
  case note(String?)
}

/// Walks the object graph from a root, iteratively, and records nodes, edges and findings in
/// compact form.
struct GraphBuilder {
  let options: GraphOptions

  private var typeNames: [String] = []
  private var nodeTypes: [Int32] = []
  private var nodeKinds: [Node.Kind] = []
  private var labels: [String] = []
  private var labelIndex: [String: Int32] = [:]
  private var edges = ChunkedArray<CompactEdge>()
  private(set) var isTruncated = false
  private var dangling: [DanglingReference] = []
  private var notes: [String] = []

  /// Node id by object address. Every object stays alive (in `keepAlive`) until the walk ends, so
  /// an address cannot be reused for another object meanwhile.
  private var identities = IdentityTable()
  /// One retain per node's object (released when the walk ends): raw, so reading an object's
  /// fields costs no further reference counting.
  private var keepAlive = ChunkedArray<Unmanaged<AnyObject>?>()
  /// Depth of each node, kept only when a depth limit is set.
  private var depths: [Int32] = []
  /// Values still to be walked for the node being expanded.
  private var values: [Work] = []
  private var unsafeReferences: [(holder: Int, label: PendingLabel, address: UInt)] = []
  private var slots: [ObjectIdentifier: TypeSlot] = [:]
  private var lastSlot: (key: ObjectIdentifier, slot: TypeSlot)?
  private var ignored: [ObjectIdentifier: Bool] = [:]
  private var current = 0

  /// A type's plan, with the graph's index for its name and its fields' interned labels.
  private struct TypeSlot {
    var plan: TypePlan
    var typeIndex: Int32
    var fieldLabels: [Int32]
  }

  init(options: GraphOptions) {
    self.options = options
  }

  // MARK: - The walk

  /// Walks from `root`. With `keepingObjects`, the objects stay referenced by ``objects`` afterwards.
  mutating func walk(_ root: Any, keepingObjects: Bool = false) {
    addRoot(Self.unwrapOptionals(root))
    // Nodes are expanded in the order they were found: breadth-first.
    var next = nodeKinds.first == .value ? 1 : 0
    while next < nodeKinds.count {
      expand(next)
      next += 1
    }
    for reference in unsafeReferences {
      if let target = identities[reference.address] {
        current = reference.holder
        addEdge(to: Int(target), label: reference.label, ownership: .unownedUnsafe)
      }
    }
    identities = IdentityTable(capacity: 0)
    if keepingObjects {
      kept = keepAlive.indices.map { nodeKinds[$0] == .object ? keepAlive[$0]?.takeUnretainedValue() : nil }
    }
    for object in keepAlive { object?.release() }
    keepAlive = ChunkedArray()
  }

  private var kept: [AnyObject?] = []

  /// The object of each node (nil for a value root and for closure contexts), after a walk that
  /// kept them.
  var objects: [AnyObject?] { kept }

  /// The graph built by the walk.
  func graph() -> ObjectGraph {
    let storage = GraphStorage(
      typeNames: typeNames, nodeTypes: nodeTypes, nodeKinds: nodeKinds, labels: labels, edges: edges)
    return ObjectGraph(
      storage: storage, root: 0, isTruncated: isTruncated, danglingReferences: dangling, notes: notes)
  }

  private static func unwrapOptionals(_ value: Any) -> Any {
    var value = value
    while Metadata.kind(of: type(of: value)) == .optional {
      let mirror = Mirror(reflecting: value)
      guard let child = mirror.children.first else { break }
      value = child.value
    }
    return value
  }

  private mutating func addRoot(_ root: Any) {
    let rootType = type(of: root)
    if Metadata.kind(of: rootType) == .class {
      _ = addNode(for: Unmanaged.passUnretained(root as AnyObject), closureName: nil)
      return
    }
    appendNode(typeName: TypeNames.qualified(rootType), kind: .value, object: nil, depth: 0)
    current = 0
    values.append(.value(root, .empty))
    drainValues()
  }

  /// Follows the references held by node `id`.
  private mutating func expand(_ id: Int) {
    guard let object = keepAlive[id] else { return }
    current = id
    let base = UnsafeRawPointer(object.toOpaque())
    if nodeKinds[id] == .closure {
      expandClosure(id, context: base)
      drainValues()
      return
    }
    let slot = self.slot(for: Self.dynamicType(of: base))
    if let maxDepth = options.maxDepth, depths[id] >= maxDepth {
      if case .object(let fields) = slot.plan.shape, !fields.isEmpty { isTruncated = true }
      if slot.plan.isCustom { isTruncated = true }
      return
    }
    if slot.plan.isCustom, let custom = object.takeUnretainedValue() as? any GraphReflectable {
      walkCustom(custom, prefix: .empty)
    } else if case .object(let fields) = slot.plan.shape, !fields.isEmpty {
      readFields(fields, base: base, prefix: .empty, labelIDs: slot.fieldLabels)
    }
    drainValues()
  }

  private mutating func drainValues() {
    while let work = values.popLast() {
      if isTruncated && nodeKinds.count >= options.maxNodes {
        for item in values + [work] {
          switch item {
          case .loaded(let object, _, _, _), .closure(let object, _, _): object.release()
          default: break
          }
        }
        values.removeAll()
        return
      }
      perform(work)
    }
  }

  /// Pushes values so that they are visited in the order given.
  private mutating func push(_ children: [(value: Any, label: PendingLabel)]) {
    values.append(contentsOf: children.reversed().map { Work.value($0.value, $0.label) })
  }

  /// Pushes work so that it is done in the order given.
  private mutating func push(_ work: [Work]) {
    values.append(contentsOf: work.reversed())
  }

  private mutating func perform(_ work: Work) {
    switch work {
    case .value(let value, let label):
      visitOpened(value, label: label)
    case .loaded(let object, let labelID, let label, let ownership):
      addReference(
        to: object, labelID: labelID, index: label.index, label: { PendingLabel(base: label.base) },
        ownership: ownership, adopting: true)
    case .edge(let target, let labelID, let label, let ownership):
      appendEdge(to: target, labelID: labelID ?? intern(label.base), index: label.index, ownership: ownership)
    case .closure(let context, let function, let label):
      addClosure(context: UnsafeRawPointer(context.toOpaque()), function: function, label: label)
      context.release()
    case .dangling(let label):
      dangling.append(DanglingReference(holder: current, label: label.text))
    case .unsafeAddress(let address, let label):
      unsafeReferences.append((current, label, address))
    case .note(let note):
      if let note { notes.append(note) }
    }
  }

  private mutating func visitOpened<T>(_ value: T, label: PendingLabel) {
    if Metadata.kind(of: T.self) == .existential {
      // A value loaded from an existential-typed field (`Any`, `any P`, `AnyObject`) is boxed with
      // its static type: look inside the container (pushed, so nesting never recurses).
      let projected = withUnsafePointer(to: value) { Existential.project(T.self, at: UnsafeRawPointer($0)) }
      if let projected { values.append(.value(projected, label)) }
      return
    }
    let plan = slot(for: T.self).plan
    if !options.ignoredTypeIDs.isEmpty, isIgnored(T.self) { return }
    if plan.isCustom, Metadata.kind(of: T.self) != .class {
      if let custom = value as? any GraphReflectable { walkCustom(custom, prefix: label) }
      return
    }
    switch plan.shape {
    case .object:
      addReference(to: value as AnyObject, label: label, ownership: .strong)
    case .leaf:
      return
    case .fields(let fields):
      withUnsafePointer(to: value) { pointer in
        readFields(fields, base: UnsafeRawPointer(pointer), prefix: label, labelIDs: nil)
      }
    case .function:
      guard options.includeClosures else { return }
      withUnsafePointer(to: value) { pointer in
        visitFunctionStorage(at: UnsafeRawPointer(pointer), label: label)
      }
    case .mirror:
      visitMirror(of: value, label: label)
    }
  }

  private mutating func walkCustom(_ custom: any GraphReflectable, prefix: PendingLabel) {
    var strongChildren: [(value: Any, label: PendingLabel)] = []
    for child in custom.graphChildren {
      let label = prefix.appending(child.label)
      if child.ownership == .strong {
        strongChildren.append((child.value, label))
        continue
      }
      let unwrapped = Self.unwrapOptionals(child.value)
      if Metadata.kind(of: type(of: unwrapped)) == .class {
        addReference(to: unwrapped as AnyObject, label: label, ownership: child.ownership)
      }
    }
    push(strongChildren)
  }

  // MARK: - Stored fields

  /// Reads the fields of a value or object at `base`, in field order: each field's references are
  /// recorded before the next field's, and a value field's whole subtree comes at its place, so the
  /// fast paths and the general path give the same node ids. `labelIDs` are the fields' interned
  /// labels when they are read straight from an object (no prefix).
  private mutating func readFields(
    _ fields: [FieldPlan], base: UnsafeRawPointer, prefix: PendingLabel, labelIDs: [Int32]?
  ) {
    // Work is done at once until the first field that must wait for a value's subtree; from then
    // on it is queued in order.
    var queued: [Work] = []
    var queueing = false
    func record(_ work: Work) {
      if queueing { queued.append(work) } else { perform(work) }
    }
    let fastPaths = options.fastPaths
    for (position, field) in fields.enumerated() {
      let address = base + field.offset
      let labelID = labelIDs?[position]
      func label() -> PendingLabel { prefix.appending(field.name) }
      switch field.action {
      case .object where fastPaths, .optionalObject where fastPaths:
        guard let raw = address.load(as: UnsafeRawPointer?.self) else { continue }
        let object = Unmanaged<AnyObject>.fromOpaque(raw)
        if queueing {
          // Queued work outlives this read, and perhaps the value read from: hold the object.
          queued.append(.loaded(object.retain(), labelID, label(), .strong))
        } else {
          addReference(to: object, labelID: labelID, label: label, ownership: .strong)
        }
      case .objectArray where fastPaths:
        // A native array buffer: a 32-byte header (object header, count, capacity), then the
        // element pointers.
        let buffer = address.load(as: UnsafeRawPointer.self)
        let count = buffer.load(fromByteOffset: 16, as: Int.self)
        guard count > 0 else { continue }
        let base = labelID.map { PendingLabel(base: labels[Int($0)]) } ?? label()
        let elementLabelID = labelID ?? intern(base.text)
        for index in 0..<count {
          let element = Unmanaged<AnyObject>.fromOpaque(
            buffer.load(fromByteOffset: 32 + 8 * index, as: UnsafeRawPointer.self))
          let elementIndex = Int32(truncatingIfNeeded: index)
          if queueing {
            queued.append(
              .loaded(
                element.retain(), elementLabelID, PendingLabel(base: base.text, index: elementIndex), .strong)
            )
          } else {
            addReference(
              to: element, labelID: elementLabelID, index: elementIndex, label: { base }, ownership: .strong)
          }
        }
      case .object, .optionalObject, .objectArray, .value:
        queueing = true
        queued.append(.value(Existential.load(field.type, from: address), label()))
      case .function:
        guard options.includeClosures,
          let context = address.load(fromByteOffset: 8, as: UnsafeRawPointer?.self)
        else { continue }
        let function = address.load(as: UnsafeRawPointer?.self)
        if queueing {
          queued.append(.closure(Unmanaged.fromOpaque(context).retain(), function, label()))
        } else {
          addClosure(context: context, function: function, label: label())
        }
      case .reference(let storage):
        record(loadReference(storage, at: address, labelID: labelID, label: label()))
      case .unreadable:
        record(
          .note(
            "\(typeName(of: current)).\(label().text): a non-strong reference whose storage is not recognised was not read"
          ))
      }
    }
    push(queued)
  }

  /// Reads a weak, unowned or unowned(unsafe) reference now (its storage may not outlive this
  /// call) and returns what to record.
  private mutating func loadReference(
    _ storage: ReferenceStorage, at address: UnsafeRawPointer, labelID: Int32? = nil, label: PendingLabel
  ) -> Work {
    let ownership: Ownership
    switch storage {
    case .weak: ownership = .weak
    case .unowned: ownership = .unowned
    case .unownedUnsafe: ownership = .unownedUnsafe
    }
    // An empty reference (nil) needs no runtime call.
    if address.load(as: UInt.self) == 0 { return .note(nil) }
    if storage == .weak, options.fastPaths, WeakPeek.isAvailable,
      let target = WeakPeek.liveTarget(at: address),
      let known = identities[target]
    {
      // Already in the graph (and kept alive by the walk): no need to load it strongly.
      return .edge(Int(known), labelID, label, .weak)
    }
    switch ReferenceLoader.load(storage, at: address) {
    case .none:
      return .note(nil)
    case .alive(let object):
      return .loaded(object, labelID, label, ownership)
    case .dangling:
      return .dangling(label)
    case .address(let raw):
      return .unsafeAddress(raw, label)
    case .unreadable:
      return .note(
        "\(typeName(of: current)).\(label.text): the runtime cannot read this \(ownership.rawValue) reference here"
      )
    }
  }

  private mutating func readReference(
    _ storage: ReferenceStorage, at address: UnsafeRawPointer, label: PendingLabel
  ) {
    perform(loadReference(storage, at: address, label: label))
  }

  // MARK: - Mirror

  private mutating func visitMirror(of value: Any, label: PendingLabel) {
    let mirror = Mirror(reflecting: value)
    var children: [(value: Any, label: PendingLabel)] = []
    switch mirror.displayStyle {
    case .optional:
      if let child = mirror.children.first { children.append((child.value, label)) }
    case .collection, .set:
      for (index, child) in mirror.children.enumerated() {
        children.append((child.value, label.element(index)))
      }
    case .dictionary:
      for (index, child) in mirror.children.enumerated() {
        let pair = Array(Mirror(reflecting: child.value).children)
        guard pair.count == 2 else { continue }
        let key = Self.describeKey(pair[0].value) ?? "#\(index)"
        let entry = PendingLabel(base: "\(label.text)[\(key)]")
        children.append((pair[1].value, entry))
        children.append((pair[0].value, entry.appending("key")))
      }
    case .enum:
      for child in mirror.children {
        children.append((child.value, label.appending(child.label ?? "payload")))
      }
    default:
      for (index, child) in mirror.children.enumerated() {
        var name = child.label ?? "[\(index)]"
        if name.hasPrefix(".") { name.removeFirst() }
        children.append((child.value, label.appending(name)))
      }
    }
    push(children)
  }

  private static func describeKey(_ key: Any) -> String? {
    switch key {
    case let text as String: return String(reflecting: text)
    case let text as Substring: return String(reflecting: String(text))
    case let character as Character: return String(reflecting: character)
    case let number as any BinaryInteger: return "\(number)"
    case let flag as Bool: return "\(flag)"
    default:
      let mirror = Mirror(reflecting: key)
      if mirror.displayStyle == .enum, mirror.children.isEmpty { return ".\(key)" }
      return nil
    }
  }

  // MARK: - Closures

  /// A thick function value in its own storage: two words, function and context.
  private mutating func visitFunctionStorage(at address: UnsafeRawPointer, label: PendingLabel) {
    let context = address.load(fromByteOffset: 8, as: UnsafeRawPointer?.self)
    let function = address.load(as: UnsafeRawPointer?.self)
    guard let context else { return }
    addClosure(context: context, function: function, label: label)
  }

  private mutating func addClosure(
    context: UnsafeRawPointer, function: UnsafeRawPointer?, label: PendingLabel
  ) {
    var context = context
    var name = function.flatMap(SymbolNames.functionName(at:))
    // A closure that went through a generic parameter is wrapped in reabstraction thunks whose
    // contexts hold only the real closure: unwrap them (a bounded loop, never recursion).
    for _ in 0..<32 {
      guard name == nil || name?.contains("thunk") == true,
        let inner = ClosureLayout.thunkedFunction(ofContext: context)
      else { break }
      guard let innerContext = inner.load(fromByteOffset: 8, as: UnsafeRawPointer?.self) else { return }
      name = inner.load(as: UnsafeRawPointer?.self).flatMap(SymbolNames.functionName(at:))
      context = innerContext
    }
    let contextObject = Unmanaged<AnyObject>.fromOpaque(context)
    switch Metadata.kind(ofHeapObject: context) {
    case .class:
      // A closure that captures only one class reference uses that object as its context.
      addReference(
        to: contextObject, labelID: nil, label: { PendingLabel(base: "\(label.text) (closure) → capture 0") },
        ownership: .strong)
    default:
      addReference(
        to: contextObject, labelID: nil, label: { PendingLabel(base: "\(label.text) (closure)") },
        ownership: .strong,
        closureName: name ?? "closure at \(TypeNames.short(typeName(of: current))).\(label.text)")
    }
  }

  private mutating func expandClosure(_ id: Int, context address: UnsafeRawPointer) {
    guard let captures = ClosureLayout.captures(ofContext: address) else {
      notes.append("\(typeName(of: id)): closure context layout not recognised; its captures are not shown")
      return
    }
    var children: [(value: Any, label: PendingLabel)] = []
    for (index, capture) in captures.enumerated() {
      let label = PendingLabel(base: "capture \(index)")
      let fieldAddress = address + capture.offset
      switch capture.kind {
      case .value(let type):
        children.append((Existential.load(type, from: fieldAddress), label))
      case .reference(let storage):
        readReference(storage, at: fieldAddress, label: label)
      case .function:
        visitFunctionStorage(at: fieldAddress, label: label)
      case .box(let payload):
        // A captured `var`, or a boxed weak reference: the value lives at box + 16.
        guard let box = fieldAddress.load(as: UnsafeRawPointer?.self) else { continue }
        let inner = box + 16
        switch payload {
        case .value(let type): children.append((Existential.load(type, from: inner), label))
        case .reference(let storage): readReference(storage, at: inner, label: label)
        case .function: visitFunctionStorage(at: inner, label: label)
        case .box: continue
        }
      }
    }
    push(children)
  }

  // MARK: - Nodes and edges

  private mutating func addReference(
    to object: AnyObject, label: PendingLabel, ownership: Ownership, closureName: String? = nil
  ) {
    addReference(
      to: Unmanaged.passUnretained(object), labelID: nil, index: label.index,
      label: { PendingLabel(base: label.base) },
      ownership: ownership, closureName: closureName)
  }

  /// Records a reference from the current node. `labelID` is the interned label when known;
  /// otherwise `label()` gives it (called only when needed). With `adopting`, the caller hands over
  /// one retain of `object`: it becomes the node's, or is released.
  private mutating func addReference(
    to object: Unmanaged<AnyObject>, labelID: Int32?, index: Int32 = -1, label: () -> PendingLabel,
    ownership: Ownership, closureName: String? = nil, adopting: Bool = false
  ) {
    var adopted = adopting
    defer { if adopted { object.release() } }
    if !options.ignoredLabels.isEmpty {
      let text = labelID.map { PendingLabel(base: labels[Int($0)], index: index) }?.text ?? label().text
      let holder = TypeNames.short(typeName(of: current))
      if options.ignoredLabels.contains(text) || options.ignoredLabels.contains("\(holder).\(text)") {
        return
      }
    }
    let address = UInt(bitPattern: object.toOpaque())
    let target: Int
    if let known = identities[address] {
      target = Int(known)
    } else {
      if closureName == nil, !options.ignoredTypeIDs.isEmpty,
        isIgnored(Self.dynamicType(of: UnsafeRawPointer(object.toOpaque())))
      {
        return
      }
      guard let added = addNode(for: object, closureName: closureName, retained: adopted) else { return }
      adopted = false
      target = added
    }
    appendEdge(to: target, labelID: labelID ?? intern(label().base), index: index, ownership: ownership)
  }

  /// Appends an edge from the current node. A label and index too large to pack together get a label
  /// of their own (`items[70000]`).
  private mutating func appendEdge(to target: Int, labelID: Int32, index: Int32, ownership: Ownership) {
    if let edge = CompactEdge(from: current, to: target, label: labelID, index: index, ownership: ownership) {
      edges.append(edge)
      return
    }
    let text = PendingLabel(base: labels[Int(labelID)], index: index).text
    if let edge = CompactEdge(from: current, to: target, label: intern(text), ownership: ownership) {
      edges.append(edge)
    } else {
      isTruncated = true  // more distinct labels than an edge can name: not reachable in practice
    }
  }

  private mutating func addEdge(to target: Int, label: PendingLabel, ownership: Ownership) {
    appendEdge(to: target, labelID: intern(label.base), index: label.index, ownership: ownership)
  }

  /// Adds a node for `object` and keeps it alive for the walk: with `retained`, with the retain the
  /// caller hands over.
  private mutating func addNode(
    for object: Unmanaged<AnyObject>, closureName: String?, retained: Bool = false
  ) -> Int? {
    guard nodeKinds.count < options.maxNodes else {
      isTruncated = true
      return nil
    }
    let id = nodeKinds.count
    let depth = depths.isEmpty ? 0 : depths[current] + 1
    if let closureName {
      appendNode(typeName: closureName, kind: .closure, object: object, depth: depth)
      if retained { object.release() }
    } else {
      let slot = self.slot(for: Self.dynamicType(of: UnsafeRawPointer(object.toOpaque())))
      nodeTypes.append(slot.typeIndex)
      nodeKinds.append(.object)
      keepAlive.append(retained ? object : object.retain())
      if options.maxDepth != nil { depths.append(depth) }
    }
    identities.insert(UInt(bitPattern: object.toOpaque()), Int32(id))
    return id
  }

  private mutating func appendNode(
    typeName: String, kind: Node.Kind, object: Unmanaged<AnyObject>?, depth: Int32
  ) {
    nodeTypes.append(Int32(typeNames.count))
    typeNames.append(typeName)
    nodeKinds.append(kind)
    keepAlive.append(object?.retain())
    if options.maxDepth != nil { depths.append(depth) }
  }

  /// The class of an object, read without retaining it.
  private static func dynamicType(of object: UnsafeRawPointer) -> any Any.Type {
    #if canImport(ObjectiveC)
      // An isa may be tagged or non-pointer: ask the runtime.
      return type(of: Unmanaged<AnyObject>.fromOpaque(object).takeUnretainedValue())
    #else
      // A native Swift object's first word is its class metadata.
      return Metadata.type(at: object.load(as: UnsafeRawPointer.self))
    #endif
  }

  private func typeName(of node: Int) -> String { typeNames[Int(nodeTypes[node])] }

  private mutating func intern(_ label: String) -> Int32 {
    if let known = labelIndex[label] { return known }
    let id = Int32(labels.count)
    labels.append(label)
    labelIndex[label] = id
    return id
  }

  private mutating func slot(for type: any Any.Type) -> TypeSlot {
    let key = ObjectIdentifier(type)
    if let last = lastSlot, last.key == key { return last.slot }
    if let slot = slots[key] {
      lastSlot = (key, slot)
      return slot
    }
    let plan = TypePlans.plan(for: type)
    let typeIndex = Int32(typeNames.count)
    typeNames.append(plan.typeName)
    var fieldLabels: [Int32] = []
    if case .object(let fields) = plan.shape {
      fieldLabels = fields.map { intern($0.name) }
    }
    let slot = TypeSlot(plan: plan, typeIndex: typeIndex, fieldLabels: fieldLabels)
    slots[key] = slot
    lastSlot = (key, slot)
    return slot
  }

  private mutating func isIgnored(_ type: any Any.Type) -> Bool {
    let key = ObjectIdentifier(type)
    if let known = ignored[key] { return known }
    var result = false
    var candidate: (any Any.Type)? = type
    while let checked = candidate {
      if options.ignoredTypeIDs.contains(TypeID(checked)) {
        result = true
        break
      }
      candidate = Metadata.superclass(of: checked)
    }
    ignored[key] = result
    return result
  }
}
