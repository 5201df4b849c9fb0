internal import Foundation

/// Why a text is not JSON, in the words Foundation's `JSONSerialization` uses for the same fault.
struct JSONSyntaxError: Error {
  var reason: String

  /// Not an error of the text: a scanner reading a file in windows reached the end of its window
  /// (``JSONScanner/refill(keepingFrom:)`` reads on and the value is read again).
  static let needsMore = JSONSyntaxError(reason: "")
  var needsMore: Bool { reason.isEmpty }
}

/// Reads JSON from UTF-8 bytes token by token, without building a tree: the reader asks for the
/// values it wants and skips the others. It accepts exactly the texts `JSONSerialization` accepts
/// (trailing commas in arrays and objects, containers nested at most 512 deep, every escape, numbers
/// that fit a `Double` or a `Decimal`), except that a string keeps a U+FEFF that follows an escape or
/// opens it (Foundation drops it there). Nothing here recurses: containers are skipped with a counter
/// and a stack of their kinds.
struct JSONScanner {
  /// The deepest nesting of arrays and objects `JSONSerialization` reads.
  static let maximumDepth = 512

  private var base: UnsafePointer<UInt8>
  /// The bytes in the window, from ``base``.
  private(set) var count: Int
  /// The offset in the window of the next byte to read.
  private(set) var position: Int
  /// Whether the window ends where the text ends (always, unless the text is read from a file).
  private(set) var isFinal = true
  /// The offset in the text of the window's first byte.
  private(set) var consumed = 0
  /// How many times the window moved: a saved offset is valid while this is unchanged.
  private(set) var moves = 0
  /// A file's bytes in a window, and how to read more (nil when the whole text is in memory).
  private var window: UnsafeMutableBufferPointer<UInt8>?
  private let source: ((UnsafeMutableRawBufferPointer) -> Int)?
  /// Whether reading the file failed (the text then ends there).
  private(set) var readFailed = false
  /// How many arrays and objects are open around ``position``.
  private(set) var depth = 0
  /// Strings with escapes are decoded here (grown as needed, freed by ``deallocate()``).
  private var scratch: UnsafeMutableBufferPointer<UInt8>
  /// Whether each container ``skipValue()`` has open is an object (its kinds, innermost last).
  private var skipping: [Bool] = []

  /// A scanner of `buffer`, which must outlive it; call ``deallocate()`` when done.
  init(_ buffer: UnsafeBufferPointer<UInt8>, position: Int = 0) {
    // An empty buffer may have no address; nothing is read from it then.
    base = buffer.baseAddress ?? UnsafePointer(Self.empty)
    count = buffer.count
    self.position = position
    scratch = .allocate(capacity: 64)
    window = nil
    source = nil
  }

