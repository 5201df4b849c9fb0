/// The fix for one reference of a fix plan, structured: what the developer edits and where. The
/// analysis chooses the reference and its idiom rule (`Analysis/Idioms.swift`); ``Advice`` turns the
/// rule's ``AdviceForm`` into this value, and ``text`` is the sentence.
enum FixAdvice: Hashable, Sendable {
  /// A library's own reference to your object (`holding` says where, the library by its module):
  /// the library's way out when it has one, else a closure capturing `[weak self]` given to it.
  case libraryReference(holding: String, module: String, target: String, wayOut: String?)
  /// `[weak …]` in the closure that captures the object: the closure by its function when known,
  /// and where it is (`stored in Store.subscribers[0]`, `passed to …`).
  case weakCapture(captureList: String, closure: String?, place: String?)
  /// A stored method reference: store a closure capturing `[weak self]` that calls the method.
  case weakMethodReference(method: String, call: String, place: String)
  /// A closure stored in a property: weaken what it captures, or remove it when done.
  case weakenStoredClosure(storedIn: String)
  /// An element of a collection: hold it weakly in a box.
  case weakElement(target: String, storedIn: String)
  /// A stored property: make it `weak`.
  case weakProperty(String)
  /// A sentence written whole by a special case (a task, a `DispatchWorkItem`).
  case sentence(String)

  /// The fix, one sentence.
  var text: String {
    switch self {
    case .libraryReference(let holding, let module, let target, let wayOut):
      if let wayOut { return "\(holding): \(wayOut)" }
      return "\(holding): give \(module) a closure that captures `[weak self]` instead of the "
        + "\(target) itself, or end what holds it (cancel, invalidate, remove) when done"
    case .weakCapture(let captureList, let closure, let place):
      guard let closure else { return "capture `\(captureList)` in the closure \(place ?? "")" }
      return "capture `\(captureList)` in \(closure)\(place.map { " (\($0))" } ?? "")"
    case .weakMethodReference(let method, let call, let place):
      return "method reference \(method) \(place): store `{ [weak self] in self?.\(call) }` instead"
    case .weakenStoredClosure(let storedIn):
      return "capture weakly what the closure stored in \(storedIn) captures, or remove it when done"
    case .weakElement(let target, let storedIn):
      return "hold the \(target) in \(storedIn) weakly (a box with a `weak var`), or remove it when done"
    case .weakProperty(let property):
      return "make \(property) weak"
    case .sentence(let text):
      return text
    }
  }
}

