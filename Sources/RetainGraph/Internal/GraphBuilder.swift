/// Walks the object graph from a root, iteratively, and records nodes, edges and findings.
struct GraphBuilder {
  let options: GraphOptions

  private(set) var nodes: [Node] = []
  private(set) var edges: [Edge] = []
  private(set) var isTruncated = false
  private(set) var dangling: [DanglingReference] = []
  private(set) var notes: [String] = []

  /// Node id by object address. Every object stays alive (in `keepAlive`) until the walk ends, so
  /// an address cannot be reused for another object meanwhile.
  private var identities: [UInt: Node.ID] = [:]
  private var keepAlive: [AnyObject?] = []
  private var depths: [Int] = []
  /// Objects whose references are still to be followed, in discovery order (breadth-first).
  private var pending: [Node.ID] = []
  /// Values still to be walked for the node being expanded.
  private var values: [(value: Any, label: String)] = []
  private var unsafeReferences: [(holder: Node.ID, label: String, address: UInt)] = []
  private var plans: [ObjectIdentifier: TypePlan] = [:]
  private var ignored: [ObjectIdentifier: Bool] = [:]
  private var current: Node.ID = 0

  init(options: GraphOptions) {
    self.options = options
  }

  // MARK: - The walk

  /// Walks from `root`. With `keepingObjects`, the objects stay referenced by ``objects`` afterwards.
  mutating func walk(_ root: Any, keepingObjects: Bool = false) {
    let unwrapped = Self.unwrapOptionals(root)
    addRoot(unwrapped)
    var head = 0
    while head < pending.count {
      let id = pending[head]
      head += 1
      expand(id)
    }
    for reference in unsafeReferences {
      if let target = identities[reference.address] {
        addEdge(from: reference.holder, to: target, label: reference.label, ownership: .unownedUnsafe)
      }
    }
    if !keepingObjects { keepAlive.removeAll() }
  }

