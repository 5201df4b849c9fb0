internal import RetainGraphRuntime

extension Walker {
  /// Reads the fields of a value or object at `base`, in field order: each field's references are
  /// recorded before the next field's, and a value field's whole subtree comes at its place, so the
  /// fast paths and the general path give the same node ids. With `fromObject` (fields read
  /// straight from an object: no prefix), the slot's interned labels of the fields (and of their
  /// elements, for arrays of objects) are used.
  mutating func readFields(
    of slot: Recorder.TypeSlot, base: UnsafeRawPointer, prefix: PendingLabel, fromObject: Bool = false
  ) {
    let plan = slot.plan
    let fields = plan.fields
    let kinds = plan.fieldKinds
    let labelIDs = fromObject ? slot.fieldLabels : nil
    let elementLabelIDs = fromObject ? slot.elementLabels : nil
    // Work is done at once until the first field that must wait for a value's subtree; from then
    // on it is queued in order.
    var queued: [Work] = []
    var queueing = false
    func record(_ work: Work) {
      if queueing { queued.append(work) } else { perform(work) }
    }
    let fastPaths = options.fastPaths
    // Each field is read through its kind (no copy of its plan, no reference counting); its plan
    // only for its name and for the actions the kinds do not tell.
    for position in kinds.indices {
      let kind = kinds[position]
      let address = base + kind.offset
      let labelID = labelIDs?[position]
      func label() -> PendingLabel { prefix.appending(fields[position].name) }
      switch kind.kind {
      case .object where fastPaths, .optionalObject where fastPaths:
        guard let pointer = HeapLayout.object(at: address) else { continue }
        let object = Unmanaged<AnyObject>.fromOpaque(pointer)
        if queueing {
          // Queued work outlives this read, and perhaps the value read from: hold the object.
          queued.append(
            .loaded(
              RetainedReference(retaining: object), labelID: labelID, label: label(), ownership: .strong))
        } else {
          addReference(.borrowed(object), labelID: labelID, label: label, ownership: .strong)
        }
      case .objectArray where fastPaths:
        let elements = HeapLayout.arrayOfObjects(at: address)
        guard !elements.isEmpty else { continue }
        let elementLabelID = elementLabelIDs?[position] ?? recorder.intern(label().element(0)).id
        // The path is made only when needed (queued work, label filters): not per array read.
        let base = queueing ? label() : nil
        // The elements are held by the array's buffer (for the heap census's leak count).
        if storageReading != nil {
          let storage = UInt(bitPattern: HeapLayout.object(at: address))
          if queueing {
            queued.append(.enterStorage(storage))
          } else {
            storageReading?.enter(storage, holder: current, elementsOnly: true)
          }
        }
        for (index, pointer) in elements.enumerated() {
          let element = Unmanaged<AnyObject>.fromOpaque(pointer)
          if let base {
            queued.append(
              .loaded(
                RetainedReference(retaining: element), labelID: elementLabelID, label: base.element(index),
                ownership: .strong))
          } else {
            addReference(
              .borrowed(element), labelID: elementLabelID, index: Int32(truncatingIfNeeded: index),
              label: { label().element(index) }, ownership: .strong)
          }
        }
        if storageReading != nil {
          if queueing { queued.append(.leaveStorage) } else { storageReading?.leave() }
        }
      case .reference(let storage):
        // The common cases first, with no work item: an empty reference (nil) records nothing; a
        // weak reference to an object already in the graph is recorded at once.
        if HeapLayout.isEmptyReference(at: address) { continue }
        if !queueing, let labelID, let known = knownWeakTarget(storage, at: address) {
          appendEdge(to: known, labelID: labelID, index: -1, ownership: .weak)
          continue
        }
        record(loadReference(storage, at: address, labelID: labelID, label: label()))
      case .object, .optionalObject, .objectArray, .other:
        // A value, a closure, a block, a field that cannot be read, or (without the fast paths) a
        // reference read as a value: read from the field's plan.
        let field = fields[position]
        switch field.action {
        case .object, .optionalObject, .objectArray, .value:
          queueing = true
          queued.append(.value(Existential.load(field.type, from: address), label: label()))
        case .inPlace(let type):
          queueing = true
          queued.append(.inPlace(type, at: address, label: label()))
        case .function:
          let function = ThickFunction(at: address)
          guard options.includeClosures, let context = function.context else { continue }
          addOrQueueClosure(function, context: context, label: label(), queueing: queueing, into: &queued)
        case .block:
          guard options.includeClosures, let block = HeapLayout.object(at: address) else { continue }
          guard let function = BlockLayout.swiftClosure(ofBlock: block) else {
            record(
              .note(
                .unreadBlock, type: recorder.typeName(of: current),
                "\(recorder.typeName(of: current)).\(label().text): a block not made from a Swift closure was not read; what it holds is not shown"
              ))
            continue
          }
          guard let context = function.context else { continue }
          addOrQueueClosure(function, context: context, label: label(), queueing: queueing, into: &queued)
        case .reference:
          // Read by `readFields` from the field's kind.
          break
        case .unreadable:
          record(
            .note(
              .unreadField, type: recorder.typeName(of: current),
              "\(recorder.typeName(of: current)).\(label().text): a non-strong reference whose storage is not recognised was not read"
            ))
        case .hidden(let typeName):
          record(
            .note(
              .hiddenType, type: typeName,
              "\(recorder.typeName(of: current)).\(label().text): a value of "
                + (typeName == Metadata.unnamedHiddenType ? typeName : "type \(typeName)")
                + ", which the runtime hides from reflection, was not read; what it holds is not shown"
            ))
        }
      }
    }
    if !queued.isEmpty { push(queued) }
  }

