internal import RetainGraphRuntime
internal import RetainGraphStorage
internal import RetainGraphSupport

/// Writes the fix for each reference of a fix plan, in the words a Swift developer applies it:
/// every closure named by its function (or where it is stored), every method reference by its
/// method, a library's reference with the library's way out.
enum Advice {
  /// The edit that ends a library's stored reference to your object, where no closure is involved
  /// (the reference is the library's and cannot be made weak): by what the holder is, as its type's
  /// name tells (a stream is finished, a channel closed, a subscription cancelled, a timer
  /// invalidated, an observer removed), else every such edit.
  static func ending(holderType: String, target: String, module: String) -> String {
    let name = TypeNames.withoutGenericArguments(holderType)
    let words: [(keys: [String], edit: String)] = [
      (
        ["AsyncStream", "AsyncThrowingStream", "Continuation"],
        "finish the stream when done (its continuation's `finish()`), or read what it buffers"
      ),
      (["Channel"], "close the channel when done"),
      (
        ["Subscription", "Subscriber", "Sink", "Cancellable", "Conduit", "Subject", ".Inner", ".Outer"],
        "cancel the subscription when done (the `AnyCancellable` it gave, or `cancel()`)"
      ),
      (["Timer"], "invalidate the timer when done"),
      (
        ["Observer", "Observation", "Notification", "Token", "Registration", "Listener"],
        "remove the observer when done"
      ),
    ]
    if let found = words.first(where: { $0.keys.contains { name.contains($0) } }) { return found.edit }
    return "end what holds the \(target) when done (cancel, close, finish, invalidate or remove it): the "
      + "reference is \(module)'s and cannot be made weak"
  }

  /// The fix for weakening one reference of a fix plan.
  /// - Parameters:
  ///   - edgeIndex: the reference.
  ///   - loop: the loop it breaks (edge indices).
  ///   - form: the advice of the idiom rule the reference matched.
  ///   - isLibrary: whether each node is a library's (nil when the plans treat every node alike).
  ///   - libraries: the graph's own library rules (their ways out are tried first).
  ///   - storage: the graph.
  /// - Returns: the fix, structured.
  static func fix(
    breaking edgeIndex: Int32, loop: [Int32], form: AdviceForm, isLibrary: [Bool]?,
    libraries: [LibraryRule] = [],
    in storage: GraphStorage
  ) -> FixAdvice {
    let edge = storage.edges[Int(edgeIndex)]
    let reference = storage.reference(edge)
    let holder = Int(edge.from)
    let holderName = storage.shortTypeName(holder)
    let target = Int(edge.to)
    let targetName = storage.shortTypeName(target)
    let storedAt = "\(holderName).\(storage.storagePath(edge))"
    let isLibraryHolder = isLibrary?[holder] == true

    if form == .libraryWayOut {
      // The library's own reference: it cannot be made weak by you.
      let module = TypeNames.module(ofNodeNamed: storage.typeName(holder))
      let moduleName = module.map(String.init) ?? "the library"
      let isClosure = storage.nodeKinds[holder] == .closure
      let holding =
        isClosure
        ? "\(closureName(storage.typeName(holder))) (\(moduleName)) captures \(targetName)"
        : "\(storedAt) is \(moduleName)'s reference to \(targetName)"
      let wayOut =
        isClosure
        ? nil
        : KnownLibraries.wayOut(
          module: module, holder: String(holderName.prefix { $0 != "<" }), property: reference.property,
          extra: libraries)
          ?? ending(holderType: storage.typeName(holder), target: targetName, module: moduleName)
      return .libraryReference(holding: holding, module: moduleName, target: targetName, wayOut: wayOut)
    }
    if let fix = taskFix(breaking: edge, loop: loop, in: storage)
      ?? dispatchBlockFix(breaking: edge, loop: loop, in: storage)
    {
      return .sentence(fix)
    }
    switch form {
    case .libraryWayOut, .weakReference:
      break
    case .weakCapture, .weakMethodReference, .weakenStoredClosure:
      // A closure holds the object: what it is (a method reference, a closure whose only capture is
      // the object, a closure context) says what to write instead.
      switch reference.kind {
      case .methodReference(let method):
        let (place, wrapperPlace) = placeOfCapture(holder: holder, edge: edge, loop: loop, in: storage)
        return .weakMethodReference(
          method: withoutModule(method), call: call(of: method),
          place: place + (wrapperPlace.map { " (\($0))" } ?? ""))
      case .singleCapture:
        // A closure whose only capture is the object: named by its function when the walk could.
        var (place, wrapperPlace) = placeOfCapture(holder: holder, edge: edge, loop: loop, in: storage)
        if isLibraryHolder, storage.nodeKinds[holder] == .closure,
          let module = TypeNames.module(ofNodeNamed: storage.typeName(holder))
        {
          // Your closure, passed to a library's closure: where the library keeps it is its business.
          place = "passed to \(module)"
          wrapperPlace = nil
        }
        let whole = ([place] + [wrapperPlace].compactMap { $0 }).joined(separator: ", ")
        let captured = capturedObject(closureSymbol: reference.function ?? "", target: target, in: storage)
        guard let function = reference.function, isClosureSymbol(function) else {
          return .weakCapture(of: captured, closure: nil, place: whole)
        }
        return .weakCapture(of: captured, closure: closureName(function), place: whole)
      default:
        if storage.nodeKinds[holder] == .closure {
          return contextCapture(edge: edge, loop: loop, in: storage)
        }
        if reference.kind == .closure { return .weakenStoredClosure(storedIn: storedAt) }
      }
    }
    if reference.kind == .element {
      return .weakElement(target: targetName, storedIn: "\(holderName).\(storage.label(edge))")
    }
    return .weakProperty("\(holderName).\(storage.label(edge))")
  }