  /// The object of each node (nil for a value root and for closure contexts), after a walk that
  /// kept them.
  var objects: [AnyObject?] {
    keepAlive.indices.map { nodes[$0].kind == .object ? keepAlive[$0] : nil }
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
      let object = root as AnyObject
      _ = addNode(for: object, depth: 0)
      return
    }
    nodes.append(Node(id: 0, typeName: TypeNames.qualified(rootType), kind: .value))
    keepAlive.append(nil)
    depths.append(0)
    current = 0
    values.append((root, ""))
    drainValues()
  }

  /// Follows the references held by node `id`.
  private mutating func expand(_ id: Node.ID) {
    guard let object = keepAlive[id] else { return }
    current = id
    if nodes[id].kind == .closure {
      expandClosure(id, context: object)
      drainValues()
      return
    }
    let plan = self.plan(for: type(of: object))
    if let maxDepth = options.maxDepth, depths[id] >= maxDepth {
      if case .object(let fields) = plan.shape, !fields.isEmpty { isTruncated = true }
      if plan.isCustom { isTruncated = true }
      return
    }
    if let custom = object as? any GraphReflectable {
      walkCustom(custom, prefix: "")
    } else if case .object(let fields) = plan.shape {
      let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
      readFields(fields, base: base, prefix: "")
    }
    drainValues()
  }

  private mutating func drainValues() {
    while let (value, label) = values.popLast() {
      if isTruncated && nodes.count >= options.maxNodes { values.removeAll(); return }
      visit(value, label: label)
    }
  }

  /// Pushes values so that they are visited in the order given.
  private mutating func push(_ children: [(value: Any, label: String)]) {
    values.append(contentsOf: children.reversed())
  }

  private mutating func visit(_ value: Any, label: String) {
    visitOpened(value, label: label)
  }

  private mutating func visitOpened<T>(_ value: T, label: String) {
    if Metadata.kind(of: T.self) == .existential {
      // A value loaded from an existential-typed field (`Any`, `any P`, `AnyObject`) is boxed with
      // its static type: look inside the container (pushed, so nesting never recurses).
      let projected = withUnsafePointer(to: value) { Existential.project(T.self, at: UnsafeRawPointer($0)) }
      if let projected { values.append((projected, label)) }
      return
    }
    let plan = self.plan(for: T.self)
    if options.ignoredTypeIDs.isEmpty == false, isIgnored(T.self) { return }
    switch plan.shape {
    case .object:
      addReference(to: value as AnyObject, label: label, ownership: .strong)
    case .leaf where !plan.isCustom:
      return
    case _ where plan.isCustom:
      if let custom = value as? any GraphReflectable { walkCustom(custom, prefix: label) }
    case .leaf:
      return
    case .fields(let fields):
      withUnsafePointer(to: value) { pointer in
        readFields(fields, base: UnsafeRawPointer(pointer), prefix: label)
      }
    case .function:
      guard options.includeClosures else { return }
      withUnsafePointer(to: value) { pointer in
        visitFunction(at: UnsafeRawPointer(pointer), type: T.self, label: label)
      }
    case .mirror:
      visitMirror(of: value, label: label)
    }
  }

  private mutating func walkCustom(_ custom: any GraphReflectable, prefix: String) {
    var strongChildren: [(value: Any, label: String)] = []
    for child in custom.graphChildren {
      let label = Self.join(prefix, child.label)
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

  private mutating func readFields(_ fields: [FieldPlan], base: UnsafeRawPointer, prefix: String) {
    var children: [(value: Any, label: String)] = []
    for field in fields {
      let address = base + field.offset
      let label = Self.join(prefix, field.name)
      switch field.action {
      case .object:
        let raw = address.load(as: UnsafeRawPointer.self)
        addReference(
          to: Unmanaged<AnyObject>.fromOpaque(raw).takeUnretainedValue(), label: label, ownership: .strong)
      case .optionalObject:
        if let raw = address.load(as: UnsafeRawPointer?.self) {
          addReference(
            to: Unmanaged<AnyObject>.fromOpaque(raw).takeUnretainedValue(), label: label, ownership: .strong)
        }
      case .function:
        if options.includeClosures {
          visitFunctionStorage(at: address, label: label)
        }
      case .value(let type):
        children.append((Existential.load(type, from: address), label))
      case .reference(let storage):
        readReference(storage, at: address, label: label)
      case .unreadable:
        notes.append(
          "\(nodes[current].shortTypeName).\(label): a non-strong reference whose storage is not recognised was not read"
        )
      }
    }
    push(children)
  }

  private mutating func readReference(
    _ storage: ReferenceStorage, at address: UnsafeRawPointer, label: String
  ) {
    let ownership: Ownership
    switch storage {
    case .weak: ownership = .weak
    case .unowned: ownership = .unowned
    case .unownedUnsafe: ownership = .unownedUnsafe
    }
    switch ReferenceLoader.load(storage, at: address) {
    case .none:
      return
    case .alive(let object):
      addReference(to: object, label: label, ownership: ownership)
    case .dangling:
      dangling.append(DanglingReference(holder: current, label: label))
    case .address(let raw):
      unsafeReferences.append((current, label, raw))
    case .unreadable:
      notes.append(
        "\(nodes[current].shortTypeName).\(label): the runtime cannot read this \(ownership.rawValue) reference here"
      )
    }
  }

  // MARK: - Mirror

  private mutating func visitMirror(of value: Any, label: String) {
    let mirror = Mirror(reflecting: value)
    var children: [(value: Any, label: String)] = []
    switch mirror.displayStyle {
    case .optional:
      if let child = mirror.children.first { children.append((child.value, label)) }
    case .collection, .set:
      for (index, child) in mirror.children.enumerated() {
        children.append((child.value, "\(label)[\(index)]"))
      }
    case .dictionary:
      for (index, child) in mirror.children.enumerated() {
        let pair = Array(Mirror(reflecting: child.value).children)
        guard pair.count == 2 else { continue }
        let key = Self.describeKey(pair[0].value) ?? "#\(index)"
        children.append((pair[1].value, "\(label)[\(key)]"))
        children.append((pair[0].value, "\(label)[\(key)].key"))
      }
    case .enum:
      for child in mirror.children {
        children.append((child.value, Self.join(label, child.label ?? "payload")))
      }
    default:
      for (index, child) in mirror.children.enumerated() {
        var name = child.label ?? "[\(index)]"
        if name.hasPrefix(".") { name.removeFirst() }
        children.append((child.value, Self.join(label, name)))
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

  /// A function value stored in a concrete function-typed field: two words, function and context.
  private mutating func visitFunctionStorage(at address: UnsafeRawPointer, label: String) {
    let context = address.load(fromByteOffset: 8, as: UnsafeRawPointer?.self)
    let function = address.load(as: UnsafeRawPointer?.self)
    guard let context else { return }
    addClosure(context: context, function: function, label: label)
  }

  /// A function value reached through a generic parameter (a collection, `Any`, an enum payload).
  private mutating func visitFunction(at address: UnsafeRawPointer, type: any Any.Type, label: String) {
    guard ClosureLayout.isThick(type) else { return }
    visitFunctionStorage(at: address, label: label)
  }

  private mutating func addClosure(context: UnsafeRawPointer, function: UnsafeRawPointer?, label: String) {
    var context = context
    var function = function
    // A closure that went through a generic parameter is wrapped in reabstraction thunks whose
    // contexts hold only the real closure: unwrap them (a bounded loop, never recursion).
    for _ in 0..<32 {
      let name = function.flatMap(ClosureLayout.functionName)
      guard name == nil || name?.contains("thunk") == true,
        let inner = ClosureLayout.thunkedFunction(ofContext: context)
      else { break }
      guard let innerContext = inner.load(fromByteOffset: 8, as: UnsafeRawPointer?.self) else { return }
      function = inner.load(as: UnsafeRawPointer?.self)
      context = innerContext
    }
    let contextObject = Unmanaged<AnyObject>.fromOpaque(context).takeUnretainedValue()
    switch Metadata.kind(ofHeapObject: context) {
    case .class:
      // A closure that captures only one class reference uses that object as its context.
      addReference(to: contextObject, label: "\(label) (closure) → capture 0", ownership: .strong)
    default:
      let name =
        function.flatMap(ClosureLayout.functionName) ?? "closure at \(nodes[current].shortTypeName).\(label)"
      addReference(
        to: contextObject, label: "\(label) (closure)", ownership: .strong, closureName: name)
    }
  }

  private mutating func expandClosure(_ id: Node.ID, context: AnyObject) {
    let address = UnsafeRawPointer(Unmanaged.passUnretained(context).toOpaque())
    guard let captures = ClosureLayout.captures(ofContext: address) else {
      notes.append("\(nodes[id].typeName): closure context layout not recognised; its captures are not shown")
      return
    }
    var children: [(value: Any, label: String)] = []
    for (index, capture) in captures.enumerated() {
      let label = "capture \(index)"
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
    to object: AnyObject, label: String, ownership: Ownership, closureName: String? = nil
  ) {
    if !options.ignoredLabels.isEmpty {
      let holder = nodes[current].shortTypeName
      if options.ignoredLabels.contains(label) || options.ignoredLabels.contains("\(holder).\(label)") {
        return
      }
    }
    if closureName == nil, !options.ignoredTypeIDs.isEmpty, isIgnored(type(of: object)) { return }
    let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
    let target: Node.ID
    if let known = identities[address] {
      target = known
    } else if let added = addNode(for: object, depth: depths[current] + 1, closureName: closureName) {
      target = added
    } else {
      return
    }
    addEdge(from: current, to: target, label: label, ownership: ownership)
  }

  private mutating func addNode(for object: AnyObject, depth: Int, closureName: String? = nil) -> Node.ID? {
    guard nodes.count < options.maxNodes else {
      isTruncated = true
      return nil
    }
    let id = nodes.count
    let typeName = closureName ?? plan(for: type(of: object)).typeName
    nodes.append(Node(id: id, typeName: typeName, kind: closureName == nil ? .object : .closure))
    identities[UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())] = id
    keepAlive.append(object)
    depths.append(depth)
    pending.append(id)
    return id
  }

  private mutating func addEdge(from: Node.ID, to: Node.ID, label: String, ownership: Ownership) {
    edges.append(Edge(from: from, to: to, label: label, ownership: ownership))
  }

  private mutating func plan(for type: any Any.Type) -> TypePlan {
    let key = ObjectIdentifier(type)
    if let plan = plans[key] { return plan }
    let plan = TypePlans.plan(for: type)
    plans[key] = plan
    return plan
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

  private static func join(_ prefix: String, _ name: String) -> String {
    prefix.isEmpty ? name : "\(prefix).\(name)"
  }
}
