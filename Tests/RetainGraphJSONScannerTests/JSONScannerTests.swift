import Foundation
import RetainGraphJSONScanner
import RetainGraphTestSupport
import Testing

/// The scanner on its own, on texts written here: what it accepts is what `JSONSerialization`
/// accepts, the strings and numbers it reads are Foundation's, and reading a text through a small
/// window (a file) gives what reading it whole gives. (The graph reader's differential tests,
/// `JSONReaderDifferentialTests`, go through `ObjectGraph(jsonData:)`.)
@Suite struct JSONScannerTests {
  /// Scans `text` whole with `body`, then checks that only whitespace follows.
  private func scan<Value>(
    _ text: String, _ body: (inout JSONScanner) throws(JSONSyntaxError) -> Value
  ) throws(JSONSyntaxError) -> Value {
    let bytes = Array(text.utf8)
    return try bytes.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) -> Value in
      var scanner = JSONScanner(buffer)
      defer { scanner.deallocate() }
      _ = scanner.skipWhitespaceReadingOn()
      let value = try body(&scanner)
      try scanner.expectEnd()
      return value
    }
  }

  private func foundationAccepts(_ text: String) -> Bool {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil
  }

  /// Texts near JSON's edges: what Foundation accepts (trailing commas too) and what it does not.
  @Test(arguments: [
    "[]", "{}", "[1,]", "{\"a\":1,}", "[,]", "[1,,2]", "{\"a\" 1}", "{\"a\":}", "01", "-0", "-", "1.", "1e",
    "1e+5", ".5", "\"\\u00e9\"", "\"\\ud83c\\udf89\"", "\"\\ud83c\"", "\"\\x\"", "\"a\u{1}\"", "tru", "true",
    "nul", "[true, false, null]", "{\"a\":[{\"b\":{}}]}", "[1] x", "  [ 1 , 2 ]  ", "\"unterminated",
    "1e400", "-1e400", "123456789012345678901234567890",
  ])
  func skippingAcceptsWhatFoundationAccepts(_ text: String) {
    let scanned = (try? scan(text) { scanner throws(JSONSyntaxError) in try scanner.skipValue() }) != nil
    #expect(scanned == foundationAccepts(text), "\(text)")
  }

  /// Containers nest at most 512 deep, as in Foundation, with its message past that; skipping one
  /// keeps no stack of calls (a deeper text fails with the message, not a crash).
  @Test func nestingStopsAtFoundationsDepth() throws {
    let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
    #expect(throws: Never.self) {
      try scan(deepest) { scanner throws(JSONSyntaxError) in try scanner.skipValue() }
    }
    let deeper = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    let error = try #require(throws: JSONSyntaxError.self) {
      try scan(deeper) { scanner throws(JSONSyntaxError) in try scanner.skipValue() }
    }
    #expect(error.reason == "Too many nested arrays or dictionaries around character 513.")
    #expect(!foundationAccepts(deeper))
  }

  /// Random strings of escapes, quotes, control pictures, non-ASCII and surrogate pairs, written by
  /// Foundation: the scanner reads back the string Foundation wrote.
  @Test func stringsReadBackAsFoundationWroteThem() throws {
    let pool = Array("ab\"\\/\n\t\r\u{8}\u{C}\u{1}\u{1F}\u{7F}é日🎉 \u{2028}")
    var random = SplitMix64(seed: 30)
    for _ in 0..<300 {
      let original = String(
        (0..<Int(random.next() % 12)).map { _ in pool[Int(random.next() % UInt64(pool.count))] })
      let data = try JSONSerialization.data(withJSONObject: [original])
      let text = String(decoding: data, as: UTF8.self)
      let read = try scan(text) { scanner throws(JSONSyntaxError) -> String in
        var value = ""
        try scanner.elements { scanner, _ throws(JSONSyntaxError) in
          value = String(decoding: try scanner.string(), as: UTF8.self)
        }
        return value
      }
      #expect(read == original, "\(text)")
    }
  }

  @Test(arguments: ["0", "-12", "123456789012345678", "4.5", "-0.25", "1e3", "1E-2", "9007199254740993"])
  func numbersAreFoundations(_ text: String) throws {
    let number = try scan(text) { scanner throws(JSONSyntaxError) in try scanner.number() }
    let expected = try #require(
      try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as? NSNumber)
    switch number {
    case .integer(let value): #expect(NSNumber(value: value) == expected, "\(text)")
    case .other(let value): #expect(value == expected, "\(text)")
    }
  }

  /// An array of records read whole and read through windows of 16 to 4,096 bytes (moved and grown
  /// as a file is read) gives the same records; a record longer than the largest window stops the
  /// reading with `valueTooLarge`.
  @Test func aWindowReadsWhatTheWholeTextReads() throws {
    var random = SplitMix64(seed: 7)
    let records = (0..<400).map { index in
      "{\"id\": \(index), \"name\": \"\(String(repeating: "x", count: Int(random.next() % 90)))\", \"skip\": [1, {\"a\": null}]}"
    }
    let text = "[" + records.joined(separator: ",\n ") + "]"
    // An element is read again from its start when the window ends inside it (`readingOn`): it
    // keeps its name only once it has read itself whole.
    func read(_ scanner: inout JSONScanner) throws(JSONSyntaxError) -> [String] {
      var names: [String] = []
      _ = scanner.skipWhitespaceReadingOn()
      try scanner.elements(readingOn: true) { scanner, index throws(JSONSyntaxError) in
        var name: String?
        var id: Int?
        try scanner.members { scanner, key throws(JSONSyntaxError) in
          if key.equals("name"), case .value(let bytes) = try scanner.stringField() {
            name = String(decoding: bytes, as: UTF8.self)
          } else if key.equals("id"), case .value(let value) = try scanner.integerField() {
            id = value
          } else {
            try scanner.skipValue()
          }
        }
        #expect(id == index)
        names.append(name ?? "")
      }
      try scanner.expectEnd()
      return names
    }
    let bytes = Array(text.utf8)
    let whole = try bytes.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in
      var scanner = JSONScanner(buffer)
      defer { scanner.deallocate() }
      return try read(&scanner)
    }
    #expect(whole.count == 400)
    for windowSize in [16, 100, 4_096] {
      var offset = 0
      let source = { (buffer: UnsafeMutableRawBufferPointer) -> Int in
        let count = min(buffer.count, bytes.count - offset, 7)  // short reads, as a pipe gives
        buffer.copyBytes(from: bytes[offset..<offset + count])
        offset += count
        return count
      }
      var scanner = JSONScanner(
        initial: UnsafeBufferPointer(start: nil, count: 0), windowSize: windowSize, source: source)
      defer { scanner.deallocate() }
      #expect(try read(&scanner) == whole, "window \(windowSize)")
      #expect(!scanner.valueTooLarge && !scanner.readFailed)
    }
    do {
      var offset = 0
      let source = { (buffer: UnsafeMutableRawBufferPointer) -> Int in
        let count = min(buffer.count, bytes.count - offset)
        buffer.copyBytes(from: bytes[offset..<offset + count])
        offset += count
        return count
      }
      var scanner = JSONScanner(
        initial: UnsafeBufferPointer(start: nil, count: 0), windowSize: 16, maxWindow: 64, source: source)
      defer { scanner.deallocate() }
      #expect(throws: JSONSyntaxError.self) { try read(&scanner) }
      #expect(scanner.valueTooLarge)
    }
  }

  /// A value's description for messages: its type and, for a scalar, the value.
  @Test func valuesAreDescribedForMessages() throws {
    let text =
      #"["a string that is longer than forty characters, to be cut", [], {}, true, false, null, 4.5, -7]"#
    let bytes = Array(text.utf8)
    let described = bytes.withUnsafeBufferPointer { buffer in
      var scanner = JSONScanner(buffer)
      defer { scanner.deallocate() }
      var offsets: [Int] = []
      try? scanner.elements { scanner, _ throws(JSONSyntaxError) in
        offsets.append(scanner.position)
        try scanner.skipValue()
      }
      return offsets.map { scanner.valueDescription(at: $0) }
    }
    #expect(
      described == [
        "the string \"a string that is longer than forty chara…\"", "an array", "an object", "true", "false",
        "null", "the number 4.5", "the number -7",
      ])
  }
}
