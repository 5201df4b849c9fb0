internal import Foundation

// How the snapshot reader reads one field's value from the scanner, and the names the format gives
// node kinds, ownerships and edge kinds.

/// A kind of record array a document collects (``JSONDocument/NodeRecords`` and the others).
protocol JSONRecords { init() }
extension JSONDocument.NodeRecords: JSONRecords {}
extension JSONDocument.EdgeRecords: JSONRecords {}
extension JSONDocument.DanglingRecords: JSONRecords {}
extension JSONDocument.NoteRecords: JSONRecords {}
extension JSONDocument.NoteDetailRecords: JSONRecords {}

extension JSONField {
  func map<Other>(_ transform: (Value) -> Other) -> JSONField<Other> {
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
  mutating func integerField() throws(JSONSyntaxError) -> JSONField<Int> {
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
  mutating func stringField(optional: Bool = false) throws(JSONSyntaxError)
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

  mutating func booleanField() throws(JSONSyntaxError) -> JSONField<Bool> {
    let offset = position
    switch byte(offset) {
    case 0x74, 0x66: return try literal().map { .value($0) } ?? .wrongType(at: offset)
    default:
      try skipValue()
      return .wrongType(at: offset)
    }
  }

  /// A string field naming one of a few values: the value, or where the unknown name is.
  mutating func enumField<Value>(_ named: (UnsafeBufferPointer<UInt8>) -> Value?)
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
  @inline(__always) func equals(_ name: StaticString) -> Bool {
    guard count == name.utf8CodeUnitCount else { return false }
    let expected = name.utf8Start
    for index in 0..<count where self[index] != expected[index] { return false }
    return true
  }
}

extension Node.Kind {
  init?(json bytes: UnsafeBufferPointer<UInt8>) {
    if bytes.equals("object") {
      self = .object
    } else if bytes.equals("closure") {
      self = .closure
    } else if bytes.equals("value") {
      self = .value
    } else if bytes.equals("task") {
      self = .task
    } else {
      return nil
    }
  }
}

extension Ownership {
  init?(json bytes: UnsafeBufferPointer<UInt8>) {
    if bytes.equals("strong") {
      self = .strong
    } else if bytes.equals("weak") {
      self = .weak
    } else if bytes.equals("unowned") {
      self = .unowned
    } else if bytes.equals("unowned(unsafe)") {
      self = .unownedUnsafe
    } else {
      return nil
    }
  }
}

extension Edge.Kind {
  /// Every kind's name in a JSON snapshot, in declaration order.
  static let jsonNames = [
    "property", "enumPayload", "element", "closure", "singleCapture", "methodReference", "capture", "global",
    "suspendedFrame", "actorIsolation",
  ]

  private static let jsonNameBytes: [[UInt8]] = jsonNames.map { Array($0.utf8) }

  /// The index in ``jsonNames`` of the kind named by `bytes`.
  static func jsonIndex(of bytes: UnsafeBufferPointer<UInt8>) -> Int8? {
    for (index, name) in jsonNameBytes.enumerated() where name.elementsEqual(bytes) { return Int8(index) }
    return nil
  }

  /// The kind's name in a JSON snapshot.
  var jsonName: String {
    switch self {
    case .property: "property"
    case .enumPayload: "enumPayload"
    case .element: "element"
    case .closure: "closure"
    case .singleCapture: "singleCapture"
    case .methodReference: "methodReference"
    case .capture: "capture"
    case .actorIsolation: "actorIsolation"
    case .global: "global"
    case .suspendedFrame: "suspendedFrame"
    }
  }

  /// A kind without an argument, by its JSON name.
  init?(jsonName: String) {
    switch jsonName {
    case "property": self = .property
    case "enumPayload": self = .enumPayload
    case "element": self = .element
    case "closure": self = .closure
    case "singleCapture": self = .singleCapture
    case "global": self = .global
    case "suspendedFrame": self = .suspendedFrame
    default: return nil
    }
  }
}
