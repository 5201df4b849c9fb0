/// Method references: a stored `object.method` is a closure whose context is the object and whose
/// function is the compiler's curry thunk (`implicit closure #2 in implicit closure #1 in f`, the
/// function where the reference was formed), which calls the method.
package enum MethodReference {
  /// The method a closure named `closureName` refers to on an instance of `objectType` (qualified
  /// name), as `Type.method(label:_:)`; nil when the closure is not a method reference or the method
  /// cannot be named. `callees` are the demangled names of the functions the closure calls;
  /// `inlined`, asked only when no callee names the method, those an optimised build inlined into it.
  package static func method(
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
  package static func isThunk(_ name: String) -> Bool {
    name.hasPrefix("implicit closure #") || name.hasPrefix("partial apply forwarder for implicit closure #")
  }

  /// The functions that may be the method in an optimised build, where the method's body can be
  /// inlined into the thunk or merged with an identical one of another type: the functions
  /// inlined into the thunk and the thunks it calls (from the DWARF), then, for each method
  /// called, the methods of the same name that are only a jump to it (LLVM's merged twins).
  package static func optimisedCandidates(ofFunctionAt function: UnsafeRawPointer) -> [String] {
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
