import Foundation
import RetainGraph
import RetainGraphRendering
import Samples
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

@Suite struct RenderingTests {
  static func viperGraph() throws -> ObjectGraph {
    let instance = try #require(Sample.named("viper-module")).make()
    defer { instance.breakCycles() }
    return ObjectGraph(reflecting: instance.root)
  }

  @Test func viperModuleSVGShowsTheCycleInRed() throws {
    let svg = try Self.viperGraph().render(.svg)
    let text = try #require(String(data: svg, encoding: .utf8))
    #expect(SVGCheck.parse(svg).error == nil)
    for id in 0..<3 { #expect(text.contains("<title>n\(id)</title>")) }
    #expect(text.contains("cluster_0"))
    #expect(text.contains("stroke=\"#cc0000\""))
    #expect(text.contains("output ✂ break here"))
  }

  @Test func pngStartsWithThePNGSignature() throws {
    let png = try Self.viperGraph().render(.png)
    #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    #expect(png.count > 1_000)
  }

  @Test func pdfStartsWithPDF() throws {
    let pdf = try Self.viperGraph().render(.pdf, style: DOTStyle(cyclesOnly: true))
    #expect(pdf.starts(with: Data("%PDF".utf8)))
    #expect(String(decoding: pdf.suffix(16), as: UTF8.self).contains("%%EOF"))
  }

  @Test func malformedDOTThrowsWithGraphvizsMessage() throws {
    let error = try #require(throws: RenderingError.self) {
      try Graphviz.render(dot: "digraph { a -> ; }", format: .svg)
    }
    #expect(error.message.hasPrefix("Graphviz could not read the DOT text: "))
    #expect(error.message.contains("syntax error in line 1"), "\(error.message)")
    // Graphviz keeps working afterwards.
    let svg = try Graphviz.render(dot: "digraph { a -> b }", format: .svg)
    #expect(String(decoding: svg, as: UTF8.self).contains("<title>a&#45;&gt;b</title>"))
  }

  @Test func eachRenderStartsAtLineOne() throws {
    _ = try Graphviz.render(dot: "digraph { first }\ndigraph { second -> ; }\n", format: .svg)
    let svg = try Graphviz.render(dot: "digraph { x -> y }\n", format: .svg)
    #expect(String(decoding: svg, as: UTF8.self).contains("<title>x&#45;&gt;y</title>"))
    let error = try #require(throws: RenderingError.self) {
      try Graphviz.render(dot: "digraph { a -> ; }", format: .svg)
    }
    #expect(error.message.contains("syntax error in line 1 near ';'"), "\(error.message)")
  }

  @Test(arguments: [
    "", "not dot at all", "graph { a -> b }", "digraph { \"unterminated }", "digraph { a -> b",
  ])
  func otherMalformedDOT(_ dot: String) {
    #expect(throws: RenderingError.self) { try Graphviz.render(dot: dot, format: .svg) }
  }

  @Test func nulInDOTIsRejected() {
    #expect(throws: RenderingError.self) { try Graphviz.render(dot: "digraph { a\u{0} -> b }", format: .svg) }
  }

  /// 1,000 random graphs with hostile labels and type names: every SVG parses as XML and contains
  /// every node.
  @Test func hostileRandomGraphsRenderToValidSVG() throws {
    var random = SplitMix64(seed: 2024)
    for round in 0..<1_000 {
      let graph = try HostileGraphs.make(using: &random)
      let style = DOTStyle(
        qualifiedTypeNames: round % 2 == 0, rankDirection: round % 3 == 0 ? .topToBottom : .leftToRight)
      let svg: Data
      do {
        svg = try graph.render(.svg, style: style)
      } catch {
        Issue.record("round \(round): \(error)\n\(graph.dot(style: style))")
        continue
      }
      let result = SVGCheck.parse(svg)
      if let error = result.error {
        Issue.record("round \(round): the SVG is not XML: \(error)\n\(graph.dot(style: style))")
        continue
      }
      let missing = graph.nodes.map(\.id).filter { !result.titles.contains("n\($0)") }
      #expect(missing.isEmpty, "round \(round): nodes \(missing) missing from the SVG")
    }
  }

  /// Graphviz is not thread-safe: 8 tasks rendering at once must each get a valid result.
  @Test func concurrentRendersAreSerialised() async throws {
    let graphs = try (0..<8).map { index in
      var random = SplitMix64(seed: UInt64(100 + index))
      return try HostileGraphs.make(using: &random)
    }
    let results = await withTaskGroup(of: (Int, [Result<Data, RenderingError>]).self) { group in
      for (index, graph) in graphs.enumerated() {
        group.addTask {
          var results: [Result<Data, RenderingError>] = []
          for round in 0..<50 {
            let format: RenderFormat = round % 10 == 9 ? .png : .svg
            results.append(Result { () throws(RenderingError) in try graph.render(format) })
          }
          return (index, results)
        }
      }
      var all: [(Int, [Result<Data, RenderingError>])] = []
      for await result in group { all.append(result) }
      return all
    }
    #expect(results.count == 8)
    for (index, renders) in results {
      #expect(renders.count == 50)
      let ids = Set(graphs[index].nodes.map { "n\($0.id)" })
      for (round, render) in renders.enumerated() {
        switch render {
        case .failure(let error): Issue.record("task \(index) render \(round): \(error)")
        case .success(let data) where round % 10 == 9:
          #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]), "task \(index) render \(round)")
        case .success(let data):
          // Not compared byte for byte: Graphviz orders clusters by heap address, so the order of
          // elements in the SVG can differ from one render to the next.
          let check = SVGCheck.parse(data)
          #expect(check.error == nil, "task \(index) render \(round): \(check.error ?? "")")
          #expect(ids.isSubset(of: check.titles), "task \(index) render \(round) lacks nodes")
        }
      }
    }
  }

  @Test func writeIsAtomic() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "retain-graph-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let graph = try Self.viperGraph()
    let file = directory.appendingPathComponent("viper.svg")
    try graph.write(to: file, format: .svg)
    try graph.write(to: file, format: .svg)  // replaces
    #expect(try Data(contentsOf: file) == graph.render(.svg))
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["viper.svg"])

    let nowhere = directory.appendingPathComponent("missing/viper.pdf")
    let error = try #require(throws: RenderingError.self) { try graph.write(to: nowhere, format: .pdf) }
    #expect(error.message == "cannot write \(nowhere.path): No such file or directory")
    #expect(!FileManager.default.fileExists(atPath: nowhere.path))
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["viper.svg"])
  }
}

