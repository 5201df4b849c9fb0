internal import Foundation

/// Why a text is not JSON, in the words Foundation's `JSONSerialization` uses for the same fault.
@usableFromInline package struct JSONSyntaxError: Error {
  @usableFromInline package var reason: String

  @usableFromInline package init(reason: String) { self.reason = reason }

  /// Not an error of the text: a scanner reading a file in windows reached the end of its window
  /// (``JSONScanner/refill(keepingFrom:)`` reads on and the value is read again).
  @usableFromInline package static let needsMore = JSONSyntaxError(reason: "")
  @usableFromInline package var needsMore: Bool { reason.isEmpty }
}

/// Reads JSON from UTF-8 bytes token by token, without building a tree: the reader asks for the
/// values it wants and skips the others. It accepts exactly the texts `JSONSerialization` accepts
/// (trailing commas in arrays and objects, containers nested at most 512 deep, every escape, numbers
/// that fit a `Double` or a `Decimal`), except that a string keeps a U+FEFF that follows an escape or
/// opens it (Foundation drops it there). Nothing here recurses: containers are skipped with a counter
/// and a stack of their kinds.
///
/// A `public` type with `package` members, no product's API: the document reader calls its small
/// members per token from another module, and Swift 6.3 inlines a type's `@inlinable` members
/// there only when the type itself is `public`.
public struct JSONScanner {
  /// The deepest nesting of arrays and objects `JSONSerialization` reads.
  package static let maximumDepth = 512

  /// The window's first byte.
  @usableFromInline var base: UnsafePointer<UInt8>
  /// The bytes in the window, from ``base``.
  @usableFromInline var count: Int
  /// The offset in the window of the next byte to read (moved only by the scanner's readers, here
  /// and in JSONScanner+Scalars.swift and JSONScanner+Strings.swift).
  @usableFromInline package var position: Int
  /// Whether the window ends where the text ends (always, unless the text is read from a file).
  @usableFromInline var isFinal = true
  /// The offset in the text of the window's first byte.
  @usableFromInline package private(set) var consumed = 0
  /// How many times the window moved: a saved offset is valid while this is unchanged.
  @usableFromInline var moves = 0
  /// A file's bytes in a window, and how to read more (nil when the whole text is in memory).
  private var window: UnsafeMutableBufferPointer<UInt8>?
  private let source: ((UnsafeMutableRawBufferPointer) -> Int)?
  /// Whether reading the file failed (the text then ends there).
  package private(set) var readFailed = false
  /// Whether one value needed a window larger than ``maxWindow`` (the reading stopped there).
  package private(set) var valueTooLarge = false
  /// The largest the window grows (``defaultMaxWindow`` unless a test asks for less).
  package private(set) var maxWindow = JSONScanner.defaultMaxWindow
  /// How many arrays and objects are open around ``position``.
  @usableFromInline var depth = 0
  /// Strings with escapes are decoded here (grown as needed by the string reader, freed by
  /// ``deallocate()``).
  @usableFromInline var scratch: UnsafeMutableBufferPointer<UInt8>
  /// Whether each container ``skipValue()`` has open is an object (its kinds, innermost last).
  @usableFromInline var skipping: [Bool] = []

  /// A scanner of `buffer`, which must outlive it; call ``deallocate()`` when done.
  package init(_ buffer: UnsafeBufferPointer<UInt8>, position: Int = 0) {
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
  package init(
    initial: UnsafeBufferPointer<UInt8>, windowSize: Int, maxWindow: Int = JSONScanner.defaultMaxWindow,
    source: @escaping (UnsafeMutableRawBufferPointer) -> Int
  ) {
    self.maxWindow = maxWindow
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

  package func deallocate() {
    scratch.deallocate()
    window?.deallocate()
  }

  /// A scanner of the window as it is, to read again a value already read (for a message).
  package func rereading(at offset: Int) -> JSONScanner {
    JSONScanner(UnsafeBufferPointer(start: base, count: count), position: offset)
  }

  // MARK: the window

  /// Moves the window to start at `start` (an offset in it) and reads on; the window grows when
  /// what it keeps fills more than half of it. At the end of the file, the window is final.
  @usableFromInline mutating func refill(keepingFrom start: Int) {
    guard let source, var buffer = window, !isFinal else { return }
    let kept = count - start
    if kept * 2 > buffer.count && buffer.count * 2 > maxWindow {
      // No snapshot has one value this large (a device such as /dev/zero, or a file that is not a
      // snapshot): stop reading rather than fill the memory.
      valueTooLarge = true
      isFinal = true
      return
    }
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
  @inlinable @inline(__always) mutating func ensureAhead(_ amount: Int) {
    if !isFinal && count - position < amount { refill(keepingFrom: position) }
  }

  /// ``skipWhitespace()``, reading on at the end of the window: only where no offset is kept.
  @inlinable package mutating func skipWhitespaceReadingOn() -> Int {
    while true {
      let next = skipWhitespace()
      if next >= 0 || isFinal { return next }
      refill(keepingFrom: position)
    }
  }

  /// Reads a value with `body` from the position, again from the same place with more of the file
  /// in the window whenever the window ends before the value does.
  @inlinable package mutating func rereadingOn<Value>(
    _ body: (inout JSONScanner) throws(JSONSyntaxError) -> Value
  )
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
  @usableFromInline static let lookahead = 1 << 16

  /// The largest window: one value of a snapshot (a node, an edge, a name) is far smaller.
  package static let defaultMaxWindow = 1 << 28

  // MARK: bytes

  /// The byte at `offset`, or -1 past the end.
  @inlinable @inline(__always) package func byte(_ offset: Int) -> Int {
    offset < count ? Int(base[offset]) : -1
  }

  /// Skips spaces, tabs, line feeds and carriage returns; returns the next byte (-1 at the end).
  @inlinable @inline(__always) package mutating func skipWhitespace() -> Int {
    while position < count {
      let next = base[position]
      guard next == 0x20 || next == 0x0A || next == 0x0D || next == 0x09 else { return Int(next) }
      position += 1
    }
    return -1
  }

  /// The error for the byte at `offset`: the end of the text, or a byte that cannot be there.
  @usableFromInline func unexpected(at offset: Int) -> JSONSyntaxError {
    if offset >= count && !isFinal { return .needsMore }
    return offset >= count
      ? JSONSyntaxError(reason: "Unexpected end of file during JSON parse.")
      : JSONSyntaxError(reason: "Invalid value around character \(consumed + offset).")
  }

  /// After a value: only whitespace may follow the top level.
  package mutating func expectEnd() throws(JSONSyntaxError) {
    if skipWhitespaceReadingOn() >= 0 {
      throw JSONSyntaxError(reason: "Invalid value around character \(consumed + position).")
    }
  }

  /// Skips whitespace and a colon and the whitespace after it, up to a member's value.
  @inlinable @inline(__always) package mutating func expectColon() throws(JSONSyntaxError) {
    guard skipWhitespace() == 0x3A else { throw unexpected(at: position) }
    position += 1
    _ = skipWhitespace()
  }

  @usableFromInline mutating func open() throws(JSONSyntaxError) {
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
  @inlinable @inline(__always) package mutating func members(
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
  @inlinable @inline(__always) package mutating func elements(
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
  @usableFromInline package mutating func skipValue() throws(JSONSyntaxError) {
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
}
