/// The fix for one reference of a fix plan, in the words a Swift developer applies it: every
/// closure named by its function (or where it is stored), every method reference by its method.
enum Advice {
  /// The fix for weakening the edge at `edgeIndex`, part of `loop` (edge indices), chosen for
  /// `idiom`.
  static func fix(
    breaking edgeIndex: Int32, loop: [Int32], idiom: Cycle.Break.Idiom, in storage: GraphStorage
  ) -> String {
    let edge = storage.edges[Int(edgeIndex)]
    let reference = storage.reference(edge)
    let label = storage.label(edge)
    let storedAt = storage.storagePath(edge)
    let holder = Int(edge.from)
    let holderName = storage.shortTypeName(holder)
    let targetName = storage.shortTypeName(Int(edge.to))

    if idiom == .libraryReference {
      // The library's own reference: it cannot be made weak by you.
      let module = TypeNames.module(ofNodeNamed: storage.typeName(holder)).map(String.init) ?? "the library"
      let holding =
        storage.nodeKinds[holder] == .closure
        ? "\(closureName(storage.typeName(holder))) (\(module)) captures \(targetName)"
        : "\(holderName).\(storedAt) is \(module)'s reference to \(targetName)"
      return "\(holding): give \(module) a closure that captures `[weak self]` instead of the "
        + "\(targetName) itself, or end what holds it (cancel, invalidate, remove) when done"
    }

    if let fix = taskFix(breaking: edge, loop: loop, in: storage)
      ?? workItemFix(breaking: edge, loop: loop, in: storage)
    {
      return fix
    }
    // Where the reference is stored: a property of its holder, or a capture of a closure that is
    // itself stored somewhere (a library's wrapper: `Feed.subscribe` stores `{ subscriber($0) }`).
    let place: String
    // With a closure holder, what the closure is and, apart, where that closure is stored.
    var wrapperPlace: String?
    if storage.nodeKinds[holder] == .closure {
      let symbol = storage.typeName(holder)
      let stored = closureStorage(of: holder, loop: loop, in: storage)
      if symbol.hasPrefix("closure at ") || !symbol.hasPrefix("closure") {
        place = "passed to the closure stored in \(stored ?? closureName(symbol))"
      } else {
        place = "passed to \(closureName(symbol))"
        wrapperPlace = stored.map { "stored in \($0)" }
      }
    } else {
      place = "stored in \(holderName).\(storedAt)"
    }
    switch reference.kind {
    case .methodReference(let method):
      // The method is named, and where its reference is stored.
      return "method reference \(withoutModule(method)) \(place)\(wrapperPlace.map { " (\($0))" } ?? ""): "
        + "store `{ [weak self] in self?.\(call(of: method)) }` instead"
    case .singleCapture:
      // A closure whose only capture is the object: named by its function when the walk could.
      let whole = ([place] + [wrapperPlace].compactMap { $0 }).joined(separator: ", ")
      guard let function = reference.function, function.hasPrefix("closure") else {
        return "capture `[weak self]` in the closure \(whole)"
      }
      let capture = captureList(closureSymbol: function, target: Int(edge.to), in: storage)
      return "capture `\(capture)` in \(closureName(function)) (\(whole))"
    default:
      break
    }
    if storage.nodeKinds[holder] == .closure {
      // A closure context captures the object: name the closure, and where it is stored.
      let stored = closureStorage(of: holder, loop: loop, in: storage)
      let symbol = storage.typeName(holder)
      let capture = captureList(closureSymbol: symbol, target: Int(edge.to), in: storage)
      if symbol.hasPrefix("closure at ") || !symbol.hasPrefix("closure") {
        return "capture `\(capture)` in the closure stored in \(stored ?? closureName(symbol))"
      }
      return "capture `\(capture)` in \(closureName(symbol))\(stored.map { " (stored in \($0))" } ?? "")"
    }
    switch reference.kind {
    case .methodReference, .singleCapture:
      return ""  // answered above
    case .closure:
      return "capture weakly what the closure stored in \(holderName).\(storedAt) "
        + "captures, or remove it when done"
    case .element:
      return "hold the \(targetName) in \(holderName).\(label) weakly (a box with a `weak var`), "
        + "or remove it when done"
    case .property, .enumPayload, .capture, .global, .suspendedFrame:
      return "make \(holderName).\(label) weak"
    }
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
