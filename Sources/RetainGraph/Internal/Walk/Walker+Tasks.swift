internal import RetainGraphProcess
internal import RetainGraphRuntime

extension Walker {
  /// Records the one-word strong reference stored at `address` (`Task`, `UnsafeCurrentTask`,
  /// `Builtin.NativeObject`): an edge to a task node when it is a task, to the object otherwise.
  mutating func addNativeObject(at address: UnsafeRawPointer, label: PendingLabel) {
    guard let object = HeapLayout.object(at: address) else { return }
    if TaskLayout.isTask(object) {
      addTask(object, label: label)
    } else if Metadata.kind(ofHeapObject: object) == .class {
      addReference(
        .borrowed(Unmanaged.fromOpaque(object)), labelID: nil, label: { label }, ownership: .strong)
    } else if let reason = TaskLayout.unavailableReason {
      note(
        .unreadTask, type: "task",
        "\(recorder.typeName(of: current)).\(label.text): a task, not read: \(reason)")
    } else {
      note(
        .unreadValue, type: "Builtin.NativeObject",
        "\(recorder.typeName(of: current)).\(label.text): a native reference to a runtime object that is neither a task nor a class instance was not read"
      )
    }
  }

  /// Records a reference to the task at `task` (kept alive by its holder), adding its node.
  private mutating func addTask(_ task: UnsafeRawPointer, label: PendingLabel) {
    if let known = recorder.node(at: UInt(bitPattern: task)) {
      appendEdge(to: known, label: label, ownership: .strong)
      return
    }
    guard recorder.nodeCount < options.maxNodes else {
      noteTruncation(byDepth: false)
      return
    }
    let name: String
    if let state = TaskLayout.state(of: task) {
      if state.isComplete {
        name = "task (finished)"
      } else if state.isRunning {
        name = "task (running)"
      } else if state.isAsyncLet {
        // Its entry is the runtime's thunk, whose context lives in the parent's frames.
        name = "task (async let)"
      } else if let operation = state.operation,
        let (_, closureName) = ClosureLayout.unwrappingThunks(operation)
      {
        if closureName == nil, !SymbolNames.readsImages { noteWithoutReaders(.unnamedFunctions) }
        name = Advice.taskName(closure: closureName)
      } else {
        name = "task"
      }
    } else {
      name = "task"
      note(
        .unreadTask, type: "task",
        "\(recorder.typeName(of: current)).\(label.text): a task whose layout is not recognised; what it holds is not shown"
      )
    }
    let depth = recorder.nodeCount == 0 ? 0 : recorder.depth(of: current) + 1
    let id = recorder.addNode(
      typeName: name, kind: .task, object: RetainedReference(retaining: Unmanaged.fromOpaque(task)),
      depth: depth)
    appendEdge(to: id, label: label, ownership: .strong)
  }

  /// Follows what the task node `current` (at `task`) holds: nothing once it finished; otherwise
  /// its closure's context, and, once the walk has found every object, what its suspended frames
  /// hold (`linkSuspendedFrames`).
  mutating func expandTask(_ task: UnsafeRawPointer) {
    // A task's memory changes while it runs: a forked child that faults here says so.
    ForkedProgress.during("reading the \(recorder.typeName(of: current))") { expandTaskState(task) }
  }

  private mutating func expandTaskState(_ task: UnsafeRawPointer) {
    guard let state = TaskLayout.state(of: task), !state.isComplete else { return }
    // An `async let`'s closure is not escaping: its context lives in the parent's frames (whose
    // words are read), not on the heap, so it is not read as an object here.
    if !state.isAsyncLet, let operation = state.operation, operation.context != nil {
      addClosure(operation, label: PendingLabel(base: Advice.taskOperationPath))
    }
    if state.isRunning {
      note(
        .unreadTask, type: recorder.typeName(of: current),
        "\(recorder.typeName(of: current)): the task was running during the walk; what it holds (its closure's captures, its frames) was not read"
      )
    } else {
      suspendedTasks.append(current)
      // Its child tasks (`async let`, a task group's): the parent's frames own them, and each
      // holds its own closure and frames.
      for (child, inGroup) in TaskLayout.childTasks(ofTask: task) {
        addTask(child, label: PendingLabel(base: inGroup ? Advice.groupTaskPath : Advice.asyncLetTaskPath))
      }
    }
  }

  /// Adds, from each suspended task, an edge to every node whose address a word of the task's
  /// frames equals (words that are not a node's address are never dereferenced). Skipped: the
  /// task's own closure context (its `operation` edge) and what that context holds strongly (a
  /// frame's copy of a strong capture adds nothing); each target is linked once.
  mutating func linkSuspendedFrames() {
    guard !suspendedTasks.isEmpty else { return }
    var operations: [Int: Int] = [:]
    for taskNode in suspendedTasks {
      guard let task = recorder.object(of: taskNode),
        let state = TaskLayout.state(of: UnsafeRawPointer(task.toOpaque())), !state.isAsyncLet,
        let operation = state.operation,
        let (closure, _) = ClosureLayout.unwrappingThunks(operation), let context = closure.context,
        let node = recorder.node(at: UInt(bitPattern: context))
      else { continue }
      operations[taskNode] = node
    }
    let captured = recorder.strongTargets(of: Set(operations.values))
    let held = recorder.strongTargets(of: Set(suspendedTasks))
    for taskNode in suspendedTasks {
      guard let task = recorder.object(of: taskNode) else { continue }
      // A frame's word equal to a child task adds nothing: the parent's edge to it says more.
      var skipped: Set<Int> = [taskNode]
      skipped.formUnion(held[taskNode, default: []].filter { recorder.nodeKinds[$0] == .task })
      if let operation = operations[taskNode] {
        skipped.insert(operation)
        skipped.formUnion(captured[operation] ?? [])
      }
      var targets: [Int] = []
      // Read only when a word equals a node's address: the slots the debug information says are
      // dead where the task's functions are suspended (a stale strong `self` of an ended scope).
      var dead: Set<UInt>?
      let address = UnsafeRawPointer(task.toOpaque())
      ForkedProgress.during("reading the suspended frames of the \(recorder.typeName(of: taskNode))") {
        TaskLayout.forEachFrameWord(ofTask: address) { slot, word in
          guard word != 0, let node = nodeForWord(word), !skipped.contains(node) else { return true }
          if dead == nil { dead = TaskLayout.deadFrameSlots(ofTask: address) }
          if dead?.contains(slot) != true {
            skipped.insert(node)
            targets.append(node)
          }
          return true
        }
      }
      current = taskNode
      if !targets.isEmpty, !TaskLayout.readsFrameLiveness { noteWithoutReaders(.conservativeFrames) }
      for target in targets {
        appendEdge(to: target, label: .suspendedFrame, ownership: .strong)
      }
    }
  }
}
