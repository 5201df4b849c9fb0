internal import RetainGraphRuntime

/// One step of the walk, queued so that references are recorded in field order.
enum Work {
  /// A value to walk.
  case value(Any, label: PendingLabel)
  /// A reference read while its storage was readable; performing (or dropping) this work hands its
  /// retain over or releases it.
  case loaded(RetainedReference, labelID: Int32?, label: PendingLabel, ownership: Ownership)
  /// A reference to a node already in the graph.
  case edge(to: Int, labelID: Int32?, label: PendingLabel, ownership: Ownership)
  /// A stored closure: its context (retained, owned by this work) and function.
  case closure(context: RetainedReference, function: UnsafeRawPointer?, label: PendingLabel)
  /// An `unowned` reference whose object was already deinitialised.
  case dangling(label: PendingLabel)
  /// An `unowned(unsafe)` reference: drawn only if its address turns out to be a node's.
  case unsafeAddress(UInt, label: PendingLabel)
  /// A noncopyable value to walk where it is stored (in an object the walk keeps alive).
  case inPlace(any Any.Type, at: UnsafeRawPointer, label: PendingLabel)
  /// A value a ``GraphReflectable`` value described as its child, `nesting` such values deep.
  case customValue(any GraphReflectable, label: PendingLabel, nesting: Int)
  /// Something the walk could not read: its kind, the type not read, and a sentence naming where.
  case note(GraphNote.Kind, type: String, String)
  /// Nothing to record (an empty reference).
  case nothing
  /// The start of an array of objects' buffer the walk reads through (`StorageReading`).
  case enterStorage(UInt)
  /// The end of a collection's storage the walk read through (`StorageReading`).
  case leaveStorage

  /// Releases the retain this work owns, if any, without performing it.
  func drop() {
    switch self {
    case .loaded(let reference, _, _, _), .closure(let reference, _, _): reference.release()
    default: break
    }
  }
}

/// Walks the object graph from a root, breadth-first and iteratively, and returns what it found
/// as a ``WalkResult``. Nodes and edges are recorded by a ``Recorder``; this type decides what to
/// read. Its concerns are split by file: the loop (here), stored fields (`+Fields`), the Mirror
/// fallback (`+Mirror`), closures (`+Closures`), and adding references (`+References`).
///
/// The walk reads objects other threads may change: it requires that nothing mutates what it
/// reaches while it runs.
struct Walker {
  let options: GraphOptions
  var recorder: Recorder
  var isTruncated = false
  var dangling: [DanglingReference] = []
  var notes: [GraphNote] = []
  /// Every note recorded, with its holder's type, so that each is recorded once per holder type
  /// (per closure function, per type).
  private var noted: Set<[String]> = []
  /// Per holder type, its superclasses (nearest first) with their stored properties, for the
  /// reference patterns (`Walker+References.swift`); made only when patterns are given.
  var patternSuperclasses: [String: [(name: String, fields: Set<String>)]] = [:]
  /// Whether a truncation note was made for `maxDepth`, for `maxNodes`.
  private var cutByDepth = false
  /// The values ``GraphReflectable`` values described so far (at most `maxNodes`).
  var customValueCount = 0
  private var cutByCount = false
  /// The node whose references are being read.
  var current = 0
  /// Work still to be done for the node being expanded (a stack: the last item is next).
  var pending: [Work] = []
  var unsafeReferences: [(holder: Int, label: PendingLabel, address: UInt)] = []
  /// Words of key paths' subscript arguments: strong edges to the nodes they equal, once every
  /// node is known (never dereferenced).
  var keyPathWords: [(holder: Int, label: PendingLabel, address: UInt)] = []
  /// Task nodes found suspended: their frames are read once every node is known.
  var suspendedTasks: [Int] = []
  private var ignoredTypes: [ObjectIdentifier: Bool] = [:]
  /// Dispatch sources' handlers, read while the heap census runs (nil otherwise).
  var dispatchSources = DispatchSourceHandlers.forWalk()
  /// Which heap object holds each reference, for the heap census's leak count (nil: not kept).
  var storageReading: StorageReading?

  init(options: GraphOptions) {
    self.options = options
    recorder = Recorder(tracksDepth: options.maxDepth != nil)
  }

  // MARK: - The loop

