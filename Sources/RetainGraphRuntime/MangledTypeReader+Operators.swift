// The parser's nominal, generic, list and function-type operators (see MangledTypeReader.swift).

extension MangledTypeReader.Parser {
  /// Demangler::demangleAnyGenericType: pops the name and the context.
  package mutating func nominal(kind: UInt8) -> Bool {
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
  package mutating func localName() -> Bool {
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
  package mutating func boundGeneric() -> Bool {
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
  package mutating func requirement() -> Bool {
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
  package mutating func genericParameter() -> Bool {
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
  package mutating func list(suffix: String, labels: Bool) -> Bool {
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
  package mutating func functionType() -> Bool {
    var annotations: [String] = []
    while case .annotation(let text) = stack.last {
      stack.removeLast()
      annotations.insert(text, at: 0)
    }
    func popParameters(_ parser: inout MangledTypeReader.Parser) -> MangledType? {
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
