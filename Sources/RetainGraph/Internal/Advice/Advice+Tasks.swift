internal import RetainGraphStorage
internal import RetainGraphSupport

/// Advice for references a task holds (issue 19): the captures of the closure a task runs, and
/// what its suspended frames hold.
extension Advice {
  /// The label of the reference from a task to its closure (`operation (closure)`, or
  /// `operation (closure) → capture 0` when the closure captured one object).
  static let taskOperationPath = "operation"
  /// The labels of the references from a suspended task to its child tasks: an `async let`'s,
  /// a task group's.
  static let asyncLetTaskPath = "async let task"
  static let groupTaskPath = "task group child"

  /// A task node's name: `task (` the closure it runs `)`, or `task (finished)`, `task (running)`,
  /// `task`.
  static func taskName(closure: String?) -> String { "task (\(closure ?? "closure"))" }

  /// The closure symbol inside a task node's name, if it names one.
  static func taskClosureSymbol(_ taskName: String) -> String? {
    guard taskName.hasPrefix("task ("), taskName.hasSuffix(")") else { return nil }
    let inner = String(taskName.dropFirst("task (".count).dropLast())
    return inner.hasPrefix("closure") || inner.hasPrefix("implicit closure") ? inner : nil
  }

  /// How a task node is displayed: `task (closure #1 in Poller.start())`.
  static func taskDisplayName(_ taskName: String) -> String {
    guard let symbol = taskClosureSymbol(taskName) else { return taskName }
    return "task (\(closureName(symbol)))"
  }

  /// The fix for weakening the reference a block Dispatch keeps holds — a `DispatchWorkItem`'s
  /// block, or a dispatch source's handler (its closure's only capture, or the closure's context):
  /// `[weak self]` in the block; nil for any other reference.
  static func dispatchBlockFix(breaking edge: CompactEdge, loop: [Int32], in storage: GraphStorage) -> String?
  {
    let holder = Int(edge.from)
    var keeper = holder
    var closure: String?
    var property: String?
    if storage.nodeKinds[holder] == .closure {
      guard
        let stored = storage.edges.first(where: {
          Int($0.to) == holder && $0.isStrong
            && dispatchBlock(storage.typeName(Int($0.from)), storage.reference($0).property) != nil
        })
      else { return nil }
      keeper = Int(stored.from)
      property = storage.reference(stored).property
      closure = closureName(storage.typeName(holder))
    } else {
      guard storage.reference(edge).kind == .singleCapture,
        dispatchBlock(storage.typeName(holder), storage.reference(edge).property) != nil
      else { return nil }
      property = storage.reference(edge).property
    }
    guard let (block, keeperName, cancel) = dispatchBlock(storage.typeName(keeper), property) else {
      return nil
    }
    let storing =
      loop.first { Int(storage.edges[Int($0)].to) == keeper }.map { storage.edges[Int($0)] }
      ?? storage.edges.first { Int($0.to) == keeper && $0.isStrong }
    let place = storing.map {
      "the \(keeperName) stored in \(storage.shortTypeName(Int($0.from))).\(storage.storagePath($0))"
    }
    let target = Int(edge.to)
    // `self` when the block's keeper is stored in the captured object, or the closure is written in
    // the object's type; otherwise the object's type (capture names are not in the binary).
    let isSelf =
      storing.map { Int($0.from) == target } == true
      || (closure != nil
        && capturesSelf(closureSymbol: storage.typeName(holder), target: target, in: storage))
    let captured: FixAdvice.CapturedObject =
      isSelf ? .selfObject : .object(type: String(storage.shortTypeName(target)))
    return "\(captured.instruction) in the \(block) of \(place ?? "a \(keeperName)")"
      + (closure.map { " (\($0))" } ?? "") + ", or cancel the \(cancel) when done"
  }

