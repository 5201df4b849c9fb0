package import Foundation
internal import RetainGraphJSONScanner

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// `read(2)`.
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
  #if canImport(Glibc)
    Glibc.read(descriptor, buffer.baseAddress, buffer.count)
  #elseif canImport(Musl)
    Musl.read(descriptor, buffer.baseAddress, buffer.count)
  #else
    Darwin.read(descriptor, buffer.baseAddress, buffer.count)
  #endif
}

/// Reads a snapshot from its bytes in one pass (``JSONScanner``: no tree of Foundation objects) into
/// the graph's compact storage, and validates it by hand, so that every problem is reported with its
/// place. Problems are found in the order a reader of a parsed tree would find them, whatever the
/// order of the keys in the text: the syntax anywhere first, then `format`, `version`, `root`,
/// `truncated`, `nodes`, `edges`, `dangling`, `notes`, then where ids lead, then `noteDetails`.
package struct SnapshotReader {
  package let data: Data
  /// Whether a `sourceLocations` declaration is one the caller reads.
  package let isDeclarationKey: (String) -> Bool

  package init(data: Data, isDeclarationKey: @escaping (String) -> Bool) {
    self.data = data
    self.isDeclarationKey = isDeclarationKey
  }

  package func read() throws(SnapshotReadingError) -> SnapshotContents {
    let result = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
      Result { () throws(SnapshotReadingError) -> SnapshotContents in
        let bytes = raw.bindMemory(to: UInt8.self)
        let utf8: (skip: Int, transcoded: [UInt8]?)
        do throws(JSONSyntaxError) {
          utf8 = try JSONScanner.utf8(of: bytes)
        } catch {
          throw SnapshotReadingError(.notJSON, at: nil, "not JSON: \(error.reason)")
        }
        guard let transcoded = utf8.transcoded else {
          return try Self.read(UnsafeBufferPointer(rebasing: bytes[utf8.skip...]), isDeclarationKey)
        }
        return try transcoded.withUnsafeBufferPointer { buffer in
          Result { () throws(SnapshotReadingError) in try Self.read(buffer, isDeclarationKey) }
        }.get()
      }
    }
    return try result.get()
  }

  /// Reads UTF-8 `text`.
  private static func read(
    _ text: UnsafeBufferPointer<UInt8>, _ isDeclarationKey: @escaping (String) -> Bool
  ) throws(SnapshotReadingError) -> SnapshotContents {
    var scanner = JSONScanner(text)
    defer { scanner.deallocate() }
    return try read(&scanner, isDeclarationKey)
  }

  /// Reads the text at the scanner.
  private static func read(
    _ scanner: inout JSONScanner, _ isDeclarationKey: @escaping (String) -> Bool
  ) throws(SnapshotReadingError) -> SnapshotContents {
    var document = JSONDocument()
    document.isDeclarationKey = isDeclarationKey
    var topLevel: String?
    do throws(JSONSyntaxError) {
      if scanner.skipWhitespaceReadingOn() == 0x7B {
        try scanner.members(readingOn: true) { scanner, key throws(JSONSyntaxError) in
          try document.read(key, &scanner)
        }
      } else {
        topLevel = try scanner.rereadingOn { scanner throws(JSONSyntaxError) in
          let offset = scanner.position
          try scanner.skipValue()
          return document.describe(at: offset, in: scanner)
        }
      }
      try scanner.expectEnd()
    } catch {
      // A file that fails to read ends early: that is the file's fault, not its text's.
      if scanner.valueTooLarge { throw Self.valueTooLarge(at: scanner) }
      if scanner.readFailed { throw Self.readFailure }
      // Where the scanner stopped: at the token it could not read.
      throw SnapshotReadingError(
        .notJSON, at: .byteOffset(scanner.consumed + scanner.position), "not JSON: \(error.reason)")
    }
    if scanner.valueTooLarge { throw Self.valueTooLarge(at: scanner) }
    if scanner.readFailed { throw Self.readFailure }
    if let topLevel {
      throw SnapshotReadingError(.notAGraph, at: nil, "the top level: expected an object, found \(topLevel)")
    }
    return try document.validate()
  }

  /// The error when reading a file fails midway (never a message about a snapshot's text).
  package static let readFailure = SnapshotReadingError(.unreadable, at: nil, "\u{0}the file cannot be read")

  /// The most bytes of a text in UTF-16 or UTF-32 read (it is converted whole).
  package static let maxConvertedText = 1 << 28

  /// The error when one value needs more than the scanner's largest window.
  static func valueTooLarge(at scanner: JSONScanner) -> SnapshotReadingError {
    SnapshotReadingError(
      .tooLarge, at: .byteOffset(scanner.consumed),
      "not a snapshot: one value at byte \(scanner.consumed) is longer than "
        + "\(scanner.maxWindow >> 20) MB (reading stopped there)")
  }

  /// Reads a snapshot from the file open at `descriptor`, in a window of `windowSize` bytes (grown
  /// when one record needs more): its text is never in memory whole (a text in UTF-16 or UTF-32
  /// is, to be converted).
  package static func read(
    descriptor: Int32, windowSize: Int = 1 << 20, maxWindow: Int = JSONScanner.defaultMaxWindow,
    maxConvertedText: Int = Self.maxConvertedText, isDeclarationKey: @escaping (String) -> Bool
  ) throws(SnapshotReadingError) -> SnapshotContents {
    let source = { (buffer: UnsafeMutableRawBufferPointer) -> Int in
      while true {
        let count = readBytes(descriptor, buffer)
        if count >= 0 || errno != EINTR { return count }
      }
    }
    // The first bytes tell the encoding.
    var first = [UInt8](repeating: 0, count: max(16, windowSize))
    var filled = 0
    while filled < first.count {
      let count = first.withUnsafeMutableBytes {
        source(UnsafeMutableRawBufferPointer(rebasing: $0[filled...]))
      }
      if count < 0 { throw readFailure }
      if count == 0 { break }
      filled += count
    }
    guard filled == first.count else {
      // The whole text is in memory.
      return try Self(data: Data(first[0..<filled]), isDeclarationKey: isDeclarationKey).read()
    }
    let encoding = first.withUnsafeBufferPointer { JSONScanner.detectedEncoding(ofLongText: $0) }
    guard encoding.isUTF8 else {
      // Converted whole, as Foundation converts it.
      // A text that starts with four zero bytes is JSON in no encoding (/dev/zero, a sparse file).
      if first.prefix(4).allSatisfy({ $0 == 0 }) {
        throw SnapshotReadingError(.notJSON, at: .byteOffset(0), "not JSON: the text starts with zero bytes")
      }
      var rest = first
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      while true {
        let count = chunk.withUnsafeMutableBytes { source($0) }
        if count < 0 { throw readFailure }
        if count == 0 { break }
        rest += chunk[0..<count]
        if rest.count > maxConvertedText {
          throw SnapshotReadingError(
            .tooLarge, at: nil,
            "not a snapshot: its text in UTF-16 or UTF-32 is longer than \(maxConvertedText >> 20) MB "
              + "(reading stopped there; write it in UTF-8, which is read in a window)")
        }
      }
      return try Self(data: Data(rest), isDeclarationKey: isDeclarationKey).read()
    }
    var scanner = first.withUnsafeBufferPointer { bytes in
      JSONScanner(
        initial: UnsafeBufferPointer(rebasing: bytes[encoding.skip...]), windowSize: windowSize,
        maxWindow: maxWindow, source: source)
    }
    defer { scanner.deallocate() }
    return try read(&scanner, isDeclarationKey)
  }
}