  /// Walks from `root`. With `keepingObjects`, the result holds every node's object (and, with
  /// `keepingContexts`, every closure context's).
  mutating func walk(_ root: Any, keepingObjects: Bool = false, keepingContexts: Bool = false) -> WalkResult {
    addRoot(Self.unwrapOptionals(root))
    // Nodes are expanded in the order they were found: breadth-first.
    var next = recorder.nodeKinds.first == .value ? 1 : 0
    while next < recorder.nodeCount {
      expand(next)
      next += 1
    }
    for reference in unsafeReferences {
      if let target = recorder.node(at: reference.address) {
        current = reference.holder
        appendEdge(to: target, label: reference.label, ownership: .unownedUnsafe)
      }
    }
    // Edges from here on are words equal to an address (conservative), never counted as held.
    storageReading?.isConservative = true
    for word in keyPathWords {
      if let target = nodeForWord(word.address) {
        current = word.holder
        appendEdge(to: target, label: word.label, ownership: .strong)
      }
    }
    linkSuspendedFrames()
    let (storage, objects, objectAddresses) = recorder.finish(
      keepingObjects: keepingObjects, keepingContexts: keepingContexts)
    return WalkResult(
      storage: storage, isTruncated: isTruncated, danglingReferences: dangling, notes: notes,
      objects: objects,
      objectAddresses: objectAddresses)
  }

  /// The node of the object whose address a word equals (a conservative reference): a node of
  /// the walk, or an object whose references are counted elsewhere (`StorageReading`), which the
  /// caller holds and which is added as a node now, never expanded.
  mutating func nodeForWord(_ word: UInt) -> Int? {
    if let node = recorder.node(at: word) { return node }
    guard let counted = storageReading?.isCountedElsewhere, counted(word),
      let pointer = UnsafeRawPointer(bitPattern: word)
    else { return nil }
    return addNode(for: .borrowed(Unmanaged.fromOpaque(pointer)))
  }

  /// The value inside an error existential, with its own type.
  private static func open<E: Error>(_ error: E) -> Any { error }