  /// A scanner of a text read from `source` (which fills the buffer it is given and returns how
  /// many bytes it read, 0 at the end, -1 on failure) in a window of `windowSize` bytes at first,
  /// grown when one value needs more; `initial` is what was read already (at most `windowSize`).
  init(
    initial: UnsafeBufferPointer<UInt8>, windowSize: Int,
    source: @escaping (UnsafeMutableRawBufferPointer) -> Int
  ) {
    let window = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(windowSize, initial.count, 16))
    _ = window.initialize(from: initial)
    base = UnsafePointer(window.baseAddress.unsafelyUnwrapped)
    count = initial.count
    position = 0
    scratch = .allocate(capacity: 64)
    self.window = window
    self.source = source
    isFinal = false
  }

  nonisolated(unsafe) private static let empty = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

  func deallocate() {
    scratch.deallocate()
    window?.deallocate()
  }

  /// A scanner of the window as it is, to read again a value already read (for a message).
  func rereading(at offset: Int) -> JSONScanner {
    JSONScanner(UnsafeBufferPointer(start: base, count: count), position: offset)
  }

  // MARK: the window

  /// Moves the window to start at `start` (an offset in it) and reads on; the window grows when
  /// what it keeps fills more than half of it. At the end of the file, the window is final.
  mutating func refill(keepingFrom start: Int) {
    guard let source, var buffer = window, !isFinal else { return }
    let kept = count - start
    if kept * 2 > buffer.count {
      let grown = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: buffer.count * 2)
      (grown.baseAddress.unsafelyUnwrapped).update(from: base + start, count: kept)
      buffer.deallocate()
      buffer = grown
      window = grown
    } else if kept > 0 && start > 0 {
      (buffer.baseAddress.unsafelyUnwrapped).update(from: base + start, count: kept)
    }
    var filled = kept
    while filled < buffer.count {
      let read = source(
        UnsafeMutableRawBufferPointer(
          start: buffer.baseAddress.unsafelyUnwrapped + filled, count: buffer.count - filled))
      if read <= 0 {
        readFailed = read < 0
        isFinal = true
        break
      }
      filled += read
    }
    base = UnsafePointer(buffer.baseAddress.unsafelyUnwrapped)
    consumed += start
    position -= start
    count = filled
    moves += 1
  }

  /// Reads on when fewer than `amount` bytes are left in the window.
  @inline(__always) mutating func ensureAhead(_ amount: Int) {
    if !isFinal && count - position < amount { refill(keepingFrom: position) }
  }

  /// ``skipWhitespace()``, reading on at the end of the window: only where no offset is kept.
  mutating func skipWhitespaceReadingOn() -> Int {
    while true {
      let next = skipWhitespace()
      if next >= 0 || isFinal { return next }
      refill(keepingFrom: position)
    }
  }

  /// Reads a value with `body` from the position, again from the same place with more of the file
  /// in the window whenever the window ends before the value does.
  mutating func rereadingOn<Value>(_ body: (inout JSONScanner) throws(JSONSyntaxError) -> Value)
    throws(JSONSyntaxError) -> Value
  {
    ensureAhead(Self.lookahead)
    while true {
      let (start, depth, skipped, moves) = (position, self.depth, skipping.count, self.moves)
      do throws(JSONSyntaxError) {
        return try body(&self)
      } catch let error where error.needsMore {
        // The window moved inside the value only if the value reads on itself: then it cannot be
        // read again (never the case for the values read here).
        guard self.moves == moves else {
          throw JSONSyntaxError(reason: "Unexpected end of file during JSON parse.")
        }
        position = start
        self.depth = depth
        skipping.removeLast(skipping.count - skipped)
        refill(keepingFrom: start)
      }
    }
  }

  /// How much of the file the window holds ahead of a value before reading it.
  static let lookahead = 1 << 16

  // MARK: bytes

  /// The byte at `offset`, or -1 past the end.
  @inline(__always) func byte(_ offset: Int) -> Int {
    offset < count ? Int(base[offset]) : -1
  }

  /// Skips spaces, tabs, line feeds and carriage returns; returns the next byte (-1 at the end).
  @inline(__always) mutating func skipWhitespace() -> Int {
    while position < count {
      let next = base[position]
      guard next == 0x20 || next == 0x0A || next == 0x0D || next == 0x09 else { return Int(next) }
      position += 1
    }
    return -1
  }

  /// The error for the byte at `offset`: the end of the text, or a byte that cannot be there.
  func unexpected(at offset: Int) -> JSONSyntaxError {
    if offset >= count && !isFinal { return .needsMore }
    return offset >= count
      ? JSONSyntaxError(reason: "Unexpected end of file during JSON parse.")
      : JSONSyntaxError(reason: "Invalid value around character \(consumed + offset).")
  }

  /// After a value: only whitespace may follow the top level.
  mutating func expectEnd() throws(JSONSyntaxError) {
    if skipWhitespaceReadingOn() >= 0 {
      throw JSONSyntaxError(reason: "Invalid value around character \(consumed + position).")
    }
  }

  /// Skips whitespace and a colon and the whitespace after it, up to a member's value.
  @inline(__always) mutating func expectColon() throws(JSONSyntaxError) {
    guard skipWhitespace() == 0x3A else { throw unexpected(at: position) }
    position += 1
    _ = skipWhitespace()
  }

  private mutating func open() throws(JSONSyntaxError) {
    guard depth < Self.maximumDepth else {
      throw JSONSyntaxError(
        reason: "Too many nested arrays or dictionaries around character \(consumed + position + 1).")
    }
    depth += 1
    position += 1
  }

  // MARK: containers

  /// Reads the object at the position (`{`), calling `member` with each key (valid until the next
  /// string is read) while the position is at the key's value; `member` must read or skip the value.
  /// A key given twice is given twice: the last value wins, as in Foundation.
  /// `readingOn`: the window reads on between members, and a member is read again when the window
  /// ends inside it (``rereadingOn(_:)``); `member` must then change nothing before it has read the
  /// value whole.
  @inline(__always) mutating func members(
    readingOn: Bool = false,
    _ member: (inout JSONScanner, UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> Void
  ) throws(JSONSyntaxError) {
    try open()
    var next = readingOn ? skipWhitespaceReadingOn() : skipWhitespace()
    if next == 0x7D {
      position += 1
      depth -= 1
      return
    }
    while true {
      guard next == 0x22 else { throw unexpected(at: position) }
      if readingOn {
        try rereadingOn { scanner throws(JSONSyntaxError) in
          let key = try scanner.string()
          try scanner.expectColon()
          try member(&scanner, key)
        }
      } else {
        let key = try string()
        try expectColon()
        try member(&self, key)
      }
      next = readingOn ? skipWhitespaceReadingOn() : skipWhitespace()
      if next == 0x2C {
        position += 1
        next = readingOn ? skipWhitespaceReadingOn() : skipWhitespace()
        if next == 0x7D { break }  // a trailing comma, which Foundation accepts
      } else if next == 0x7D {
        break
      } else {
        throw unexpected(at: position)
      }
    }
    position += 1
    depth -= 1
  }

  /// Reads the array at the position (`[`), calling `element` with each element's index while the
  /// position is at the element; `element` must read or skip it.
  /// `readingOn`: as for ``members(readingOn:_:)``.
  @inline(__always) mutating func elements(
    readingOn: Bool = false, _ element: (inout JSONScanner, Int) throws(JSONSyntaxError) -> Void
  ) throws(JSONSyntaxError) {
    try open()
    var next = readingOn ? skipWhitespaceReadingOn() : skipWhitespace()
    var index = 0
    if next == 0x5D {
      position += 1
      depth -= 1
      return
    }
    while true {
      if readingOn {
        try rereadingOn { scanner throws(JSONSyntaxError) in try element(&scanner, index) }
      } else {
        try element(&self, index)
      }
      index += 1
      next = readingOn ? skipWhitespaceReadingOn() : skipWhitespace()
      if next == 0x2C {
        position += 1
        next = readingOn ? skipWhitespaceReadingOn() : skipWhitespace()
        if next == 0x5D { break }  // a trailing comma
      } else if next == 0x5D {
        break
      } else {
        throw unexpected(at: position)
      }
    }
    position += 1
    depth -= 1
  }

  /// Skips the value at the position, checking that it is JSON, with no recursion on its depth.
  mutating func skipValue() throws(JSONSyntaxError) {
    let outer = skipping.count
    while true {
      // At a value.
      let next = skipWhitespace()
      switch next {
      case 0x7B, 0x5B:  // { [
        try open()
        let isObject = next == 0x7B
        skipping.append(isObject)
        let first = skipWhitespace()
        if first == (isObject ? 0x7D : 0x5D) {
          position += 1
          depth -= 1
          skipping.removeLast()
        } else {
          if isObject { try skipKey() }
          continue
        }
      case 0x22: _ = try string()
      case 0x2D, 0x30...0x39: _ = try number()
      case 0x74, 0x66, 0x6E: _ = try literal()
      default: throw unexpected(at: position)
      }
      // After a value: close the containers it ends.
      while skipping.count > outer {
        let isObject = skipping[skipping.count - 1]
        let close = isObject ? 0x7D : 0x5D
        var after = skipWhitespace()
        if after == 0x2C {
          position += 1
          after = skipWhitespace()
          if after != close {
            if isObject { try skipKey() }
            break
          }
        } else if after != close {
          throw unexpected(at: position)
        }
        position += 1
        depth -= 1
        skipping.removeLast()
      }
      if skipping.count == outer { return }
    }
  }

  private mutating func skipKey() throws(JSONSyntaxError) {
    guard skipWhitespace() == 0x22 else { throw unexpected(at: position) }
    _ = try string()
    try expectColon()
  }

  // MARK: scalars

  /// The literal at the position: `true`, `false` or `null` (nil).
  mutating func literal() throws(JSONSyntaxError) -> Bool? {
    let (word, value): ([UInt8], Bool?) =
      switch byte(position) {
      case 0x74: (Self.trueBytes, true)
      case 0x66: (Self.falseBytes, false)
      default: (Self.nullBytes, nil)
      }
    for expected in word {
      guard byte(position) == Int(expected) else { throw unexpected(at: position) }
      position += 1
    }
    return value
  }

  private static let trueBytes = Array("true".utf8)
  private static let falseBytes = Array("false".utf8)
  private static let nullBytes = Array("null".utf8)

  /// A number as `JSONSerialization` reads it: an integer written with at most 18 digits as itself,
  /// any other as the `NSNumber` Foundation makes of it (`Int64`, `UInt64`, `Decimal` or `Double`).
  enum Number {
    case integer(Int)
    case other(NSNumber)

    /// The integer it is, as the reader accepts one: an `NSNumber` that converts to `Int` exactly.
    var integerValue: Int? {
      switch self {
      case .integer(let value): return value
      case .other(let number):
        guard !JSONScanner.isBoolean(number), let integer = number as? Int,
          number.doubleValue == Double(integer)
        else { return nil }
        return integer
      }
    }

    /// As a message shows it: `42`, `0.5`, `1e+300`.
    var description: String {
      switch self {
      case .integer(let value): "\(value)"
      case .other(let number): "\(number)"
      }
    }
  }

  /// JSON booleans are `NSNumber`s of Objective-C type `c`; a number never is one here, but the
  /// check is the one the reader always made.
  static func isBoolean(_ number: NSNumber) -> Bool {
    String(cString: number.objCType) == "c"
  }

  /// The number at the position (`-` or a digit), in JSON's grammar.
  mutating func number() throws(JSONSyntaxError) -> Number {
    let start = position
    var negative = false
    if base[position] == 0x2D {
      negative = true
      position += 1
    }
    var value = 0
    var digits = 0
    let first = byte(position)
    guard first >= 0x30 && first <= 0x39 else { throw unexpected(at: position) }
    if first == 0x30 {
      position += 1
      digits = 1
      let next = byte(position)
      if next >= 0x30 && next <= 0x39 {
        throw JSONSyntaxError(reason: "Number with leading zero around character \(consumed + position).")
      }
    } else {
      while position < count {
        let digit = Int(base[position]) &- 0x30
        guard digit >= 0 && digit <= 9 else { break }
        if digits < 18 { value = value &* 10 &+ digit }
        digits += 1
        position += 1
      }
    }
    var isInteger = true
    if byte(position) == 0x2E {  // .
      isInteger = false
      position += 1
      try skipDigits()
    }
    let exponent = byte(position)
    if exponent == 0x65 || exponent == 0x45 {  // e E
      isInteger = false
      position += 1
      let sign = byte(position)
      if sign == 0x2B || sign == 0x2D { position += 1 }
      try skipDigits()
    }
    switch byte(position) {
    case -1: if !isFinal { throw .needsMore }
    case 0x20, 0x0A, 0x0D, 0x09, 0x2C, 0x5D, 0x7D: break
    default: throw unexpected(at: position)
    }
    if isInteger && digits <= 18 { return .integer(negative ? -value : value) }
    let literal = String(
      decoding: UnsafeBufferPointer(start: base + start, count: position - start), as: UTF8.self)
    guard let number = Self.foundationNumber(literal) else {
      throw JSONSyntaxError(reason: "Number \(literal) is not representable in Swift.")
    }
    return .other(number)
  }

  /// One or more digits.
  private mutating func skipDigits() throws(JSONSyntaxError) {
    let start = position
    while position < count, base[position] >= 0x30, base[position] <= 0x39 { position += 1 }
    if position == start { throw unexpected(at: position) }
  }

  /// The `NSNumber` `JSONSerialization` makes of a number's text (swift-corelibs-foundation's
  /// `NSNumber.fromJSONNumber`): only for numbers that are not small integers, so never on the
  /// way of a valid snapshot.
  static func foundationNumber(_ literal: String) -> NSNumber? {
    let exponentIndex = literal.firstIndex(of: "e")
    let isInteger = literal.firstIndex(of: ".") == nil && exponentIndex == nil
    let digitCount = literal[literal.startIndex..<(exponentIndex ?? literal.endIndex)].count
    if isInteger {
      if literal.hasPrefix("-") {
        if digitCount <= 19, let value = Int64(literal) { return NSNumber(value: value) }
      } else if digitCount <= 20, let value = UInt64(literal) {
        return NSNumber(value: value)
      }
    }
    var exponent = 0
    if let exponentIndex, let parsed = Int(literal[literal.index(after: exponentIndex)...]) {
      exponent = parsed
    }
    if digitCount > 17, exponent >= -128, exponent <= 127, let decimal = Decimal(string: literal),
      decimal.isFinite
    {
      return NSDecimalNumber(decimal: decimal)
    }
    if let value = Double(literal), value.isFinite { return NSNumber(value: value) }
    return nil
  }

  // MARK: strings

  /// The string at the position (`"`), as UTF-8 with its escapes resolved: the input's own bytes
  /// when it has no escape, else the scanner's buffer; valid until the next string is read.
  mutating func string() throws(JSONSyntaxError) -> UnsafeBufferPointer<UInt8> {
    position += 1
    let start = position
    var high: UInt8 = 0
    while position < count {
      let next = base[position]
      if next == 0x22 {
        let bytes = UnsafeBufferPointer(start: base + start, count: position - start)
        position += 1
        if high >= 0x80 { try Self.validate(bytes, at: consumed + start) }
        return bytes
      }
      if next == 0x5C || next < 0x20 { break }
      high |= next
      position += 1
    }
    return try escapedString(from: start)
  }

  /// The rest of a string with an escape (or a fault) at the position, decoded into the buffer.
  private mutating func escapedString(from start: Int) throws(JSONSyntaxError) -> UnsafeBufferPointer<UInt8> {
    var length = 0
    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
      if length + bytes.count > scratch.count {
        let grown = UnsafeMutableBufferPointer<UInt8>.allocate(
          capacity: max(2 * scratch.count, length + bytes.count))
        _ = grown.initialize(from: scratch[0..<length])
        scratch.deallocate()
        scratch = grown
      }
      if let source = bytes.baseAddress {
        (scratch.baseAddress.unsafelyUnwrapped + length).update(from: source, count: bytes.count)
      }
      length += bytes.count
    }
    func append(scalar: Unicode.Scalar) {
      var encoded: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
      var size = 0
      withUnsafeMutableBytes(of: &encoded) { bytes in
        for unit in scalar.utf8 {
          bytes[size] = unit
          size += 1
        }
      }
      withUnsafeBytes(of: encoded) {
        append(UnsafeBufferPointer(rebasing: $0.bindMemory(to: UInt8.self)[0..<size]))
      }
    }
    var segment = position
    append(UnsafeBufferPointer(start: base + start, count: position - start))
    while position < count {
      let next = base[position]
      if next == 0x22 {
        append(UnsafeBufferPointer(start: base + segment, count: position - segment))
        position += 1
        let bytes = UnsafeBufferPointer(rebasing: scratch[0..<length])
        try Self.validate(bytes, at: consumed + start)
        return bytes
      }
      if next < 0x20 {
        throw JSONSyntaxError(reason: "Unescaped control character around character \(consumed + position).")
      }
      guard next == 0x5C else {
        position += 1
        continue
      }
      append(UnsafeBufferPointer(start: base + segment, count: position - segment))
      let escape = position
      position += 1
      switch byte(position) {
      case 0x22, 0x5C, 0x2F: append(scalar: Unicode.Scalar(UInt8(byte(position))))
      case 0x62: append(scalar: "\u{08}")
      case 0x66: append(scalar: "\u{0C}")
      case 0x6E: append(scalar: "\n")
      case 0x72: append(scalar: "\r")
      case 0x74: append(scalar: "\t")
      case 0x75:
        position += 1
        append(scalar: try unicodeEscape())
        segment = position
        continue
      case -1: throw unexpected(at: position)
      default: throw JSONSyntaxError(reason: "Invalid escape sequence around character \(consumed + escape).")
      }
      position += 1
      segment = position
    }
    throw unexpected(at: position)
  }

  /// The scalar of a `\u` escape whose four hex digits are at the position, with its low surrogate
  /// when it is a high one.
  private mutating func unicodeEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
    let unit = try hexQuad()
    if unit & 0xFC00 == 0xD800 {
      guard byte(position) == 0x5C, byte(position + 1) == 0x75 else {
        if position + 1 >= count { throw unexpected(at: count) }
        throw JSONSyntaxError(
          reason:
            "Unexpected end of file during string parse (expected low-surrogate code point but did not find one)."
        )
      }
      position += 2
      let low = try hexQuad()
      guard low & 0xFC00 == 0xDC00 else {
        throw JSONSyntaxError(
          reason:
            "Unexpected end of file during string parse (expected low-surrogate code point but did not find one)."
        )
      }
      let value = 0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(low - 0xDC00)
      return Unicode.Scalar(value) ?? "\u{FFFD}"  // always a scalar: 0x10000...0x10FFFF
    }
    guard let scalar = Unicode.Scalar(UInt32(unit)) else {
      throw JSONSyntaxError(
        reason: "Unable to convert hex escape sequence (no high character) to UTF8-encoded character.")
    }
    return scalar
  }

  private mutating func hexQuad() throws(JSONSyntaxError) -> UInt16 {
    guard position + 4 <= count else { throw unexpected(at: count) }
    var value: UInt16 = 0
    for offset in 0..<4 {
      let digit = base[position + offset]
      let nibble: UInt8
      switch digit {
      case 0x30...0x39: nibble = digit - 0x30
      case 0x41...0x46: nibble = digit - 0x37
      case 0x61...0x66: nibble = digit - 0x57
      default:
        let text = String(decoding: UnsafeBufferPointer(start: base + position, count: 4), as: UTF8.self)
        throw JSONSyntaxError(
          reason: "Invalid hex encoded sequence in \"\(text)\" at \(consumed + position).")
      }
      value = value << 4 | UInt16(nibble)
    }
    position += 4
    return value
  }

  /// Throws unless `bytes` are well-formed UTF-8 (no overlong form, surrogate or value past U+10FFFF).
  static func validate(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) throws(JSONSyntaxError) {
    var index = 0
    while index < bytes.count {
      let lead = bytes[index]
      if lead < 0x80 {
        index += 1
        continue
      }
      let length: Int
      var low: UInt8 = 0x80
      var high: UInt8 = 0xBF
      switch lead {
      case 0xC2...0xDF: length = 2
      case 0xE0:
        length = 3
        low = 0xA0
      case 0xE1...0xEC, 0xEE...0xEF: length = 3
      case 0xED:
        length = 3
        high = 0x9F
      case 0xF0:
        length = 4
        low = 0x90
      case 0xF1...0xF3: length = 4
      case 0xF4:
        length = 4
        high = 0x8F
      default: length = 0
      }
      var valid = length > 0 && index + length <= bytes.count
      if valid {
        let second = bytes[index + 1]
        valid = second >= low && second <= high
        for next in stride(from: index + 2, to: index + length, by: 1) where bytes[next] & 0xC0 != 0x80 {
          valid = false
        }
      }
      guard valid else {
        throw JSONSyntaxError(
          reason: "Invalid UTF-8 sequence \(max(1, min(length, bytes.count - index))) bytes starting from "
            + "character \(offset + index).")
      }
      index += length
    }
  }
}