  /// What a block Dispatch keeps is called, its keeper's short name and what to cancel, for a
  /// reference stored in `property` of an object of type `typeName`; nil when it is not such a block.
  private static func dispatchBlock(_ typeName: String, _ property: String?) -> (
    block: String, keeper: String, cancel: String
  )? {
    switch typeName {
    case workItemType where property == workItemBlock: ("block", "DispatchWorkItem", "work item")
    case sourceType where property.map(sourceHandlerPaths.contains) == true:
      (property ?? "", "DispatchSource", "source")
    default: nil
    }
  }

  static let workItemType = "Dispatch.DispatchWorkItem"
  static let workItemBlock = "_block"
  /// A dispatch source (its handlers are seen through the heap census) and the labels of the
  /// references to its handlers' closures.
  static let sourceType = "Dispatch.DispatchSource"
  static let sourceHandlerPaths: Set<String> = ["event handler", "cancel handler", "registration handler"]

  /// The fix for weakening `edge` when it is held by a task (its closure's only capture, or a word
  /// of its suspended frame) or by the closure a task runs; nil for any other reference.
  static func taskFix(breaking edge: CompactEdge, loop: [Int32], in storage: GraphStorage) -> String? {
    let holder = Int(edge.from)
    let kind = storage.reference(edge).kind
    let task: Int
    let closureSymbol: String?
    let isFrame: Bool
    switch storage.nodeKinds[holder] {
    case .task:
      guard kind == .suspendedFrame || kind == .singleCapture else { return nil }
      task = holder
      closureSymbol = taskClosureSymbol(storage.typeName(holder))
      isFrame = kind == .suspendedFrame
    case .closure:
      guard
        let running = storage.edges.first(where: {
          Int($0.to) == holder && $0.isStrong && storage.nodeKinds[Int($0.from)] == .task
        })
      else { return nil }
      task = Int(running.from)
      closureSymbol = storage.typeName(holder)
      isFrame = false
    default:
      return nil
    }
    let storing =
      loop.first { Int(storage.edges[Int($0)].to) == task }.map { storage.edges[Int($0)] }
      ?? storage.edges.first { Int($0.to) == task && $0.isStrong }
    let target = Int(edge.to)
    let targetName = storage.shortTypeName(target)
    // `self` when the task is stored in the captured object, or its closure is written in the
    // object's type; otherwise the object's type (capture names are not in the binary).
    let capturesOwner = storing.map { Int($0.from) == target } ?? false
    let isSelf =
      capturesOwner
      || closureSymbol.map { capturesSelf(closureSymbol: $0, target: target, in: storage) } == true
    let place = storing.map {
      "\(storage.shortTypeName(Int($0.from))).\(storage.storagePath($0))"
    }
    var theTask = place.map { "the task stored in \($0)" } ?? "a task"
    // A child task (`async let`, a task group's) is held by its parent task: name it through the
    // parent and where the parent is stored.
    if let storing, storage.nodeKinds[Int(storing.from)] == .task {
      let parent = Int(storing.from)
      let parentStoring = storage.edges.first {
        Int($0.to) == parent && $0.isStrong && storage.nodeKinds[Int($0.from)] != .task
      }
      let parentPlace = parentStoring.map {
        "the task stored in \(storage.shortTypeName(Int($0.from))).\(storage.storagePath($0))"
      }
      theTask =
        (storage.storagePath(storing) == asyncLetTaskPath
          ? "the async let task" : "a task group's child task")
        + " of \(parentPlace ?? "a task")"
    }
    let closure = closureSymbol.map(closureName)
    if isFrame {
      let held = isSelf ? "a strong self" : "the \(targetName) strongly"
      let recheck = isSelf ? "re-check `self`" : "re-check it"
      return "the frame of \(theTask)\(closure.map { " (\($0))" } ?? "") holds \(held) "
        + "across an await: \(recheck) after each await or cancel the task"
    }
    let capture =
      isSelf
      ? "captures self strongly: capture `[weak self]`"
      : "captures the \(targetName) strongly: capture it weakly (`[weak …]` with the name it has there)"
    return "\(theTask) runs \(closure ?? "a closure"), which \(capture) and re-check it after each await, "
      + "or cancel the task when the \(targetName) is done (its deinit cannot run while the task holds it)"
  }
}
