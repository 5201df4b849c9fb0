internal import RetainGraphRuntime

/// How closures, functions and captures are named in everything a person reads: one function,
/// ``closureName(_:)``, names a closure for the fix lines, the leak traces, the DOT and HTML
/// pictures, the census and the forked walk alike (each reads the same stored symbol, so a closure
/// has one name wherever it shows).
extension Advice {
  /// A closure's name as a Swift developer writes it, without the module, the generic clauses, the
  /// parameter types and the result type: `closure #1 in App.CartViewModel.init(store: App.Store) ->
  /// App.CartViewModel` → `closure #1 in CartViewModel.init(store:)`; a protocol extension's
  /// `closure #1 in (extension in Lib):Lib.RouterMethods.constructResponder<A where A1: Lib.P>(use:
  /// …) -> …` → `closure #1 in RouterMethods.constructResponder(use:)`. A name that is not a closure's
  /// is returned unchanged. When nothing names the enclosing function, the name says what is known
  /// (`closure #1 in a function of Lib`), never an empty `(_:)`.
  static func closureName(_ symbol: String) -> String {
    var function = TypeNames.function(afterClosuresIn: symbol)
    guard function.startIndex > symbol.startIndex else { return symbol }
    // `static` (or `class`) stays before the function, the module goes.
    let modifier = ["static ", "class "].first { function.hasPrefix($0) } ?? ""
    function = function.dropFirst(modifier.count)
    let prefix = symbol[..<function.startIndex].dropLast(modifier.count)
    let (path, parameters) = TypeNames.memberPath(of: function)
    guard let last = path.last, !last.isEmpty else {
      let module = TypeNames.module(ofNodeNamed: symbol).map { "a function of \($0)" }
      return prefix + (module ?? "an unnamed function")
    }
    let name = path.count > 2 ? path.dropFirst().joined(separator: ".") : path.joined(separator: ".")
    return prefix + modifier + name + (parameters.map(labels(of:)) ?? "")
  }

  /// `Store.update(value: Int, _: String) -> ()` → `Store.update(value:_:)`; a name without a
  /// parameter list is unchanged.
  static func functionName(_ function: Substring) -> String {
    guard let open = function.firstIndex(of: "("),
      let parameters = TypeNames.bracketed(function[open...])
    else { return String(function) }
    return function[..<open] + labels(of: parameters)
  }

  /// The labels of a parameter list as a function's name writes them: `(value: Int, _: String)` →
  /// `(value:_:)`; `parameters` is the list inside the parentheses.
  private static func labels(of parameters: Substring) -> String {
    // Already written as labels (`label:_:`, a name made by hand or read from JSON): kept.
    if !parameters.isEmpty, parameters.last == ":",
      parameters.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }),
      !parameters.contains("::")
    {
      return "(\(parameters))"
    }
    var depth = 0
    var list: [Substring] = []
    var current = parameters.startIndex
    var previous: Character = " "
    for index in parameters.indices {
      let character = parameters[index]
      defer { previous = character }
      if "(<[".contains(character) {
        depth += 1
      } else if character == ">", previous == "-" {
        // The arrow of a function type (`(A) -> ()`) closes nothing.
      } else if ")>]".contains(character) {
        depth -= 1
      } else if character == ",", depth == 0 {
        list.append(parameters[current..<index])
        current = parameters.index(after: index)
      }
    }
    let last = parameters[current...]
    if !last.allSatisfy(\.isWhitespace) { list.append(last) }
    let labels = list.map { parameter -> String in
      let trimmed = parameter.drop { $0 == " " }
      let name = trimmed.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
      let rest = trimmed.dropFirst(name.count)
      // `value: Int` as demangled, or `value:` as already written.
      return !name.isEmpty && (rest.hasPrefix(": ") || rest == ":") ? "\(name):" : "_:"
    }
    return "(" + labels.joined() + ")"
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

  /// Whether `symbol` names a closure (`closure #1 in …`, `implicit closure #2 in …`), rather than
  /// where an unnamed one is stored (`closure at Holder.handler`).
  static func isClosureSymbol(_ symbol: String) -> Bool {
    symbol.hasPrefix("closure #") || symbol.hasPrefix("implicit closure #")
  }

  /// Whether the object `target` captured by the closure named `closureSymbol` is the closure's
  /// `self`. Capture names are not in the binary, so this is decided from types, conservatively:
  /// the closure must be written in an instance member (method, initializer, accessor) of the
  /// captured object's own type, as its symbol says (`closure #2 in App.ChatAppState.buildRouter()`
  /// capturing an `App.ChatAppState`). A closure of a free function, of a static member or of a
  /// protocol extension, one that holds another instance of a different type, one whose name is
  /// unknown, and one written in a superclass's method that captures a subclass's object are not
  /// said to capture `self`. (One written in a method that captures another instance of the same
  /// type is, wrongly: the binary does not tell the two apart.)
  static func capturesSelf(closureSymbol: String, target: Int, in storage: GraphStorage) -> Bool {
    guard isClosureSymbol(closureSymbol),
      let enclosing = TypeNames.enclosingInstanceType(ofClosureNamed: closureSymbol)
    else { return false }
    return TypeNames.withoutGenericArguments(storage.typeName(target)) == enclosing
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
