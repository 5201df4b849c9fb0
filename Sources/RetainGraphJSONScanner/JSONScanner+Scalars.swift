public import Foundation

/// Reading literals and numbers.
extension JSONScanner {
  /// The literal at the position: `true`, `false` or `null` (nil).
  @inlinable package mutating func literal() throws(JSONSyntaxError) -> Bool? {
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

  @usableFromInline static let trueBytes = Array("true".utf8)
  @usableFromInline static let falseBytes = Array("false".utf8)
  @usableFromInline static let nullBytes = Array("null".utf8)

  /// A number as `JSONSerialization` reads it: an integer written with at most 18 digits as itself,
  /// any other as the `NSNumber` Foundation makes of it (`Int64`, `UInt64`, `Decimal` or `Double`).
  @usableFromInline package enum Number {
    case integer(Int)
    case other(NSNumber)

    /// The integer it is, as the reader accepts one: an `NSNumber` that converts to `Int` exactly.
    @inlinable package var integerValue: Int? {
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
    package var description: String {
      switch self {
      case .integer(let value): "\(value)"
      case .other(let number): "\(number)"
      }
    }
  }

  /// JSON booleans are `NSNumber`s of Objective-C type `c`; a number never is one here, but the
  /// check is the one the reader always made.
  @usableFromInline package static func isBoolean(_ number: NSNumber) -> Bool {
    String(cString: number.objCType) == "c"
  }

  /// The number at the position (`-` or a digit), in JSON's grammar.
  @inlinable package mutating func number() throws(JSONSyntaxError) -> Number {
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
  @usableFromInline mutating func skipDigits() throws(JSONSyntaxError) {
    let start = position
    while position < count, base[position] >= 0x30, base[position] <= 0x39 { position += 1 }
    if position == start { throw unexpected(at: position) }
  }

  /// The `NSNumber` `JSONSerialization` makes of a number's text (swift-corelibs-foundation's
  /// `NSNumber.fromJSONNumber`): only for numbers that are not small integers, so never on the
  /// way of a valid snapshot.
  @usableFromInline package static func foundationNumber(_ literal: String) -> NSNumber? {
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
}
