// Reads the textual type manglings of symbol names into `MangledType` (MangledType.swift): see
// README.md in this folder, "Private types in hidden fields".

/// Parses a type mangling the way the runtime's demangler does (a stack of nodes; identifiers,
/// nominal types, bound generic types and `Sg` optionals registered as substitutions; words of
/// identifiers for word substitutions), for the operators listed in `parse`; any other operator
/// gives nil. Sources: swiftlang/swift `lib/Demangling/Demangler.cpp` (`demangleOperator`,
/// `demangleIdentifier`, `demangleMultiSubstitutions`, `demangleBoundGenericType`, `popTuple`),
/// `docs/ABI/Mangling.rst`.
enum MangledTypeReader {
  private enum Entry {
    case type(MangledType)
    case identifier(String)
    case privateName(String, discriminator: String)
    case localName(String, index: String)
    case emptyList
    case firstElement
    case annotation(String)
  }

  /// `name` as a mangled identifier (its length, then its bytes); names are ASCII here.
  static func identifier(_ name: String) -> String { "\(name.utf8.count)\(name)" }

  /// The type the mangling `text` spells (no leading `$s`), or nil when it uses an operator not
  /// read here, or does not spell exactly one type. A generic signature before the type (a field
  /// of a generic type: `s8SendableRzl…` for `<A: Sendable>`, `Ri_zl…` for `~Copyable`, an empty
  /// `l`) is read for the substitutions and words its names add, and dropped.
  static func parse(_ text: [UInt8]) -> MangledType? {
    guard let types = parseList(text), types.count == 1 else { return nil }
    return types[0]
  }

  /// The types the mangling `text` spells one after the other (a key path witness's name spells
  /// its subscript's argument types so), or nil as for `parse`.
  static func parseList(_ text: [UInt8]) -> [MangledType]? {
    var parser = Parser(text: text)
    return parser.run()
  }

  private struct Parser {
    let text: [UInt8]
    var position = 0
    var stack: [Entry] = []
    var substitutions: [Entry] = []
    var words: [String] = []

    /// A generic signature may still end (`l`): at the start, and after each requirement.
    var signatureIsOpen = true
    var sawRequirement = false

    init(text: [UInt8]) { self.text = text }