/// Random graphs whose type names and labels are as hostile to DOT and XML as text can be.
enum HostileGraphs {
  static let pieces: [String] = [
    "\"", "\\", "\\N", "\\G", "\\n", "\n", "\r\n", "\r", "\t", "<b>", "</svg>", "<![CDATA[", "]]>", "{", "}",
    "|",
    "&amp;", "&bogus;", "&#0;", "&#x41;", "&#1114112;", "& ", "&", ";", "<!--", "-->", "--", "é", "日本語", "🧵",
    "👩‍👩‍👧", "e\u{301}", "\u{0}", "\u{1}", "\u{8}", "\u{1B}[31m", "\u{7F}", "\u{85}", "\u{FEFF}", "\u{FFFE}",
    "\u{FFFF}", "\u{202E}", "\u{2028}", "\u{10FFFF}", String(repeating: "a", count: 300),
    "Swift.Dictionary<Swift.String, Swift.Array<Swift.Optional<App.Box<(Swift.Int, Swift.String) -> ()>>>>",
    "digraph {", "node [shape=record]", "\"; x -> y; \"", "->", "%s%n%x", "$(rm -rf /)", "closure at a.b[0]",
    " ",
    "", "label=<<b>x</b>>", "\\l\\r", "'", "`",
  ]

  static func text(using random: inout SplitMix64) -> String {
    var text = ""
    for _ in 0...(random.next() % 4) {
      if random.next() % 4 == 0 {
        // A random scalar from anywhere in Unicode (surrogates cannot be in a String).
        let value = UInt32(truncatingIfNeeded: random.next() % 0x11_0000)
        if let scalar = Unicode.Scalar(value) { text.unicodeScalars.append(scalar) }
      } else {
        text += pieces[Int(random.next() % UInt64(pieces.count))]
      }
    }
    return text
  }

  static func make(using random: inout SplitMix64) throws -> ObjectGraph {
    let count = Int(random.next() % 16) + 1
    let kinds = Node.Kind.allCases
    let nodes = (0..<count).map { id in
      Node(id: id, typeName: text(using: &random), kind: kinds[Int(random.next() % UInt64(kinds.count))])
    }
    let ownerships = Ownership.allCases
    let edges = (0..<Int(random.next() % UInt64(count * 3))).map { _ in
      Edge(
        from: Int(random.next() % UInt64(count)), to: Int(random.next() % UInt64(count)),
        label: text(using: &random),
        ownership: random.next() % 2 == 0
          ? .strong : ownerships[Int(random.next() % UInt64(ownerships.count))])
    }
    let dangling =
      random.next() % 5 == 0
      ? [DanglingReference(holder: Int(random.next() % UInt64(count)), label: text(using: &random))] : []
    return try ObjectGraph(
      nodes: nodes, edges: edges, root: 0, isTruncated: random.next() % 7 == 0, danglingReferences: dangling)
  }
}

/// Parses SVG with Foundation's XML parser and collects the `<title>` of every element.
final class SVGCheck: NSObject, XMLParserDelegate {
  var titles: Set<String> = []
  var error: String?
  private var inTitle = false
  private var title = ""

  static func parse(_ data: Data) -> SVGCheck {
    let check = SVGCheck()
    let parser = XMLParser(data: data)
    parser.delegate = check
    if !parser.parse() {
      check.error = parser.parserError.map { "\($0)" } ?? "unknown XML error"
    }
    return check
  }

  func parser(
    _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    if elementName == "title" {
      inTitle = true
      title = ""
    }
  }

  func parser(_ parser: XMLParser, foundCharacters string: String) {
    if inTitle { title += string }
  }

  func parser(
    _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
  ) {
    if elementName == "title" {
      inTitle = false
      titles.insert(title)
    }
  }
}

/// A small, seeded, deterministic random number generator (SplitMix64).
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
