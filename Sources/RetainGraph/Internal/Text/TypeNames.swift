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