/// Writes the fix for each reference of a fix plan, in the words a Swift developer applies it:
/// every closure named by its function (or where it is stored), every method reference by its
/// method, a library's reference with the library's way out.
enum Advice {
  /// The fix for weakening one reference of a fix plan.
  /// - Parameters:
  ///   - edgeIndex: the reference.
  ///   - loop: the loop it breaks (edge indices).
  ///   - form: the advice of the idiom rule the reference matched.
  ///   - isLibrary: whether each node is a library's (nil when the plans treat every node alike).
  ///   - storage: the graph.
  /// - Returns: the fix, structured.
  static func fix(
    breaking edgeIndex: Int32, loop: [Int32], form: AdviceForm, isLibrary: [Bool]?, in storage: GraphStorage
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
          module: module, holder: String(holderName.prefix { $0 != "<" }), property: reference.property)
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
        guard let function = reference.function, function.hasPrefix("closure") else {
          return .weakCapture(captureList: "[weak self]", closure: nil, place: whole)
        }
        let capture = captureList(closureSymbol: function, target: target, in: storage)
        return .weakCapture(captureList: capture, closure: closureName(function), place: whole)
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
    if symbol.hasPrefix("closure at ") || !symbol.hasPrefix("closure") {
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
    let capture = captureList(closureSymbol: symbol, target: Int(edge.to), in: storage)
    if symbol.hasPrefix("closure at ") || !symbol.hasPrefix("closure") {
      return .weakCapture(
        captureList: capture, closure: nil, place: "stored in \(stored ?? closureName(symbol))")
    }
    return .weakCapture(
      captureList: capture, closure: closureName(symbol), place: stored.map { "stored in \($0)" })
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

  /// A closure's function name as a Swift developer writes it, without the module, the parameter
  /// types and the return type: `closure #1 in App.CartViewModel.init(store: App.Store) ->
  /// App.CartViewModel` → `closure #1 in CartViewModel.init(store:)`.
  static func closureName(_ symbol: String) -> String {
    // The closures' prefixes, then the function, whose signature may name private types
    // (`(Box in _D7F0…)`).
    var function = TypeNames.function(afterClosuresIn: symbol)
    guard function.startIndex > symbol.startIndex else { return symbol }
    // `static` (or `class`) stays before the function, the module goes.
    let modifier = ["static ", "class "].first { function.hasPrefix($0) } ?? ""
    function = function.dropFirst(modifier.count)
    return symbol[..<function.startIndex] + withoutModule(functionName(function))
  }

  /// `Store.update(value: Int, _: String) -> ()` → `Store.update(value:_:)`; a name without a
  /// parameter list is unchanged.
  static func functionName(_ function: Substring) -> String {
    guard let open = function.firstIndex(of: "(") else { return String(function) }
    var depth = 0
    var parameters: [Substring] = []
    var current = function.index(after: open)
    var close: String.Index?
    var index = current
    var previous: Character = " "
    while index < function.endIndex {
      let character = function[index]
      defer { previous = character }
      if "(<[".contains(character) {
        depth += 1
      } else if character == ">", previous == "-" {
        // The arrow of a function type (`(A) -> ()`) closes nothing.
      } else if ")>]".contains(character) {
        if depth == 0, character == ")" {
          close = index
          break
        }
        depth -= 1
      } else if character == ",", depth == 0 {
        parameters.append(function[current..<index])
        current = function.index(after: index)
      }
      index = function.index(after: index)
    }
    guard let close else { return String(function) }
    let last = function[current..<close]
    if !last.allSatisfy(\.isWhitespace) { parameters.append(last) }
    let labels = parameters.map { parameter -> String in
      let trimmed = parameter.drop { $0 == " " }
      let name = trimmed.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
      let rest = trimmed.dropFirst(name.count)
      return !name.isEmpty && rest.hasPrefix(": ") ? "\(name):" : "_:"
    }
    return function[..<open] + "(" + labels.joined() + ")"
  }

  /// A function name without its module: `App.Store.update(_:)` → `Store.update(_:)`; a name with
  /// one qualifier or none is unchanged.
  static func withoutModule(_ function: some StringProtocol) -> String {
    let name = function.prefix { $0 != "(" && $0 != "<" }
    let parts = name.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count > 2, let first = parts.first, !first.isEmpty,
      first.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
    else { return String(function) }
    return String(function.dropFirst(first.count + 1))
  }

  /// `[weak self]` when the closure is declared in the captured object's type, `[weak store]`
  /// otherwise.
  private static func captureList(closureSymbol: String, target: Int, in storage: GraphStorage) -> String {
    let typeName = storage.typeName(target)
    if closureSymbol.hasPrefix("closure at ") || closureSymbol.contains(" in \(typeName).")
      || !closureSymbol.hasPrefix("closure")
    {
      return "[weak self]"
    }
    let short = storage.shortTypeName(target).prefix { $0 != "<" }
    return "[weak \(short.prefix(1).lowercased() + short.dropFirst())]"
  }

  /// The call a method reference stands for: `handlePrices(_:)` → `handlePrices($0)`,
  /// `update(value:at:)` → `update(value: $0, at: $1)`.
  static func call(of method: String) -> String {
    let name = method.prefix { $0 != "(" }
    let base = name.split(separator: ".").last.map(String.init) ?? String(name)
    guard let open = method.firstIndex(of: "("), let close = method.lastIndex(of: ")"), open < close else {
      return "\(base)($0)"
    }
    let labels = method[method.index(after: open)..<close].split(
      separator: ":", omittingEmptySubsequences: true)
    let arguments = labels.enumerated().map { index, label in
      label == "_" ? "$\(index)" : "\(label): $\(index)"
    }
    return "\(base)(\(arguments.joined(separator: ", ")))"
  }
}