    mutating func run() -> [MangledType]? {
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

    func peek() -> UInt8? { position < text.count ? text[position] : nil }
    mutating func next() -> UInt8? {
      guard position < text.count else { return nil }
      defer { position += 1 }
      return text[position]
    }
    mutating func nextIf(_ byte: Character) -> Bool {
      guard peek() == byte.asciiValue else { return false }
      position += 1
      return true
    }
    static func isDigit(_ byte: UInt8?) -> Bool { byte.map { (48...57).contains($0) } ?? false }
    static func isLower(_ byte: UInt8) -> Bool { (97...122).contains(byte) }
    static func isUpper(_ byte: UInt8) -> Bool { (65...90).contains(byte) }

    mutating func natural() -> Int? {
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
    mutating func index() -> (value: Int, text: String)? {
      let start = position
      if nextIf("_") { return (0, "_") }
      guard let number = natural(), nextIf("_") else { return nil }
      return (number + 1, String(decoding: text[start..<position], as: UTF8.self))
    }

    mutating func pop() -> Entry? { stack.popLast() }
    mutating func popType() -> MangledType? {
      guard case .type(let type) = stack.last else { return nil }
      stack.removeLast()
      return type
    }
    mutating func popIf(_ matches: (Entry) -> Bool) -> Bool {
      guard let last = stack.last, matches(last) else { return false }
      stack.removeLast()
      return true
    }
    mutating func popEmptyList() -> Bool {
      popIf {
        if case .emptyList = $0 { return true }
        return false
      }
    }
    mutating func popFirstElement() -> Bool {
      popIf {
        if case .firstElement = $0 { return true }
        return false
      }
    }
    mutating func push(_ type: MangledType, substitution: Bool) {
      stack.append(.type(type))
      if substitution { substitutions.append(.type(type)) }
    }

    mutating func step() -> Bool {
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

    /// Demangler::demangleIdentifier: plain, or with word substitutions after a `0`; the words of
    /// each literal part are recorded (at least two characters, split at `_` and at a capital
    /// after a non-capital). Punycode (`00`) is not read.
    mutating func identifier() -> Bool {
      var hasWordSubstitutions = false
      if peek() == UInt8(ascii: "0") {
        position += 1
        if peek() == UInt8(ascii: "0") { return false }
        hasWordSubstitutions = true
      }
      var name = ""
      repeat {
        while hasWordSubstitutions, let byte = peek(), Self.isLower(byte) || Self.isUpper(byte) {
          position += 1
          let index = Int(Self.isLower(byte) ? byte - 97 : byte - 65)
          if Self.isUpper(byte) { hasWordSubstitutions = false }
          guard index < words.count else { return false }
          name += words[index]
        }
        if nextIf("0") { break }
        guard let count = natural(), count > 0, position + count <= text.count else { return false }
        let slice = Array(text[position..<(position + count)])
        name += String(decoding: slice, as: UTF8.self)
        recordWords(slice)
        position += count
      } while hasWordSubstitutions
      guard !name.isEmpty else { return false }
      stack.append(.identifier(name))
      substitutions.append(.identifier(name))
      return true
    }

    mutating func recordWords(_ slice: [UInt8]) {
      var start: Int?
      for index in 0...slice.count {
        let byte: UInt8 = index < slice.count ? slice[index] : 0
        if let wordStart = start {
          let previous = slice[index - 1]
          let isEnd =
            byte == UInt8(ascii: "_") || byte == 0 || (!Self.isUpper(previous) && Self.isUpper(byte))
          if isEnd {
            if index - wordStart >= 2 && words.count < 26 {
              words.append(String(decoding: slice[wordStart..<index], as: UTF8.self))
            }
            start = nil
          }
        }
        if start == nil, byte != 0, byte != UInt8(ascii: "_"), !Self.isDigit(byte) { start = index }
      }
    }

    /// Demangler::demangleMultiSubstitutions.
    mutating func multiSubstitution() -> Bool {
      var repeatCount = -1
      while let byte = next() {
        if Self.isLower(byte) || Self.isUpper(byte) {
          let index = Int(Self.isLower(byte) ? byte - 97 : byte - 65)
          guard index < substitutions.count, repeatCount <= 2_048 else { return false }
          for _ in 0..<max(repeatCount, 1) { stack.append(substitutions[index]) }
          if Self.isUpper(byte) { return true }
          repeatCount = -1
          continue
        }
        if byte == UInt8(ascii: "_") {
          let index = repeatCount + 27
          guard repeatCount >= 0, index < substitutions.count else { return false }
          stack.append(substitutions[index])
          return true
        }
        position -= 1
        guard let count = natural() else { return false }
        repeatCount = count
      }
      return false
    }

    /// Demangler::demangleStandardSubstitution: `So` (the `__C` module), `Sg` (an optional of the
    /// type before), or a standard type (`Si`, second level `ScT`), with an optional repeat count.
    mutating func standardSubstitution() -> Bool {
      if nextIf("o") {
        push(.module("__C"), substitution: false)
        return true
      }
      if nextIf("g") {
        guard let wrapped = popType() else { return false }
        push(.bound(.standard("Sq"), levels: [[wrapped]]), substitution: true)
        return true
      }
      let count = natural() ?? 1
      let secondLevel = nextIf("c")
      guard let letter = next(), Self.isLower(letter) || Self.isUpper(letter), count <= 64 else {
        return false
      }
      let text = "S" + (secondLevel ? "c" : "") + String(UnicodeScalar(letter))
      for _ in 0..<count { push(.standard(text), substitution: false) }
      return true
    }

    /// Demangler::demangleAnyGenericType: pops the name and the context.
    mutating func nominal(kind: UInt8) -> Bool {
      guard let name = pop() else { return false }
      let context: MangledType
      switch pop() {
      case .identifier(let module): context = .module(module)
      case .type(let type):
        switch type {
        case .module, .nominal, .standard: context = type
        default: return false
        }
      default: return false
      }
      let type: MangledType
      switch name {
      case .identifier(let text):
        type = .nominal(kind: kind, context: context, name: text, discriminator: nil, local: nil)
      case .privateName(let text, let discriminator):
        type = .nominal(kind: kind, context: context, name: text, discriminator: discriminator, local: nil)
      case .localName(let text, let index):
        type = .nominal(kind: kind, context: context, name: text, discriminator: nil, local: index)
      default:
        return false
      }
      push(type, substitution: true)
      return true
    }

    /// Demangler::demangleLocalIdentifier: `LL` (a private name: the discriminator, then the
    /// name, popped) or `L<index>` (a local name).
    mutating func localName() -> Bool {
      if nextIf("L") {
        guard case .identifier(let discriminator) = pop(), case .identifier(let name) = pop() else {
          return false
        }
        stack.append(.privateName(name, discriminator: discriminator))
        return true
      }
      guard let index = index(), case .identifier(let name) = pop() else { return false }
      stack.append(.localName(name, index: "L" + index.text))
      return true
    }

    /// Demangler::demangleBoundGenericType: the argument lists, innermost popped first, each
    /// started by `_` and the outermost by `y`; then the nominal type.
    mutating func boundGeneric() -> Bool {
      var levels: [[MangledType]] = []
      while true {
        var arguments: [MangledType] = []
        while let type = popType() { arguments.insert(type, at: 0) }
        levels.insert(arguments, at: 0)
        if popEmptyList() { break }
        guard popFirstElement() else { return false }
      }
      guard let nominal = popType() else { return false }
      switch nominal {
      case .nominal, .standard: break
      default: return false
      }
      push(.bound(nominal, levels: levels), substitution: true)
      return true
    }

    /// A requirement of a generic signature (Mangling.rst, `requirement`), whose operands stay
    /// on the stack until the signature ends: `R` (a protocol on a parameter), `Rs`/`Rb` (same
    /// type, base class) and `Ri` (an inverse, `~Copyable`) on a parameter; requirements on
    /// associated types and layouts are not read.
    mutating func requirement() -> Bool {
      guard signatureIsOpen else { return false }
      sawRequirement = true
      switch peek() {
      case UInt8(ascii: "s"), UInt8(ascii: "b"):
        position += 1
      case UInt8(ascii: "i"):
        position += 1
        guard index() != nil else { return false }
      default:
        break
      }
      // GENERIC-PARAM-INDEX: `z`, an index, or `d` and two indices.
      if nextIf("z") { return true }
      if nextIf("d") { return index() != nil && index() != nil }
      return index() != nil
    }

    /// Demangler::demangleGenericParamIndex: `q_`, `q<n>_`, `qd<depth>_<index>`.
    mutating func genericParameter() -> Bool {
      let start = position - 1
      if nextIf("d") {
        guard index() != nil, index() != nil else { return false }
      } else {
        guard index() != nil else { return false }
      }
      push(.standard(String(decoding: text[start..<position], as: UTF8.self)), substitution: false)
      return true
    }

    /// A tuple (`t`, elements with optional labels), a protocol composition (`p`) or a
    /// composition with `AnyObject` (`Xl`): `y` when empty, else the elements, the first followed
    /// by `_` (Demangler::popTuple, popProtocolList).
    mutating func list(suffix: String, labels: Bool) -> Bool {
      if popEmptyList() {
        push(.composite(prefix: "y", parts: [], separators: [], suffix: suffix), substitution: false)
        return true
      }
      var parts: [MangledType] = []
      var separators: [String] = []
      while true {
        let isFirst = popFirstElement()
        var label = ""
        if labels, case .identifier(let name) = stack.last {
          stack.removeLast()
          label = MangledTypeReader.identifier(name)
        }
        guard let type = popType() else { return false }
        parts.insert(type, at: 0)
        separators.insert(label + (isFirst ? "_" : ""), at: 0)
        if isFirst { break }
      }
      push(.composite(prefix: "", parts: parts, separators: separators, suffix: suffix), substitution: false)
      return true
    }

    /// Demangler::popFunctionType: the annotations read here (`Ya` async, `Yb` sendable, `K`
    /// throws), then the parameters and the result (each a type, or `y` for none).
    mutating func functionType() -> Bool {
      var annotations: [String] = []
      while case .annotation(let text) = stack.last {
        stack.removeLast()
        annotations.insert(text, at: 0)
      }
      func popParameters(_ parser: inout Parser) -> MangledType? {
        if parser.popEmptyList() { return .composite(prefix: "y", parts: [], separators: [], suffix: "") }
        return parser.popType()
      }
      guard let parameters = popParameters(&self), let result = popParameters(&self) else { return false }
      push(
        .composite(
          prefix: "", parts: [result, parameters], separators: [], suffix: annotations.joined() + "c"),
        substitution: false)
      return true
    }
  }
}
