package import Foundation
internal import RetainGraphJSONScanner

/// A known-cycles file that cannot be used: the file, the line (0 when the file could not be read
/// at all) and what is wrong.
package struct KnownCyclesFileError: Error, Sendable, Hashable, CustomStringConvertible {
  package var path: String
  package var line: Int
  package var reason: String

  package init(path: String, line: Int, reason: String) {
    self.path = path
    self.line = line
    self.reason = reason
  }

  /// `FILE:LINE: reason`, as a compiler names a place.
  package var description: String {
    line > 0 ? "\(path):\(line): \(reason)" : "\(path): \(reason)"
  }
}

extension KnownCycles {
  /// Reads the known-cycles file at `path`.
  /// - Parameter path: the file.
  /// - Returns: its entries.
  /// - Throws: ``KnownCyclesFileError`` naming the line and what is wrong: not JSON, not the
  ///   format's fields, a signature that is not 16 hexadecimal digits, a day that is not a day.
  package static func read(at path: String) throws(KnownCyclesFileError) -> KnownCycles {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw KnownCyclesFileError(path: path, line: 0, reason: "cannot be read (\(Self.reason(of: error)))")
    }
    return try parse(data, path: path)
  }

  private static func reason(of error: any Error) -> String {
    let cocoa = error as NSError
    if cocoa.domain == NSCocoaErrorDomain, cocoa.code == NSFileReadNoSuchFileError { return "no such file" }
    return cocoa.localizedDescription
  }

  /// Reads the entries from `data`, the file at `path`.
  package static func parse(_ data: Data, path: String) throws(KnownCyclesFileError) -> KnownCycles {
    let result: Result<KnownCycles, KnownCyclesFileError> = data.withUnsafeBytes { raw in
      let bytes = raw.bindMemory(to: UInt8.self)
      var parser = Parser(bytes: bytes, path: path)
      return parser.document()
    }
    return try result.get()
  }

  /// The reader over one file's bytes: a problem stops it, with the offset it is at.
  private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    let path: String
    /// Where the problem found is, and what it is (a syntax error has its own).
    var problem: (offset: Int, reason: String)?

    init(bytes: UnsafeBufferPointer<UInt8>, path: String) {
      self.bytes = bytes
      self.path = path
    }

    /// The line (from 1) of byte `offset`.
    func line(at offset: Int) -> Int {
      var line = 1
      for index in 0..<min(offset, bytes.count) where bytes[index] == 0x0A { line += 1 }
      return line
    }

    mutating func fail(_ reason: String, at offset: Int) -> JSONSyntaxError {
      problem = (offset, reason)
      return JSONSyntaxError(reason: reason)
    }

    mutating func document() -> Result<KnownCycles, KnownCyclesFileError> {
      var scanner = JSONScanner(bytes)
      defer { scanner.deallocate() }
      var entries: [KnownCycles.Entry] = []
      var version: Int?
      do throws(JSONSyntaxError) {
        let start = scanner.skipWhitespace()
        guard start == 0x7B else {
          throw fail(
            start < 0 ? "is empty: expected a JSON object" : "is not a JSON object (\"knownCycles\": […])",
            at: scanner.position)
        }
        try scanner.members { scanner, key throws(JSONSyntaxError) in
          let offset = scanner.position
          if key.equals("version") {
            guard case .value(let number) = try scanner.integerField() else {
              throw fail("\"version\" is not a number", at: offset)
            }
            guard number == KnownCycles.version else {
              throw fail(
                "version \(number) is not one this RetainGraph reads (it reads \(KnownCycles.version))",
                at: offset)
            }
            version = number
          } else if key.equals("knownCycles") {
            guard scanner.byte(offset) == 0x5B else {
              throw fail("\"knownCycles\" is not an array of entries", at: offset)
            }
            try scanner.elements { scanner, _ throws(JSONSyntaxError) in
              entries.append(try entry(&scanner))
            }
          } else {
            let name = String(decoding: key, as: UTF8.self)
            throw fail("unknown field \"\(name)\" (expected \"version\" and \"knownCycles\")", at: offset)
          }
        }
        try scanner.expectEnd()
        guard version != nil else { throw fail("no \"version\" (1)", at: 0) }
      } catch {
        let offset = problem?.offset ?? scanner.position
        let reason = problem?.reason ?? "is not valid JSON: \(error.reason)"
        return .failure(KnownCyclesFileError(path: path, line: line(at: offset), reason: reason))
      }
      return .success(KnownCycles(path: path, entries: entries))
    }

    /// One entry, at `{`.
    mutating func entry(_ scanner: inout JSONScanner) throws(JSONSyntaxError) -> KnownCycles.Entry {
      let start = scanner.position
      guard scanner.byte(start) == 0x7B else {
        throw fail("an entry is not an object (\"signature\", \"reason\", \"expires\")", at: start)
      }
      var signature: String?
      var reason: String?
      var expires: String?
      var types: [String] = []
      var fix: String?
      try scanner.members { scanner, key throws(JSONSyntaxError) in
        let offset = scanner.position
        let name = String(decoding: key, as: UTF8.self)
        switch name {
        case "signature", "reason", "expires", "fix":
          guard case .value(let bytes) = try scanner.stringField(optional: name == "expires" || name == "fix")
          else {
            if name == "expires" || name == "fix" { return }
            throw fail("\"\(name)\" is not a string", at: offset)
          }
          let text = String(decoding: bytes, as: UTF8.self)
          switch name {
          case "signature":
            guard text.count == 16, text.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
              throw fail(
                "\"signature\" \"\(text)\" is not a cycle's signature (16 lowercase hexadecimal digits)",
                at: offset)
            }
            signature = text
          case "reason":
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
              throw fail("\"reason\" is empty: say why the cycle is accepted", at: offset)
            }
            reason = text
          case "expires":
            guard KnownCycles.isDay(text) else {
              throw fail("\"expires\" \"\(text)\" is not a day (YYYY-MM-DD)", at: offset)
            }
            expires = text
          default: fix = text
          }
        case "types":
          guard scanner.byte(offset) == 0x5B else {
            throw fail("\"types\" is not an array of strings", at: offset)
          }
          try scanner.elements { scanner, _ throws(JSONSyntaxError) in
            let element = scanner.position
            guard case .value(let bytes) = try scanner.stringField() else {
              throw fail("\"types\" is not an array of strings", at: element)
            }
            types.append(String(decoding: bytes, as: UTF8.self))
          }
        default:
          throw fail(
            "unknown field \"\(name)\" in an entry (expected \"signature\", \"reason\", \"expires\", \"types\", "
              + "\"fix\")", at: offset)
        }
      }
      guard let signature else { throw fail("an entry has no \"signature\"", at: start) }
      guard let reason else { throw fail("the entry of \(signature) has no \"reason\"", at: start) }
      return KnownCycles.Entry(
        signature: signature, reason: reason, expires: expires, types: types, fix: fix, line: line(at: start))
    }
  }

  /// Whether `text` is an ISO 8601 day, `YYYY-MM-DD`, of a real date.
  package static func isDay(_ text: String) -> Bool {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
      parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
      let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
      (1...12).contains(month), day >= 1
    else { return false }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    return day <= days[month - 1]
  }
}
