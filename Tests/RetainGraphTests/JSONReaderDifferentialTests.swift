import Foundation
import RetainGraphTestSupport
import Samples
import Testing

@testable import RetainGraph

/// `ObjectGraph(jsonData:)` reads bytes by hand; these tests hold it to the reader it replaced
/// (``FoundationSnapshotReader``: `JSONSerialization`, then the same validation): the same graph for
/// every text that one accepts, the same message for every text it rejects (for a text that is not
/// JSON at all, `not JSON: ` and a reason, which may be worded differently).
@Suite struct JSONReaderDifferentialTests {
  /// Reads `data` both ways (and, `throughFile`, from a file through a small window, which must give
  /// the same graph or the same message) and records every difference; returns whether the text was
  /// accepted.
  @discardableResult
  static func compare(_ data: Data, _ comment: @autoclosure () -> String = "", throughFile: Bool = true)
    -> Bool
  {
    let expected = Result { () throws(GraphDecodingError) in try FoundationSnapshotReader(data: data).graph()
    }
    let read = Result { () throws(GraphDecodingError) in try ObjectGraph(jsonData: data) }
    let text = String(decoding: data.prefix(600), as: UTF8.self)
    // The same text read from a file through a small window, which moves and grows many times.
    let windowSize = 16 + data.count % 50
    switch (read, throughFile ? readThroughFile(data, windowSize: windowSize) : read) {
    case (.success(let read), .success(let fromFile)):
      #expect(fromFile.nodes == read.nodes, "window \(windowSize) \(comment()) \(text)")
      #expect(fromFile.edges == read.edges, "window \(windowSize) \(comment()) \(text)")
      #expect(fromFile.root == read.root && fromFile.isTruncated == read.isTruncated)
      #expect(fromFile.danglingReferences == read.danglingReferences && fromFile.walkNotes == read.walkNotes)
      #expect(fromFile.cycles == read.cycles)
    case (.failure(let read), .failure(let fromFile)):
      #expect(fromFile.message == read.message, "window \(windowSize) \(comment()) \(text)")
    case (.success, .failure(let error)):
      Issue.record(
        "a file rejects what the bytes give: \(error.message) window \(windowSize) \(comment()) \(text)")
    case (.failure(let error), .success):
      Issue.record(
        "a file gives what the bytes reject (\(error.message)) window \(windowSize) \(comment()) \(text)")
    }
    switch (expected, read) {
    case (.success(let expected), .success(let read)):
      #expect(read.root == expected.root, "\(comment()) \(text)")
      #expect(read.nodes == expected.nodes, "\(comment()) \(text)")
      #expect(read.edges == expected.edges, "\(comment()) \(text)")
      #expect(read.isTruncated == expected.isTruncated)
      #expect(read.danglingReferences == expected.danglingReferences)
      #expect(read.walkNotes == expected.walkNotes)
      #expect(read.cycles == expected.cycles)
      #expect(read.report() == expected.report())
      return true
    case (.failure(let expected), .failure(let read)):
      if expected.message.hasPrefix("not JSON: ") {
        #expect(
          read.message.hasPrefix("not JSON: "), "\(comment()) \(read.message) vs \(expected.message) \(text)")
      } else {
        #expect(read.message == expected.message, "\(comment()) \(text)")
      }
    case (.success, .failure(let error)):
      Issue.record("rejected what Foundation's path accepts: \(error.message) \(comment()) \(text)")
    case (.failure(let error), .success):
      Issue.record("accepted what Foundation's path rejects (\(error.message)) \(comment()) \(text)")
    }
    return false
  }

  /// Reads `data` from a temporary file through a window of `windowSize` bytes.
  static func readThroughFile(_ data: Data, windowSize: Int) -> Result<ObjectGraph, GraphDecodingError> {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("differential-\(UUID()).json")
      .path
    defer { try? FileManager.default.removeItem(atPath: path) }
    guard FileManager.default.createFile(atPath: path, contents: data) else {
      return .failure(GraphDecodingError("the test could not write \(path)"))
    }
    do {
      return .success(try ObjectGraph(jsonFile: path, windowSize: windowSize))
    } catch .invalid(let error) {
      return .failure(error)
    } catch {
      return .failure(GraphDecodingError("the file cannot be read"))
    }
  }

  /// A random graph of random texts with every kind of edge, notes and dangling references.
  static func randomGraph(using random: inout SplitMix64) throws -> ObjectGraph {
    // Every escape JSON has, quotes, slashes, non-ASCII, an emoji (a surrogate pair when escaped);
    // not U+FEFF, which Foundation's reader drops (see `byteOrderMarksInStringsAreKept`).
    let pool = Array("ab\"\\/\n\t\r\u{8}\u{C}\u{1}\u{1F}\u{7F}é日🎉 .[]()#:,{}\u{2028}")
    func text() -> String {
      String((0..<Int(random.next() % 10)).map { _ in pool[Int(random.next() % UInt64(pool.count))] })
    }
    let count = 1 + Int(random.next() % 9)
    let nodes = (0..<count).map {
      Node(id: $0, typeName: text(), kind: Node.Kind.allCases[Int(random.next() % 4)])
    }
    let edges = (0..<Int(random.next() % 14)).map { _ -> Edge in
      let from = Int(random.next() % UInt64(count))
      let to = Int(random.next() % UInt64(count))
      let ownership = Ownership.allCases[Int(random.next() % 4)]
      let label = text()
      switch random.next() % 6 {
      case 0:
        return Edge(
          from: from, to: to, label: label, ownership: ownership, kind: .property,
          property: label.isEmpty ? nil : label)
      case 1:
        return Edge(
          from: from, to: to, label: label, ownership: ownership,
          kind: .capture(index: Int(random.next() % 5)),
          property: nil)
      case 2:
        return Edge(
          from: from, to: to, label: label, ownership: ownership, kind: .methodReference(method: text()),
          property: text())
      case 3:
        return Edge(
          from: from, to: to, label: label + " (closure)", ownership: ownership, kind: .closure,
          property: label,
          closureFunction: random.next() % 2 == 0 ? nil : text())
      default:
        let kinds: [Edge.Kind] = [
          .property, .enumPayload, .element, .singleCapture, .global, .suspendedFrame,
        ]
        return Edge(
          from: from, to: to, label: label, ownership: ownership, kind: kinds[Int(random.next() % 6)],
          property: random.next() % 3 == 0 ? nil : text())
      }
    }
    return try ObjectGraph(
      nodes: nodes, edges: edges, root: Int(random.next() % UInt64(count)),
      isTruncated: random.next() % 2 == 0,
      danglingReferences: (0..<Int(random.next() % 3)).map { _ in
        DanglingReference(holder: Int(random.next() % UInt64(count)), label: text())
      },
      notes: (0..<Int(random.next() % 3)).map { _ in text() })
  }

  /// The same snapshot written another way: compact, keys in another order, duplicate keys, unknown
  /// keys with nested values, trailing commas, version 1, another Unicode encoding.
  static func variants(of data: Data, using random: inout SplitMix64) throws -> [(String, Data)] {
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    var variants = [("as written", data)]
    variants.append(("compact", try JSONSerialization.data(withJSONObject: object)))
    let text = String(decoding: data, as: UTF8.self)
    // A key given twice keeps its last value; unknown keys are skipped whatever they hold.
    variants.append(
      (
        "duplicate keys",
        Data(
          text.replacingOccurrences(of: "{\n", with: "{\"id\": \"x\", \"root\": [1], \"from\": null,\n").utf8)
      ))
    let junk =
      #"{"a": [[{"b": [1, -2.5e3, true, null, "\\u00e9\ud83c\udf89"]}], {}], "c": {"d": [[], [[]]]}}"#
    variants.append(
      ("unknown keys", Data(text.replacingOccurrences(of: "{\n", with: "{\"extra\": \(junk),\n").utf8)))
    variants.append(("trailing commas", Data(text.replacingOccurrences(of: "\n  ]", with: ",\n  ]").utf8)))
    variants.append(("escaped slashes", Data(text.replacingOccurrences(of: "/", with: "\\/").utf8)))
    var versionOne = object
    versionOne["version"] = 1
    versionOne["edges"] = (object["edges"] as? [[String: Any]])?.map { edge in
      edge.filter { ["from", "to", "label", "ownership"].contains($0.key) }
    }
    variants.append(("version 1", try JSONSerialization.data(withJSONObject: versionOne)))
    let utf16 = Array(text.utf16)
    variants.append(("UTF-16LE", Data([0xFF, 0xFE] + utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })))
    variants.append(("UTF-16BE", Data(utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })))
    let utf32 = text.unicodeScalars.map(\.value)
    variants.append(
      ("UTF-32LE", Data(utf32.flatMap { value in (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } })))
    variants.append(("UTF-8 BOM", Data([0xEF, 0xBB, 0xBF]) + data))
    _ = random.next()
    return variants
  }

  @Test func randomGraphsReadAsFoundationReadsThem() throws {
    var random = SplitMix64(seed: 0x0D1F_F5EE)
    for round in 0..<300 {
      let graph = try Self.randomGraph(using: &random)
      let data = graph.jsonData()
      for (name, variant) in try Self.variants(of: data, using: &random) {
        let accepted = Self.compare(variant, "round \(round), \(name)")
        // An empty array with a trailing comma (`[,]`) is not JSON.
        #expect(accepted || name == "trailing commas", "round \(round), \(name)")
      }
      // And the graph itself comes back.
      let read = try ObjectGraph(jsonData: data)
      #expect(read.nodes == graph.nodes)
      #expect(read.edges == graph.edges)
      #expect(read.jsonData() == data)
    }
  }

  // Needs the binary readers: the Foundation oracle predates note kinds, and without the readers

  // the samples carry a note of names not read.
  #if BinaryReaders
    @Test(arguments: Sample.all.map(\.name))
    func everySampleReadsAsFoundationReadsIt(_ name: String) throws {
      let data = JSONTests.graph(of: try #require(Sample.named(name))).jsonData()
      var random = SplitMix64(seed: 0x5A)
      for (variant, bytes) in try Self.variants(of: data, using: &random) {
        Self.compare(bytes, "\(name), \(variant)")
      }
    }
  #endif

  // Needs the binary readers: the Foundation oracle predates note kinds, and without the readers

  // the samples carry a note of names not read.
  #if BinaryReaders
    /// Truncations, byte flips, inserted bytes and structural changes of valid snapshots: every one is
    /// accepted as the same graph or rejected with the same message.
    @Test func mutatedSnapshotsFailAsFoundationFails() throws {
      var random = SplitMix64(seed: 0xBAD_5EED)
      var bases = [Data(JSONTests.valid.utf8), Data(SnapshotVersionTests.versionOne.utf8)]
      for sample in Sample.all { bases.append(JSONTests.graph(of: sample).jsonData()) }
      for _ in 0..<40 { bases.append(try Self.randomGraph(using: &random).jsonData()) }
      var accepted = 0
      for round in 0..<8_000 {
        let base = bases[Int(random.next() % UInt64(bases.count))]
        var mutated = JSONTests.mutate(base, using: &random)
        if random.next() % 4 == 0, !mutated.isEmpty { mutated = JSONTests.mutate(mutated, using: &random) }
        if Self.compare(mutated, "round \(round)", throughFile: round % 4 == 0) { accepted += 1 }
      }
      #expect(accepted > 100)
    }
  #endif

  /// Texts at the edges of JSON's grammar and of Foundation's numbers and strings.
  static let edgeTexts: [String] = [
    "", " ", "{", "}", "[]", "[1,]", "{,}", "[,]", "{\"a\":1,}", "{} x", "{}\u{0}", "\u{0B}{}", "{}\u{0C}",
    "nul", "tru", "fals", "[true false]", "{\"a\" 1}", "{1:2}", "\"\\x\"", "\"\\u12G4\"", "\"\\ud800\"",
    "\"\\ud800x\"", "\"\\ud800\\u0041\"", "\"\\udc00\"", "\"\\ud83c\\udf89\"", "\"a\tb\"", "01", "-01", "-",
    "1.", ".5", "1e", "1e+", "+1", "1e05", "0e0", "-0", "1E2", "1e400", "-1e400", "1e-400",
    "18446744073709551615", "99999999999999999999", "9223372036854775807", "-9223372036854775808",
    "123456789.123456789", "1.0000000000000001", "4.9e-324",
  ]

  @Test func edgesOfTheGrammarAsFoundationReadsThem() throws {
    for text in Self.edgeTexts {
      Self.compare(Data(text.utf8), "top level \(text)")
    }
    // The same values where the reader looks at them: a field of each type, and a skipped field.
    let base = JSONTests.valid
    let numbers = [
      "0", "-0", "1.0", "1e0", "1E0", "0.5", "2e-7", "1e16", "1e15", "1e300", "1e400", "-1", "12345678.9",
      "18446744073709551615", "99999999999999999999", "9223372036854775807", "9223372036854775808",
      "-9223372036854775808", "123456789.123456789", "1.0000000000000001", "100000000000000000000000000000",
      "4.9e-324", "1.7976931348623157e308", "\"0\"", "true", "false", "null", "[]", "{}", "[1,]",
      "\"\\u0030\"", "\"ab\\\"c\"", "\"\(String(repeating: "x", count: 50))\"", "\"\\ud83c\\udf89\"",
    ]
    for value in numbers {
      for target in [#""root": 0"#, #""version": 1"#, #""truncated": false"#, #""type": "App.Presenter""#] {
        let key = target.prefix { $0 != ":" }
        let text = base.replacingOccurrences(of: target, with: "\(key): \(value)")
        Self.compare(Data(text.utf8), "\(key) = \(value)")
        Self.compare(
          Data(base.replacingOccurrences(of: target, with: "\(target), \"skipped\": \(value)").utf8))
      }
    }
  }

  @Test func invalidUTF8IsNotJSON() {
    let base = Array(JSONTests.valid.utf8)
    let quote = base.firstIndex(of: UInt8(ascii: "A")) ?? 0  // inside "App.Presenter"
    for bytes: [UInt8] in [
      [0xFF], [0xC0, 0x80], [0xC3], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF8],
      [0x80], [0xE2, 0x82], [0xF0, 0x9F, 0x8E], [0xC3, 0xA9], [0xEF, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF, 0xBF],
    ] {
      var text = base
      text.insert(contentsOf: bytes, at: quote)
      Self.compare(Data(text), "bytes \(bytes)")
    }
  }

  /// Containers nested 512 deep are JSON, 513 are not (Foundation's limit); skipping them uses no
  /// stack, and a much deeper text is refused at the limit.
  @Test func nestingIsBoundedWithoutRecursion() throws {
    for depth in [510, 511, 512, 513, 100_000] {
      let open = (0..<depth).map { $0 % 2 == 0 ? "[" : "{\"k\":" }.joined()
      let close = (0..<depth).reversed().map { $0 % 2 == 0 ? "]" : "}" }.joined()
      // The top level object and the field's value are two of the levels.
      let text = JSONTests.valid.replacingOccurrences(
        of: "\"nodes\"", with: "\"deep\": \(open)0\(close), \"nodes\"")
      #expect(Self.compare(Data(text.utf8), "depth \(depth)") == (depth < 512), "depth \(depth)")
    }
  }

  #if os(Linux)
    /// A file that fails to read is unreadable, not an invalid snapshot (reading `/proc/self/mem` at
    /// its start fails with EIO); a missing file too.
    @Test func aFileThatFailsToReadIsUnreadable() {
      for path in ["/proc/self/mem", "/nonexistent/snapshot.json"] {
        switch Result(catching: { () throws(SnapshotFileError) in try ObjectGraph(jsonFile: path) }) {
        case .failure(.unreadable): break
        case .failure(.invalid(let error)): Issue.record("\(path): \(error)")
        case .success: Issue.record("\(path) read as a snapshot")
        }
      }
    }
  #endif

  /// A U+FEFF in a string is text like any other: it comes back, escaped or not, first or last.
  /// (Foundation's reader dropped one that opens a string or follows an escape.)
  @Test func byteOrderMarksInStringsAreKept() throws {
    let names = ["\u{FEFF}", "\u{FEFF}A", "A\u{FEFF}", "A\n\u{FEFF}B", "\u{FEFF}\u{FEFF}"]
    let graph = try ObjectGraph(
      nodes: names.indices.map { Node(id: $0, typeName: names[$0], kind: .object) },
      edges: names.indices.map {
        Edge(from: $0, to: $0, label: names[$0], ownership: .strong, kind: .property, property: names[$0])
      },
      notes: names)
    let data = graph.jsonData()
    let read = try ObjectGraph(jsonData: data)
    #expect(read.nodes.map(\.typeName) == names)
    #expect(read.edges.map(\.label) == names)
    #expect(read.walkNotes.map(\.description) == names)
    let escaped = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\u{FEFF}", with: "\\ufeff")
    #expect(try ObjectGraph(jsonData: Data(escaped.utf8)).nodes.map(\.typeName) == names)
  }
}
