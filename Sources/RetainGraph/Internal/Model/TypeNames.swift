internal import Foundation

enum TypeNames {
  /// Drops module and parent qualifiers from a fully qualified type name:
  /// `Swift.Array<App.Item>` → `Array<Item>`. Closure names and other text pass through unchanged
  /// apart from qualified identifiers.
  static func short(_ name: String) -> String {
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
  static func module(ofNodeNamed name: String) -> Substring? {
    var text = function(afterClosuresIn: name)
    // A static or class method's closures: `closure #1 in static Observation.ObservationTracking…`.
    if let modifier = ["static ", "class "].first(where: { text.hasPrefix($0) }) {
      text = text.dropFirst(modifier.count)
    }
    let module = text.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
    guard !module.isEmpty, text.dropFirst(module.count).hasPrefix(".") else { return nil }
    return module
  }

  /// What follows a simplified closure name's prefixes (`closure #1 in closure #2 in `, `implicit
  /// closure #1 in `; closures nest): the function the closures are in, as far as the prefixes are
  /// well formed; the whole name when it has none.
  static func function(afterClosuresIn name: String) -> Substring {
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
  static func qualified(_ type: any Any.Type) -> String {
    var name = _typeName(type, qualified: true)
    while let start = name.range(of: "(unknown context at $"),
      let end = name[start.upperBound...].range(of: ").")
    {
      name.removeSubrange(start.lowerBound..<end.upperBound)
    }
    return name
  }
}