  static func unwrapOptionals(_ value: Any) -> Any {
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
      _ = addNode(for: .borrowed(Unmanaged.passUnretained(root as AnyObject)))
      return
    }
    _ = recorder.addNode(typeName: TypeNames.qualified(rootType), kind: .value, object: nil, depth: 0)
    current = 0
    pending.append(.value(root, label: .empty))
    drainPending()
  }

  /// Follows the references held by node `id`.
  private mutating func expand(_ id: Int) {
    guard let object = recorder.object(of: id) else { return }
    current = id
    let base = UnsafeRawPointer(object.toOpaque())
    if recorder.nodeKinds[id] == .closure {
      expandClosure(context: base)
      drainPending()
      return
    }
    if recorder.nodeKinds[id] == .task {
      expandTask(base)
      drainPending()
      return
    }
    if let counted = storageReading?.isCountedElsewhere, counted(UInt(bitPattern: base)) { return }
    // The slot is used unretained: the recorder keeps it for the whole walk.
    recorder.unretainedSlot(for: HeapLayout.dynamicType(ofObject: base))._withUnsafeGuaranteedRef { slot in
      if let maxDepth = options.maxDepth, recorder.depth(of: id) >= maxDepth {
        if case .object(let fields) = slot.plan.shape, !fields.isEmpty { noteTruncation(byDepth: true) }
        if slot.plan.isCustom { noteTruncation(byDepth: true) }
        return
      }
      if let note = slot.plan.note { self.note(slot.plan.noteKind, type: slot.plan.typeName, note) }
      if slot.plan.isCustom, let custom = object.takeUnretainedValue() as? any GraphReflectable {
        walkCustom(custom, prefix: .empty)
      } else if !slot.plan.fieldKinds.isEmpty {
        // An object's plan has fields only when its shape is `.object`.
        readFields(of: slot, base: base, prefix: .empty, fromObject: true)
      }
      if slot.plan.isKeyPath { readKeyPathArguments(of: base, typeName: slot.plan.typeName) }
      if dispatchSources != nil { addDispatchSourceHandlers(of: base) }
      if !pending.isEmpty { drainPending() }
    }
  }

  private mutating func drainPending() {
    while let work = pending.popLast() {
      if isTruncated && recorder.nodeCount >= options.maxNodes {
        work.drop()
        for item in pending { item.drop() }
        pending.removeAll()
        return
      }
      perform(work)
    }
  }

  /// Pushes values so that they are visited in the order given.
  mutating func push(_ children: [(value: Any, label: PendingLabel)]) {
    pending.append(contentsOf: children.reversed().map { Work.value($0.value, label: $0.label) })
  }

  /// Pushes work so that it is done in the order given.
  mutating func push(_ work: [Work]) {
    pending.append(contentsOf: work.reversed())
  }

  mutating func perform(_ work: Work) {
    switch work {
    case .value(let value, let label):
      visitOpened(value, label: label)
    case .loaded(let reference, let labelID, let label, let ownership):
      addReference(owning: reference, labelID: labelID, label: label, ownership: ownership)
    case .edge(let target, let labelID, let label, let ownership):
      if let labelID {
        appendEdge(to: target, labelID: labelID, index: label.index, ownership: ownership)
      } else {
        appendEdge(to: target, label: label, ownership: ownership)
      }
    case .closure(let context, let function, let label):
      addClosure(ThickFunction(function: function, context: context.pointer), label: label)
      context.release()
    case .dangling(let label):
      dangling.append(DanglingReference(holder: current, label: label.text))
    case .unsafeAddress(let address, let label):
      unsafeReferences.append((current, label, address))
    case .inPlace(let type, let address, let label):
      visitInPlace(type, at: address, label: label)
    case .customValue(let custom, let label, let nesting):
      walkCustomValue(custom, label: label, nesting: nesting)
    case .note(let kind, let type, let note):
      self.note(kind, type: type, note)
    case .nothing:
      break
    case .enterStorage(let storage):
      storageReading?.enter(storage, holder: current, elementsOnly: true)
    case .leaveStorage:
      storageReading?.leave()
    }
  }

  // MARK: - Values

  private mutating func visitOpened<T>(_ value: T, label: PendingLabel) {
    if Metadata.kind(of: T.self) == .existential {
      // A value loaded from an existential-typed field (`Any`, `any P`, `AnyObject`) is boxed with
      // its static type: look inside the container (pushed, so nesting never recurses).
      if let projected = withUnsafePointer(
        to: value, { Existential.project(T.self, at: UnsafeRawPointer($0)) })
      {
        pending.append(.value(projected, label: label))
      } else if let error = value as? any Error {
        // An `any Error` box: opened by the language, which hands over the boxed value.
        pending.append(.value(Self.open(error), label: label))
      } else if Existential.representation(of: T.self) == .unknown {
        note(
          .unreadValue, type: TypeNames.qualified(T.self),
          "\(TypeNames.qualified(T.self)): values of this existential type cannot be opened; what they hold is not shown"
        )
      }
      return
    }
    let slot = recorder.slot(for: T.self)
    let plan = slot.plan
    if options.ignoresTypes, isIgnored(T.self) { return }
    if plan.isCustom, Metadata.kind(of: T.self) != .class {
      if let custom = value as? any GraphReflectable { walkCustomValue(custom, label: label, nesting: 0) }
      return
    }
    switch plan.shape {
    case .object:
      addReference(borrowing: value as AnyObject, label: label, ownership: .strong)
    case .leaf:
      return
    case .fields:
      withUnsafePointer(to: value) { pointer in
        readFields(of: slot, base: UnsafeRawPointer(pointer), prefix: label)
      }
    case .function:
      guard options.includeClosures else { return }
      withUnsafePointer(to: value) { pointer in
        addClosure(ThickFunction(at: UnsafeRawPointer(pointer)), label: label)
      }
    case .nativeObject:
      withUnsafePointer(to: value) { addNativeObject(at: UnsafeRawPointer($0), label: label) }
    case .objectArray:
      guard options.fastPaths else { return visitMirror(of: value, label: label) }
      withUnsafePointer(to: value) { readObjectArray(at: UnsafeRawPointer($0), label: label) }
    case .mirror:
      visitMirror(of: value, label: label)
    case .storedPayload:
      let enumLabel = label.enumValue(T.self)
      push(RuntimeReflection.children(of: value).map { ($0.value, enumLabel.payload($0.label ?? "payload")) })
    case .rawLayout(let like):
      withUnsafePointer(to: value) { visitInPlace(like, at: UnsafeRawPointer($0), label: label) }
    case .unreadable:
      if let note = plan.note { self.note(plan.noteKind, type: plan.typeName, note) }
    }
  }

  /// Walks a value where it is stored, without copying it unless it is copyable: a noncopyable
  /// struct field by field, a raw-layout cell as the value it holds.
  mutating func visitInPlace(_ type: any Any.Type, at address: UnsafeRawPointer, label: PendingLabel) {
    let slot = recorder.slot(for: type)
    let plan = slot.plan
    switch plan.shape {
    case .leaf:
      return
    case .fields:
      readFields(of: slot, base: address, prefix: label)
    case .rawLayout(let like):
      if Metadata.isNoncopyable(like) {
        pending.append(.inPlace(like, at: address, label: label))
      } else {
        pending.append(.value(Existential.load(like, from: address), label: label))
      }
    case .unreadable:
      if let note = plan.note { self.note(plan.noteKind, type: plan.typeName, note) }
    case .object, .mirror, .storedPayload, .function, .nativeObject, .objectArray:
      // Shapes read from a copy of the value (`visitOpened`): a noncopyable one cannot be copied.
      if Metadata.isNoncopyable(type) {
        note(
          .unreadValue, type: plan.typeName,
          "\(plan.typeName): a noncopyable value of this shape is not read; what it holds is not shown")
      } else {
        pending.append(.value(Existential.load(type, from: address), label: label))
      }
    }
  }

  /// Records a note about the node being expanded, once per walk and holder type.
  mutating func note(_ kind: GraphNote.Kind, type: String, _ text: String) {
    let holderType = recorder.nodeCount == 0 ? "" : recorder.typeName(of: current)
    if noted.insert([text, holderType]).inserted {
      notes.append(
        GraphNote(
          kind: kind, node: recorder.nodeCount == 0 ? nil : current, typeName: type, description: text))
    }
  }

  /// Notes, once per walk, on the node being expanded, what this build reads without its binary
  /// readers (the package trait `BinaryReaders` off): `.unnamedFunctions` when a closure or task
  /// found no name (`SymbolNames.readsImages`), `.conservativeFrames` when a suspended frame's
  /// word counted as a reference with no liveness read (`TaskLayout.readsFrameLiveness`).
  mutating func noteWithoutReaders(_ kind: GraphNote.Kind) {
    guard noted.insert([kind.rawValue]).inserted else { return }
    let text =
      kind == .unnamedFunctions
      ? "closures and functions are not named: this build does not read its binaries' symbol tables "
        + "(package trait BinaryReaders off); a closure is named after where it is stored"
      : "suspended tasks' frames are read without liveness: this build does not read machine code or debug "
        + "information (package trait BinaryReaders off); every frame word equal to an object counts as a reference"
    notes.append(
      GraphNote(kind: kind, node: recorder.nodeCount == 0 ? nil : current, typeName: "", description: text))
  }

  /// Marks the walk truncated and notes where the first cut of each limit was (the node being
  /// expanded): `maxDepth` when `byDepth`, `maxNodes` otherwise.
  mutating func noteTruncation(byDepth: Bool) {
    isTruncated = true
    // One note per limit, at its first cut.
    guard !(byDepth ? cutByDepth : cutByCount) else { return }
    if byDepth { cutByDepth = true } else { cutByCount = true }
    let name = recorder.nodeCount == 0 ? "" : recorder.typeName(of: current)
    if byDepth {
      note(
        .truncated, type: name,
        "the walk stopped at maxDepth (\(options.maxDepth ?? 0)): the references of \(name) and of other objects "
          + "that far from the root were not followed")
    } else {
      note(
        .truncated, type: name,
        "the walk stopped at maxNodes (\(options.maxNodes) nodes): from \(name) on, references to objects "
          + "not yet seen were not followed")
    }
  }

  /// Whether `type` or one of its superclasses is among the ignored types (cached per type).
  mutating func isIgnored(_ type: any Any.Type) -> Bool {
    let key = ObjectIdentifier(type)
    if let known = ignoredTypes[key] { return known }
    var result = false
    var candidate: (any Any.Type)? = type
    while let checked = candidate {
      if options.ignoredTypeIDs.contains(TypeID(checked))
        || (!options.ignoredNamePatterns.isEmpty
          && options.ignoredNamePatterns.contains { $0.matches(qualifiedName: TypeNames.qualified(checked)) })
      {
        result = true
        break
      }
      candidate = Metadata.superclass(of: checked)
    }
    ignoredTypes[key] = result
    return result
  }
}
