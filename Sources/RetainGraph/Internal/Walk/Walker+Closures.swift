internal import RetainGraphRuntime

extension Walker {
  /// Records a stored closure: an edge to its context, which is the captured object itself when the
  /// closure captures one class reference and nothing else, or a closure node otherwise.
  mutating func addClosure(_ stored: ThickFunction, label: PendingLabel) {
    guard let (closure, name) = ClosureLayout.unwrappingThunks(stored), let context = closure.context else {
      return
    }
    if name == nil, !SymbolNames.readsImages { noteWithoutReaders(.unnamedFunctions) }
    let contextObject = Unmanaged<AnyObject>.fromOpaque(context)
    // The reabstraction thunks' contexts hold the closure (for the heap census's leak count).
    let thunks = storageReading == nil ? [] : Self.thunkContexts(from: stored, to: context)
    for thunk in thunks {
      storageReading?.enter(UInt(bitPattern: thunk), holder: current, elementsOnly: false)
    }
    defer { for _ in thunks { storageReading?.leave() } }
    switch Metadata.kind(ofHeapObject: context) {
    case .class:
      // A closure that captures only one class reference uses that object as its context; a
      // method reference (`completion = handleResponse`) is such a closure.
      if let name, let function = closure.function,
        let method = MethodReference.method(
          closureName: name, objectType: TypeNames.qualified(HeapLayout.dynamicType(ofObject: context)),
          callees: { SymbolNames.directCallees(ofFunctionAt: function, following: MethodReference.isThunk) },
          inlined: { MethodReference.optimisedCandidates(ofFunctionAt: function) })
      {
        addReference(
          .borrowed(contextObject), labelID: nil, label: { label }, ownership: .strong,
          closure: .methodReference(method: method))
        return
      }
      addReference(
        .borrowed(contextObject), labelID: nil, label: { label }, ownership: .strong,
        closure: .singleCapture(function: name))
    default:
      addReference(
        .borrowed(contextObject), labelID: nil, label: { label }, ownership: .strong,
        closure: .context(function: name),
        closureName: name
          ?? "\(Walker.unnamedClosurePrefix)\(TypeNames.short(recorder.typeName(of: current))).\(label.text)")
    }
  }

  /// How a closure the walk could not name begins its name, before where it is stored.
  static let unnamedClosurePrefix = "closure at "

  /// The contexts of the reabstraction thunks `ClosureLayout.unwrappingThunks` looked through from
  /// `stored` to the closure whose context is `target`, outermost first (none when the chain is not
  /// found again).
  private static func thunkContexts(from stored: ThickFunction, to target: UnsafeRawPointer)
    -> [UnsafeRawPointer]
  {
    var contexts: [UnsafeRawPointer] = []
    var context = stored.context
    while let outer = context, outer != target, contexts.count < 32 {
      contexts.append(outer)
      context = ClosureLayout.thunkedFunction(ofContext: outer)?.context
    }
    return context == target ? contexts : []
  }

  /// Follows the captures of the closure context at `context` (the current node).
  mutating func expandClosure(context: UnsafeRawPointer) {
    guard let captures = ClosureLayout.captures(ofContext: context) else {
      note(
        .unrecognisedClosure, type: recorder.typeName(of: current),
        "\(recorder.typeName(of: current)): closure context layout not recognised; its captures are not shown"
      )
      return
    }
    var children: [(value: Any, label: PendingLabel)] = []
    for (index, capture) in captures.enumerated() {
      let label = PendingLabel.capture(index)
      var address = context + capture.offset
      var kind = capture.kind
      if case .box(let payload) = kind {
        // A captured `var`, or a boxed weak reference: read the payload inside the box.
        guard let inner = HeapLayout.boxPayload(at: address) else { continue }
        address = inner
        kind = payload
      }
      switch kind {
      case .value(let type):
        // An actor-isolated closure holds its actor as its isolation too, typed `(any Actor)?`.
        let isIsolation = type == Optional<any Actor>.self || type == (any Actor).self
        children.append(
          (Existential.load(type, from: address), isIsolation ? .isolationCapture(index) : label))
      case .reference(let storage):
        perform(loadReference(storage, at: address, label: label))
      case .function:
        addClosure(ThickFunction(at: address), label: label)
      case .box:
        continue  // a box in a box: not made by the compiler
      }
    }
    push(children)
  }
}
