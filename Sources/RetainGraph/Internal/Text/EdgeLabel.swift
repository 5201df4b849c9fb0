/// The grammar of edge labels, in one place: the walk builds labels with it, and everything that
/// reads a label back (the report, ``Edge/property``, the testing library) asks it.
///
/// A label is the path from the holding object to the held one: stored property names joined by
/// `.` (`state.loading`, `pair.1`), element subscripts (`items[3]`, `handlers["done"]`), and for a
/// closure, where it is stored followed by ` (closure)` (`greeting (closure)`), with
/// ` → capture 0` when the closure's only capture is the referenced object itself; a method
/// reference (`completion = handleResponse`), where it is stored followed by ` (method ` and the
/// method's name (`completion (method UseCase.handleResponse(_:))`). The references
/// a closure context holds are labelled `capture 0`, `capture 1`…
enum EdgeLabel {
  private static let closureMarker = " (closure)"
  private static let methodMarker = " (method "
  private static let capturePrefix = "capture "

  /// The label of a closure context stored at `path`: `greeting (closure)`.
  static func closure(storedAt path: String) -> String { path + closureMarker }

  /// The label of a closure whose context is its only captured object: `greeting (closure) → capture 0`.
  static func singleCapture(storedAt path: String) -> String { path + closureMarker + " → capture 0" }

  /// The label of a method reference stored at `path`, whose context is the method's object:
  /// `completion (method UseCase.handleResponse(_:))`.
  static func methodReference(storedAt path: String, method: String) -> String {
    path + methodMarker + method + ")"
  }

  /// Whether the reference is a method reference stored at the label's path.
  static func isMethodReference(_ label: String) -> Bool {
    label.contains(methodMarker) && label.hasSuffix(")")
  }

  /// The method a method reference's label names: `UseCase.handleResponse(_:)`.
  static func method(of label: String) -> String? {
    guard isMethodReference(label), let range = label.firstRange(of: methodMarker) else { return nil }
    return String(label[range.upperBound...].dropLast())
  }

  /// The label of a closure context's `index`th capture: `capture 2`.
  static func capture(_ index: Int) -> String { capturePrefix + "\(index)" }

  /// Whether the reference is held by a closure stored at the label's path.
  static func isClosure(_ label: String) -> Bool { label.contains(closureMarker) }

  /// Whether the label is a closure whose only capture is the referenced object:
  /// `greeting (closure) → capture 0`.
  static func isSingleCapture(_ label: String) -> Bool { label.hasSuffix(closureMarker + " → capture 0") }

  /// Whether the label leads to a closure context node: `greeting (closure)`.
  static func isClosureStorage(_ label: String) -> Bool { label.hasSuffix(closureMarker) }

  /// Where in the holder the reference is stored, without the closure suffix:
  /// `greeting (closure) → capture 0` → `greeting`, `items[3]` → `items[3]`.
  static func storagePath(of label: String) -> String {
    if isMethodReference(label), let range = label.firstRange(of: methodMarker) {
      return String(label[..<range.lowerBound])
    }
    guard let range = label.firstRange(of: closureMarker) else { return label }
    return String(label[..<range.lowerBound])
  }

  /// The holder's stored property the reference is in: `items[3].owner` → `items`,
  /// `greeting (closure)` → `greeting`; nil for a closure context's capture (`capture 0`), which is
  /// not a property.
  static func property(of label: String) -> String? {
    if label.hasPrefix(capturePrefix) { return nil }
    let property = label.prefix { $0 != "." && $0 != "[" && $0 != " " }
    return property.isEmpty ? nil : String(property)
  }
}

/// Method references: a stored `object.method` is a closure whose context is the object and whose
/// function is the compiler's curry thunk (`implicit closure #2 in implicit closure #1 in f`, the
/// function where the reference was formed), which calls the method.
enum MethodReference {
  /// The method a closure named `closureName` refers to on an instance of `objectType` (qualified
  /// name), as `Type.method(label:_:)`; nil when the closure is not a method reference or the method
  /// cannot be named. `callees` are the demangled names of the functions the closure calls;
  /// `inlined`, asked only when no callee names the method, those an optimised build inlined into it.
  static func method(
    closureName: String, objectType: String, callees: () -> [String], inlined: () -> [String] = { [] }
  ) -> String? {
    // An implicit closure directly in an implicit closure; the object is the only capture, and
    // the method called is one of the object's type.
    let thunk = "implicit closure #"
    guard closureName.hasPrefix(thunk),
      closureName.dropFirst(thunk.count).drop(while: \.isNumber).hasPrefix(" in " + thunk)
    else { return nil }
    return method(ofType: objectType, among: callees()) ?? method(ofType: objectType, among: inlined())
  }

