internal import Foundation
internal import RetainGraphSupport

package enum TypeNames {
  /// Drops module and parent qualifiers from a fully qualified type name:
  /// `Swift.Array<App.Item>` → `Array<Item>`. Closure names and other text pass through unchanged
  /// apart from qualified identifiers.
  package static func short(_ name: String) -> String {
    if name.hasPrefix("closure") || name.hasPrefix("partial apply") { return name }
    var result = ""
    result.reserveCapacity(name.count)
    var token = ""
    var iterator = name.makeIterator()
    var pending = iterator.next()
    while let character = pending {
      pending = iterator.next()
      if character.isLetter || character.isNumber || character == "_" {
        token.append(character)
        continue
      }
      if character == ".", !token.isEmpty, let next = pending, next.isLetter || next == "_" {
        token = ""  // a qualifier: drop it with its dot
        continue
      }
      result += token
      token = ""
      result.append(character)
    }
    result += token
    return result
  }

  /// The module a node's type (or, for a closure, its function) is declared in: `App` for
  /// `App.Store<Swift.Int>` and for `closure #1 in closure #2 in App.Store.run()`; nil when the name
  /// does not say (`closure at Holder.handler`, a tuple).
  package static func module(ofNodeNamed name: String) -> Substring? {
    var text = function(afterClosuresIn: name)
    // A static or class method's closures: `closure #1 in static Observation.ObservationTracking…`.
    if let modifier = ["static ", "class "].first(where: { text.hasPrefix($0) }) {
      text = text.dropFirst(modifier.count)
    }
    // A protocol or constrained extension's members: `(extension in Lib):Lib.RouterMethods.get…`.
    if text.hasPrefix("(extension in "), let close = text.firstIndex(of: ")") {
      let module = text.dropFirst("(extension in ".count)[..<close]
      return module.isEmpty ? nil : module
    }
    let module = text.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
    guard !module.isEmpty, text.dropFirst(module.count).hasPrefix(".") else { return nil }
    return module
  }

  /// What follows a simplified closure name's prefixes (`closure #1 in closure #2 in `, `implicit
  /// closure #1 in `; closures nest): the function the closures are in, as far as the prefixes are
  /// well formed; the whole name when it has none.
  package static func function(afterClosuresIn name: String) -> Substring {
    var function = Substring(name)
    while let kind = ["implicit closure #", "closure #"].first(where: { function.hasPrefix($0) }) {
      let afterNumber = function.dropFirst(kind.count).drop { $0.isNumber }
      guard afterNumber.hasPrefix(" in ") else { break }
      function = afterNumber.dropFirst(4)
    }
    return function
  }

  /// The fully qualified name of a type, without the addresses the runtime prints for local
  /// contexts (`(unknown context at $55d1…)`), so that names are deterministic.
  ///
  /// Names are kept, and made, under a lock that is safe across fork: the runtime's
  /// `swift_getTypeName` keeps its own cache behind a plain mutex, and a forked child that asks
  /// for a name while another thread of the parent was inside it at the fork blocks for ever
  /// (seen: a census search's child in `swift_getTypeName` under `coreFoundationTypeName`). The
  /// forking thread holds this lock across the fork, so no name this package asks for is being
  /// made then, and a child finds every name the parent made in the cache.
  package static func qualified(_ type: any Any.Type) -> String {
    let key = ObjectIdentifier(type)
    return qualifiedNames.withLock { names in
      if let name = names[key] { return name }
      let name = uncachedQualified(type)
      names[key] = name
      return name
    }
  }

  private static let qualifiedNames = ForkSafeMutex<[ObjectIdentifier: String]>([:])

  private static func uncachedQualified(_ type: any Any.Type) -> String {
    var name = _typeName(type, qualified: true)
    while let start = name.range(of: "(unknown context at $"),
      let end = name[start.upperBound...].range(of: ").")
    {
      name.removeSubrange(start.lowerBound..<end.upperBound)
    }
    return name
  }
}

