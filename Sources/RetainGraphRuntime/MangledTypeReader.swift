// Reads the textual type manglings of symbol names into `MangledType` (MangledType.swift): see
// README.md in this target, "Private types in hidden fields".

/// Parses a type mangling the way the runtime's demangler does (a stack of nodes; identifiers,
/// nominal types, bound generic types and `Sg` optionals registered as substitutions; words of
/// identifiers for word substitutions), for the operators listed in `parse`; any other operator
/// gives nil. Sources: swiftlang/swift `lib/Demangling/Demangler.cpp` (`demangleOperator`,
/// `demangleIdentifier`, `demangleMultiSubstitutions`, `demangleBoundGenericType`, `popTuple`),
/// `docs/ABI/Mangling.rst`.
package enum MangledTypeReader {
  package enum Entry {
    case type(MangledType)
    case identifier(String)
    case privateName(String, discriminator: String)
    case localName(String, index: String)
    case emptyList
    case firstElement
    case annotation(String)
  }

  /// `name` as a mangled identifier (its length, then its bytes); names are ASCII here.
  package static func identifier(_ name: String) -> String { "\(name.utf8.count)\(name)" }

  /// The type the mangling `text` spells (no leading `$s`), or nil when it uses an operator not
  /// read here, or does not spell exactly one type. A generic signature before the type (a field
  /// of a generic type: `s8SendableRzl…` for `<A: Sendable>`, `Ri_zl…` for `~Copyable`, an empty
  /// `l`) is read for the substitutions and words its names add, and dropped.
  package static func parse(_ text: [UInt8]) -> MangledType? {
    guard let types = parseList(text), types.count == 1 else { return nil }
    return types[0]
  }

  /// The types the mangling `text` spells one after the other (a key path witness's name spells
  /// its subscript's argument types so), or nil as for `parse`.
  package static func parseList(_ text: [UInt8]) -> [MangledType]? {
    var parser = Parser(text: text)
    return parser.run()
  }

  package struct Parser {
    package let text: [UInt8]
    package var position = 0
    package var stack: [Entry] = []
    package var substitutions: [Entry] = []
    package var words: [String] = []

    /// A generic signature may still end (`l`): at the start, and after each requirement.
    package var signatureIsOpen = true
    package var sawRequirement = false

    package init(text: [UInt8]) { self.text = text }

    package mutating func run() -> [MangledType]? {
      guard text.count < 4_096 else { return nil }
      while position < text.count {
        guard step() else { return nil }
      }
      var types: [MangledType] = []
      for entry in stack {
        guard case .type(let type) = entry else { return nil }
        if case .module = type { return nil }
        types.append(type)
      }
      return types.isEmpty ? nil : types
    }

    package func peek() -> UInt8? { position < text.count ? text[position] : nil }
    package mutating func next() -> UInt8? {
      guard position < text.count else { return nil }
      defer { position += 1 }
      return text[position]
    }
    package mutating func nextIf(_ byte: Character) -> Bool {
      guard peek() == byte.asciiValue else { return false }
      position += 1
      return true
    }
    package static func isDigit(_ byte: UInt8?) -> Bool { byte.map { (48...57).contains($0) } ?? false }
    package static func isLower(_ byte: UInt8) -> Bool { (97...122).contains(byte) }
    package static func isUpper(_ byte: UInt8) -> Bool { (65...90).contains(byte) }

    package mutating func natural() -> Int? {
      guard Self.isDigit(peek()) else { return nil }
      var number = 0
      while let byte = peek(), Self.isDigit(byte) {
        number = number * 10 + Int(byte - 48)
        guard number < 1_000_000 else { return nil }
        position += 1
      }
      return number
    }

    /// `_` is 0, `<n>_` is n + 1 (Demangler::demangleIndex), with its text.
    package mutating func index() -> (value: Int, text: String)? {
      let start = position
      if nextIf("_") { return (0, "_") }
      guard let number = natural(), nextIf("_") else { return nil }
      return (number + 1, String(decoding: text[start..<position], as: UTF8.self))
    }

    package mutating func pop() -> Entry? { stack.popLast() }
    package mutating func popType() -> MangledType? {
      guard case .type(let type) = stack.last else { return nil }
      stack.removeLast()
      return type
    }
    package mutating func popIf(_ matches: (Entry) -> Bool) -> Bool {
      guard let last = stack.last, matches(last) else { return false }
      stack.removeLast()
      return true
    }
    package mutating func popEmptyList() -> Bool {
      popIf {
        if case .emptyList = $0 { return true }
        return false
      }
    }
    package mutating func popFirstElement() -> Bool {
      popIf {
        if case .firstElement = $0 { return true }
        return false
      }
    }
    package mutating func push(_ type: MangledType, substitution: Bool) {
      stack.append(.type(type))
      if substitution { substitutions.append(.type(type)) }
    }

    package mutating func step() -> Bool {
      guard let byte = next() else { return false }
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"):
        position -= 1
        return identifier()
      case UInt8(ascii: "A"): return multiSubstitution()
      case UInt8(ascii: "S"): return standardSubstitution()
      case UInt8(ascii: "s"):
        push(.module("Swift"), substitution: false)
        return true
      case UInt8(ascii: "C"), UInt8(ascii: "V"), UInt8(ascii: "O"), UInt8(ascii: "P"):
        return nominal(kind: byte)
      case UInt8(ascii: "L"): return localName()
      case UInt8(ascii: "y"):
        stack.append(.emptyList)
        return true
      case UInt8(ascii: "_"):
        stack.append(.firstElement)
        return true
      case UInt8(ascii: "G"): return boundGeneric()
      case UInt8(ascii: "R"): return requirement()
      case UInt8(ascii: "l"):
        // The end of a generic signature, which comes first: what it named is not the type.
        guard signatureIsOpen, stack.isEmpty || sawRequirement else { return false }
        signatureIsOpen = false
        stack.removeAll()
        return true
      case UInt8(ascii: "x"):
        push(.standard("x"), substitution: false)
        return true
      case UInt8(ascii: "q"): return genericParameter()
      case UInt8(ascii: "t"): return list(suffix: "t", labels: true)
      case UInt8(ascii: "p"): return list(suffix: "p", labels: false)
      case UInt8(ascii: "X"):
        guard let special = next() else { return false }
        switch special {
        case UInt8(ascii: "l"): return list(suffix: "Xl", labels: false)
        default: return false
        }
      case UInt8(ascii: "K"):
        stack.append(.annotation("K"))
        return true
      case UInt8(ascii: "Y"):
        guard let annotation = next(), annotation == UInt8(ascii: "a") || annotation == UInt8(ascii: "b")
        else { return false }
        stack.append(.annotation("Y" + String(UnicodeScalar(annotation))))
        return true
      case UInt8(ascii: "c"): return functionType()
      case UInt8(ascii: "m"), UInt8(ascii: "z"), UInt8(ascii: "n"), UInt8(ascii: "h"):
        guard let type = popType() else { return false }
        push(
          .composite(prefix: "", parts: [type], separators: [], suffix: String(UnicodeScalar(byte))),
          substitution: false)
        return true
      default:
        return false
      }
    }
  }
}
