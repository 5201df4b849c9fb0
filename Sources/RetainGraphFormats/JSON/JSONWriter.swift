/// Writes JSON byte for byte as Foundation's `JSONEncoder` does with `.prettyPrinted`, `.sortedKeys`
/// and `.withoutEscapingSlashes`, for ``ObjectGraph/jsonData()``: it cannot fail, so neither can the
/// writing of a graph.
///
/// Two spaces of indentation, `"key" : value`, an empty container as `[` and `]` with an empty line
/// between them; in strings `"` and `\` are escaped, the control characters below U+0020 are `\b`,
/// `\t`, `\n`, `\f`, `\r` or `\u00XX`, and everything else (`/`, U+007F, all non-ASCII) is written as
/// it is. The caller writes an object's keys in ascending order. Containers nest only as deep as the
/// format does (a few levels), never as deep as a graph.
package struct JSONWriter {
  package var bytes: [UInt8] = []
  /// Per open container, whether it has no member yet.
  private var isEmpty: [Bool] = []

  package init(reservingCapacity capacity: Int = 0) { bytes.reserveCapacity(capacity) }

  package mutating func beginObject() { open(0x7B) }
  package mutating func endObject() { close(0x7D) }
  package mutating func beginArray() { open(0x5B) }
  package mutating func endArray() { close(0x5D) }

  /// Starts an object's member: its key, then its value is written next.
  package mutating func key(_ key: String) {
    newMember()
    string(key)
    bytes.append(contentsOf: [0x20, 0x3A, 0x20])  // " : "
  }

  /// Starts an array's element: its value is written next.
  package mutating func element() { newMember() }

  package mutating func string(_ text: String) {
    bytes.append(0x22)
    for byte in text.utf8 {
      switch byte {
      case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
      case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
      case 0x08: bytes.append(contentsOf: [0x5C, 0x62])
      case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
      case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
      case 0x0C: bytes.append(contentsOf: [0x5C, 0x66])
      case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
      case 0..<0x20:
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
      default: bytes.append(byte)
      }
    }
    bytes.append(0x22)
  }

  package mutating func integer(_ value: Int) { bytes.append(contentsOf: String(value).utf8) }

  package mutating func boolean(_ value: Bool) { bytes.append(contentsOf: (value ? "true" : "false").utf8) }

  /// `key` and its string value.
  package mutating func member(_ key: String, _ value: String) {
    self.key(key)
    string(value)
  }

  /// `key` and its integer value.
  package mutating func member(_ key: String, _ value: Int) {
    self.key(key)
    integer(value)
  }

  private mutating func open(_ bracket: UInt8) {
    bytes.append(bracket)
    isEmpty.append(true)
  }

  private mutating func close(_ bracket: UInt8) {
    let wasEmpty = isEmpty.removeLast()
    bytes.append(0x0A)
    if wasEmpty { bytes.append(0x0A) }
    indent()
    bytes.append(bracket)
  }

  private mutating func newMember() {
    if isEmpty[isEmpty.count - 1] {
      isEmpty[isEmpty.count - 1] = false
    } else {
      bytes.append(0x2C)
    }
    bytes.append(0x0A)
    indent()
  }

  private mutating func indent() {
    bytes.append(contentsOf: repeatElement(0x20, count: 2 * isEmpty.count))
  }
}
