// Reading one field's value: the value when it has the type asked for, else where the value of
// another type (or the unknown name) is, so that a reader can describe it in its message.

/// A field as read: missing, a value, a value of another type, or a string that names nothing known
/// (the last two by where the value is in the text, to describe it in a message).
///
/// `public` with `package` members, as ``JSONScanner`` is: so that the readers below are
/// specialised where they are called.
public enum JSONField<Value> {
  case missing
  case value(Value)
  case wrongType(at: Int)
  case unknown(at: Int)
  /// A value of another type, described (a top-level field's, whose text may be gone by the time
  /// it is validated).
  case described(String)
}

extension JSONField {
  @inlinable package func map<Other>(_ transform: (Value) -> Other) -> JSONField<Other> {
    switch self {
    case .missing: .missing
    case .value(let value): .value(transform(value))
    case .wrongType(let offset): .wrongType(at: offset)
    case .unknown(let offset): .unknown(at: offset)
    case .described(let text): .described(text)
    }
  }
}

extension JSONScanner {
  /// An integer field's value: a number that is an integer, or where the value of another type is.
  @inlinable package mutating func integerField() throws(JSONSyntaxError) -> JSONField<Int> {
    let offset = position
    switch byte(offset) {
    case 0x2D, 0x30...0x39:
      guard let value = try number().integerValue else { return .wrongType(at: offset) }
      return .value(value)
    default:
      try skipValue()
      return .wrongType(at: offset)
    }
  }

  /// A string field's UTF-8 (valid until the next string is read); `optional`, null is no value.
  @inlinable package mutating func stringField(optional: Bool = false) throws(JSONSyntaxError)
    -> JSONField<UnsafeBufferPointer<UInt8>>
  {
    let offset = position
    switch byte(offset) {
    case 0x22: return .value(try string())
    case 0x6E where optional:
      _ = try literal()
      return .missing
    default:
      try skipValue()
      return .wrongType(at: offset)
    }
  }

  @inlinable package mutating func booleanField() throws(JSONSyntaxError) -> JSONField<Bool> {
    let offset = position
    switch byte(offset) {
    case 0x74, 0x66: return try literal().map { .value($0) } ?? .wrongType(at: offset)
    default:
      try skipValue()
      return .wrongType(at: offset)
    }
  }

  /// A string field naming one of a few values: the value, or where the unknown name is.
  @inlinable package mutating func enumField<Value>(_ named: (UnsafeBufferPointer<UInt8>) -> Value?)
    throws(JSONSyntaxError) -> JSONField<Value>
  {
    let offset = position
    guard byte(offset) == 0x22 else {
      try skipValue()
      return .wrongType(at: offset)
    }
    return named(try string()).map { .value($0) } ?? .unknown(at: offset)
  }
}

extension UnsafeBufferPointer<UInt8> {
  /// Whether these bytes are `name`'s UTF-8.
  @inlinable @inline(__always) package func equals(_ name: StaticString) -> Bool {
    guard count == name.utf8CodeUnitCount else { return false }
    let expected = name.utf8Start
    for index in 0..<count where self[index] != expected[index] { return false }
    return true
  }
}

extension JSONScanner {
  /// The string at `offset` in the window, as text ("" when it is not a string).
  package func text(at offset: Int) -> String {
    var scanner = rereading(at: offset)
    defer { scanner.deallocate() }
    guard let bytes = try? scanner.string() else { return "" }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// A short description of the value at `offset` in the window, for messages: its type and, for
  /// scalars, the value (`the string "…"`, `an array`, `the number 4.5`).
  package func valueDescription(at offset: Int) -> String {
    var scanner = rereading(at: offset)
    defer { scanner.deallocate() }
    switch scanner.byte(offset) {
    case 0x22:
      let text = text(at: offset)
      let shown = text.count > 40 ? text.prefix(40) + "…" : Substring(text)
      return "the string \"\(shown)\""
    case 0x5B: return "an array"
    case 0x7B: return "an object"
    case 0x74: return "true"
    case 0x66: return "false"
    case 0x6E: return "null"
    default:
      guard let number = try? scanner.number() else { return "a value" }
      return "the number \(number.description)"
    }
  }
}