  /// Where a stored closure's capture is: a property of its holder, or a capture of a closure that
  /// is itself stored somewhere (a library's wrapper: `Feed.subscribe` stores `{ subscriber($0) }`);
  /// with a closure holder, apart, where that closure is stored.
  private static func placeOfCapture(
    holder: Int, edge: CompactEdge, loop: [Int32], in storage: GraphStorage
  ) -> (place: String, wrapperPlace: String?) {
    guard storage.nodeKinds[holder] == .closure else {
      return ("stored in \(storage.shortTypeName(holder)).\(storage.storagePath(edge))", nil)
    }
    let symbol = storage.typeName(holder)
    let stored = closureStorage(of: holder, loop: loop, in: storage)
    if !isClosureSymbol(symbol) {
      return ("passed to the closure stored in \(stored ?? closureName(symbol))", nil)
    }
    return ("passed to \(closureName(symbol))", stored.map { "stored in \($0)" })
  }

  /// A closure context's capture of the object: the closure by its function, and where it is stored.
  private static func contextCapture(edge: CompactEdge, loop: [Int32], in storage: GraphStorage) -> FixAdvice
  {
    let holder = Int(edge.from)
    let stored = closureStorage(of: holder, loop: loop, in: storage)
    let symbol = storage.typeName(holder)
    let captured = capturedObject(closureSymbol: symbol, target: Int(edge.to), in: storage)
    if !isClosureSymbol(symbol) {
      return .weakCapture(of: captured, closure: nil, place: "stored in \(stored ?? closureName(symbol))")
    }
    return .weakCapture(of: captured, closure: closureName(symbol), place: stored.map { "stored in \($0)" })
  }

  /// Where the closure node `closure` is stored (`Store.subscribers[0]`): the loop's reference into
  /// it, or else its first strong holder; nil when nothing holds it.
  private static func closureStorage(of closure: Int, loop: [Int32], in storage: GraphStorage) -> String? {
    let stored =
      loop.first { Int(storage.edges[Int($0)].to) == closure }
      ?? storage.edges.indices.first { Int(storage.edges[$0].to) == closure && storage.edges[$0].isStrong }
      .map(Int32.init)
    return stored.map { index -> String in
      let storing = storage.edges[Int(index)]
      return "\(storage.shortTypeName(Int(storing.from))).\(storage.storagePath(storing))"
    }
  }

  /// What the closure named `closureSymbol` captures when it holds `target`: its `self`, or an
  /// object of the target's type.
  private static func capturedObject(closureSymbol: String, target: Int, in storage: GraphStorage)
    -> FixAdvice.CapturedObject
  {
    if capturesSelf(closureSymbol: closureSymbol, target: target, in: storage) { return .selfObject }
    return .object(type: String(storage.shortTypeName(target)))
  }
}