/// The parts of a demangled function's name, read without regard to what the demangler adds: a
/// protocol extension's `(extension in Lib):`, generic clauses (`<A where A1: P>`), the result type.
extension TypeNames {
  /// Accessors: the last component of a function's name that is not the member itself
  /// (`Person.greeting.getter`).
  package static let accessorNames: Set<String> = [
    "getter", "setter", "modify", "read", "_modify", "_read", "didset", "willset", "unsafeAddressor",
    "unsafeMutableAddressor",
  ]

  /// The qualified name of a function as its components (module first, generic clauses dropped),
  /// and the text inside its parameter list when it has one: `(extension in Lib):Lib.Router<A>.get<B
  /// where B: P>(_: Swift.String, use: (A) -> B) -> Lib.Router<A>` → (`Lib`, `Router`, `get`) and
  /// `_: Swift.String, use: (A) -> B`. A name that is not a dotted path of identifiers (a local
  /// function's `inner #1 () -> () in …`) gives the components as far as they are identifiers and
  /// the last one empty.
  package static func memberPath(of function: Substring) -> (path: [String], parameters: Substring?) {
    var text = function
    // `(extension in Lib):` names the module of a protocol or constrained extension.
    while text.hasPrefix("(extension in "), let colon = text.firstRange(of: "):") {
      text = text[colon.upperBound...]
    }
    var path: [String] = []
    var current = ""
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      switch character {
      case "<":
        // A generic clause or generic arguments: not part of the name.
        guard let inside = bracketed(text[index...]) else { return (path + [current, ""], nil) }
        index = text.index(inside.endIndex, offsetBy: 1)
        continue
      case "(":
        return (path + [current], bracketed(text[index...]))
      case ".":
        path.append(current)
        current = ""
      case _ where character.isLetter || character.isNumber || character == "_":
        current.append(character)
      case " " where text[index...].hasPrefix(" -> "):
        return (path + [current], nil)
      default:
        // Not a name (`inner #1 …`): the last component is empty.
        return (path + [current, ""], nil)
      }
      index = text.index(after: index)
    }
    return (path + [current], nil)
  }

  /// The text inside the brackets that `text` starts with (`(`, `<` or `[`), up to the bracket that
  /// closes it (an arrow's `>` closes nothing); nil when it is not closed.
  package static func bracketed(_ text: Substring) -> Substring? {
    guard let first = text.first, "(<[".contains(first) else { return nil }
    var depth = 0
    var previous: Character = " "
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      defer { previous = character }
      if "(<[".contains(character) {
        depth += 1
      } else if character == ">", previous == "-" {
        // The arrow of a function type closes nothing.
      } else if ")>]".contains(character) {
        depth -= 1
        if depth == 0 { return text[text.index(after: text.startIndex)..<index] }
      }
      index = text.index(after: index)
    }
    return nil
  }

  /// The type whose instance member (method, initializer, accessor) the closure named `symbol` is
  /// written in, qualified and without generic arguments (`App.ChatAppState` for `closure #2 in
  /// App.ChatAppState.buildRouter()`); nil for a free function, a static member, a name that is not
  /// a closure's or that cannot be read.
  package static func enclosingInstanceType(ofClosureNamed symbol: String) -> String? {
    let function = function(afterClosuresIn: symbol)
    guard function.startIndex > symbol.startIndex, !function.hasPrefix("static "),
      !function.hasPrefix("class ")
    else { return nil }
    var (path, _) = memberPath(of: function)
    guard let last = path.last, !last.isEmpty else { return nil }
    path.removeLast(accessorNames.contains(last) && path.count > 2 ? 2 : 1)
    // A module and a type at least.
    guard path.count >= 2 else { return nil }
    return path.joined(separator: ".")
  }

  /// A type's name without its generic arguments: `App.Store<Swift.Int>.Entry` → `App.Store.Entry`.
  package static func withoutGenericArguments(_ name: String) -> String {
    var result = ""
    var depth = 0
    var previous: Character = " "
    for character in name {
      defer { previous = character }
      if character == "<" {
        depth += 1
      } else if character == ">", previous != "-", depth > 0 {
        depth -= 1
      } else if depth == 0 {
        result.append(character)
      }
    }
    return result
  }
}