  /// The node of the object a weak reference at `address` refers to, when it is alive and already
  /// in the graph (and so kept alive by the walk): read without loading it strongly.
  func knownWeakTarget(_ storage: ReferenceStorage, at address: UnsafeRawPointer) -> Int? {
    guard storage == .weak, options.fastPaths, WeakPeek.isAvailable,
      !HeapLayout.isEmptyReference(at: address), let target = WeakPeek.liveTarget(at: address)
    else { return nil }
    return recorder.node(at: target)
  }

  /// Reads a weak, unowned or unowned(unsafe) reference now (its storage may not outlive this
  /// call) and returns what to record. `label()` is made only when needed: not for an empty
  /// reference, nor for one whose interned `labelID` is known and that is recorded as an edge.
  mutating func loadReference(
    _ storage: ReferenceStorage, at address: UnsafeRawPointer, labelID: Int32? = nil,
    label makeLabel: @autoclosure () -> PendingLabel
  ) -> Work {
    let ownership: Ownership
    switch storage {
    case .weak: ownership = .weak
    case .unowned: ownership = .unowned
    case .unownedUnsafe: ownership = .unownedUnsafe
    }
    // An empty reference (nil) needs no runtime call.
    if HeapLayout.isEmptyReference(at: address) { return .nothing }
    // With an interned label, the edge needs no path (its index is -1).
    let edgeLabel = labelID == nil ? makeLabel() : .empty
    if let known = knownWeakTarget(storage, at: address) {
      // Already in the graph (and kept alive by the walk): no need to load it strongly.
      return .edge(to: known, labelID: labelID, label: edgeLabel, ownership: .weak)
    }
    switch ReferenceLoader.load(storage, at: address) {
    case .none:
      return .nothing
    case .alive(let object):
      return .loaded(
        RetainedReference(adopting: object), labelID: labelID, label: edgeLabel, ownership: ownership)
    case .dangling:
      return .dangling(label: makeLabel())
    case .address(let raw):
      return .unsafeAddress(raw, label: makeLabel())
    case .unreadable:
      return .note(
        .unreadField, type: recorder.typeName(of: current),
        "\(recorder.typeName(of: current)).\(makeLabel().text): the runtime cannot read this \(ownership.rawValue) reference here"
      )
    }
  }

  /// Records the elements of the `Array` of class instances at `address` (a value being walked,
  /// which keeps them alive meanwhile), in order, as the general path through `Mirror` would.
  mutating func readObjectArray(at address: UnsafeRawPointer, label: PendingLabel) {
    let elements = HeapLayout.arrayOfObjects(at: address)
    guard !elements.isEmpty else { return }
    storageReading?.enter(
      UInt(bitPattern: HeapLayout.object(at: address)), holder: current, elementsOnly: true)
    defer { storageReading?.leave() }
    let elementLabelID = recorder.intern(label.element(0)).id
    for (index, pointer) in elements.enumerated() {
      addReference(
        .borrowed(Unmanaged<AnyObject>.fromOpaque(pointer)), labelID: elementLabelID,
        index: Int32(truncatingIfNeeded: index), label: { label.element(index) }, ownership: .strong)
    }
  }

  /// A closure stored in a field: added now, or queued behind the fields queued before it (so that
  /// edges keep the fields' order).
  private mutating func addOrQueueClosure(
    _ function: ThickFunction, context: UnsafeRawPointer, label: PendingLabel, queueing: Bool,
    into queued: inout [Work]
  ) {
    if queueing {
      queued.append(
        .closure(
          context: RetainedReference(retaining: Unmanaged.fromOpaque(context)), function: function.function,
          label: label))
    } else {
      addClosure(function, label: label)
    }
  }
}