extension JSONScanner {
  /// Whether a text longer than `prefix` (at least 4 bytes) is UTF-8 as ``utf8(of:)`` detects it,
  /// and how many bytes of byte order mark to skip.
  static func detectedEncoding(ofLongText prefix: UnsafeBufferPointer<UInt8>) -> (isUTF8: Bool, skip: Int) {
    let (first, second, third, fourth) = (prefix[0], prefix[1], prefix[2], prefix[3])
    if first == 0xEF && second == 0xBB && third == 0xBF { return (true, 3) }
    if (first == 0xFF && second == 0xFE) || (first == 0xFE && second == 0xFF) { return (false, 0) }
    let isZero = (first == 0, second == 0, third == 0, fourth == 0)
    switch isZero {
    case (true, true, true, _), (_, true, true, true), (true, _, true, _), (_, true, _, true):
      return (false, 0)
    default: return (true, 0)
    }
  }

  /// The bytes of a JSON text as UTF-8, detected as `JSONSerialization` detects them: a byte order
  /// mark (UTF-8's is skipped), or the zero bytes of UTF-16 and UTF-32 text; nil when the text is
  /// already UTF-8 (its bytes are then read as they are, from `skip`).
  /// - Throws: when the detected encoding does not decode.
  static func utf8(of data: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> (
    skip: Int, transcoded: [UInt8]?
  ) {
    let count = data.count
    func at(_ index: Int) -> UInt8 { data[index] }
    enum Encoding { case utf8, utf16(bigEndian: Bool), utf32(bigEndian: Bool) }
    var encoding = Encoding.utf8
    var skip = 0
    if count >= 3, at(0) == 0xEF, at(1) == 0xBB, at(2) == 0xBF {
      skip = 3
    } else if count >= 4, at(0) == 0, at(1) == 0, at(2) == 0xFE, at(3) == 0xFF {
      (encoding, skip) = (.utf32(bigEndian: true), 4)
    } else if count >= 2, at(0) == 0xFF, at(1) == 0xFE {
      (encoding, skip) =
        count >= 4 && at(2) == 0 && at(3) == 0 ? (.utf32(bigEndian: false), 4) : (.utf16(bigEndian: false), 2)
    } else if count >= 2, at(0) == 0xFE, at(1) == 0xFF {
      (encoding, skip) = (.utf16(bigEndian: true), 2)
    } else if count >= 4 {
      switch (at(0), at(1), at(2), at(3)) {
      case (0, 0, 0, _): encoding = .utf32(bigEndian: true)
      case (_, 0, 0, 0): encoding = .utf32(bigEndian: false)
      case (0, _, 0, _): encoding = .utf16(bigEndian: true)
      case (_, 0, _, 0): encoding = .utf16(bigEndian: false)
      default: break
      }
    } else if count >= 2 {
      if at(0) == 0 {
        encoding = .utf16(bigEndian: true)
      } else if at(1) == 0 {
        encoding = .utf16(bigEndian: false)
      }
    }
    var output: [UInt8] = []
    var failed = false
    switch encoding {
    case .utf8: return (skip, nil)
    case .utf16(let bigEndian):
      let units = stride(from: skip, to: count - 1, by: 2).lazy.map { index in
        bigEndian
          ? UInt16(at(index)) << 8 | UInt16(at(index + 1)) : UInt16(at(index + 1)) << 8 | UInt16(at(index))
      }
      failed = (count - skip) % 2 != 0
      failed =
        failed
        || transcode(units.makeIterator(), from: UTF16.self, to: UTF8.self, stoppingOnError: true) {
          output.append($0)
        }
    case .utf32(let bigEndian):
      let units = stride(from: skip, to: count - 3, by: 4).lazy.map { index in
        (0..<4).reduce(UInt32(0)) { value, byte in
          value | UInt32(at(index + (bigEndian ? 3 - byte : byte))) << (8 * UInt32(byte))
        }
      }
      failed = (count - skip) % 4 != 0
      failed =
        failed
        || transcode(units.makeIterator(), from: UTF32.self, to: UTF8.self, stoppingOnError: true) {
          output.append($0)
        }
    }
    if failed {
      throw JSONSyntaxError(
        reason: "Unable to convert data to a string using the detected encoding. The data may be corrupt.")
    }
    return (0, output)
  }
}
