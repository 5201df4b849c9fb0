internal import Foundation

/// Reading strings (escapes decoded into the scanner's scratch buffer) and checking UTF-8.
extension JSONScanner {
  /// The string at the position (`"`), as UTF-8 with its escapes resolved: the input's own bytes
  /// when it has no escape, else the scanner's buffer; valid until the next string is read.
  @inlinable package mutating func string() throws(JSONSyntaxError) -> UnsafeBufferPointer<UInt8> {
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
  @usableFromInline mutating func escapedString(from start: Int) throws(JSONSyntaxError)
    -> UnsafeBufferPointer<UInt8>
  {
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
  @usableFromInline package static func validate(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int)
    throws(JSONSyntaxError)
  {
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
  package static func detectedEncoding(ofLongText prefix: UnsafeBufferPointer<UInt8>) -> (
    isUTF8: Bool, skip: Int
  ) {
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
  package static func utf8(of data: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> (
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