  /// Whether a callee is the compiler's curry thunk (or its forwarder), whose callees are read too.
  static func isThunk(_ name: String) -> Bool {
    name.hasPrefix("implicit closure #") || name.hasPrefix("partial apply forwarder for implicit closure #")
  }

  /// The functions that may be the method in an optimised build, where the method's body can be
  /// inlined into the thunk or merged with an identical one of another type: the functions
  /// inlined into the thunk and the thunks it calls (from the DWARF), then, for each method
  /// called, the methods of the same name that are only a jump to it (LLVM's merged twins).
  static func optimisedCandidates(ofFunctionAt function: UnsafeRawPointer) -> [String] {
    let calls = SymbolNames.directCalls(ofFunctionAt: function, following: isThunk)
    var candidates = SymbolNames.inlinedFunctions(ofFunctionAt: function)
    for call in calls where isThunk(call.name) {
      candidates += SymbolNames.inlinedFunctions(ofFunctionAt: call.address)
    }
    for call in calls where !isThunk(call.name) {
      // `Samples.FixedUseCase.handleResponse(Swift.Int) -> ()` → `14handleResponse`, as mangled.
      let name = SymbolNames.withoutPrivateDiscriminators(call.name)
      guard let open = name.firstIndex(of: "("),
        let identifier = name[..<open].split(separator: ".").last,
        identifier.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), identifier.utf8.count > 2
      else { continue }
      candidates += SymbolNames.mergedTwins(
        ofFunctionAt: call.address, identifier: "\(identifier.utf8.count)\(identifier)")
    }
    return candidates
  }

  /// The first of `functions` that is a method of `objectType`, as `Type.method(label:_:)`.
  private static func method(ofType objectType: String, among functions: [String]) -> String? {
    let prefix = objectType + "."
    let names = functions.map {
      SymbolNames.withoutPrivateDiscriminators(String($0.trimmingPrefix("merged ")))
    }
    for callee in names where callee.hasPrefix(prefix) {
      let rest = callee.dropFirst(prefix.count)
      guard let open = rest.firstIndex(of: "("), !rest[..<open].contains(" ") else { continue }
      let name = rest[..<open]
      guard let parameters = topLevelParameters(rest[open...]) else { continue }
      let labels = parameters.map { parameter -> String in
        let label = parameter.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return !label.isEmpty && parameter.dropFirst(label.count).hasPrefix(": ") ? "\(label):" : "_:"
      }
      return "\(TypeNames.short(objectType)).\(name)(\(labels.joined()))"
    }
    return nil
  }

  /// The parameters of `(a: A, B) -> C` at the top level of its first parenthesis: `["a: A", "B"]`.
  private static func topLevelParameters(_ text: Substring) -> [Substring]? {
    var depth = 0
    var parameters: [Substring] = []
    var start = text.index(after: text.startIndex)
    for index in text.indices {
      switch text[index] {
      case "(", "[", "<": depth += 1
      case ">" where index > text.startIndex && text[text.index(before: index)] == "-":
        continue  // the arrow of a function type closes nothing
      case ")", "]", ">":
        depth -= 1
        if depth == 0 {
          let last = text[start..<index].trimmingPrefix(" ")
          if !last.isEmpty { parameters.append(Substring(last)) }
          return parameters
        }
      case "," where depth == 1:
        parameters.append(Substring(text[start..<index].trimmingPrefix(" ")))
        start = text.index(after: index)
      default: break
      }
    }
    return nil
  }

}

/// A label on its way to an edge: a path, and an element index appended as `[index]` when ≥ 0.
/// Keeping the index apart lets a million `items[i]` labels share one interned `items`.
struct PendingLabel {
  var base: String
  var index: Int32 = -1

  static let empty = PendingLabel(base: "")

  var text: String { index < 0 ? base : "\(base)[\(index)]" }

  /// The label of a component below this one: `state.loading`, `items[3].owner`.
  func appending(_ name: String) -> PendingLabel {
    let prefix = text
    return PendingLabel(base: prefix.isEmpty ? name : "\(prefix).\(name)")
  }

  /// The label of an element below this one: `items[3]`, `grid[1][2]`.
  func element(_ index: Int) -> PendingLabel {
    self.index < 0 ? PendingLabel(base: base, index: Int32(index)) : PendingLabel(base: "\(text)[\(index)]")
  }

  /// The label of a dictionary entry below this one: `handlers["done"]`.
  func entry(_ key: String) -> PendingLabel { PendingLabel(base: "\(text)[\(key)]") }
}
