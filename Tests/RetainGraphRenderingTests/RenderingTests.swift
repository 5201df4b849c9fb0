import Foundation
import RetainGraph
import RetainGraphRendering
import RetainGraphTestSupport
import Samples
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

// Graphviz writes the SVG, PDF and its own error messages, worded and laid out per Graphviz version:
// they are checked by structure and fragments, not against golden files.
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
    let pdf = try Self.viperGraph().render(.pdf, style: DrawingStyle(cyclesOnly: true))
    #expect(pdf.starts(with: Data("%PDF".utf8)))
    #expect(String(decoding: pdf.suffix(16), as: UTF8.self).contains("%%EOF"))
  }

  @Test func malformedDOTThrowsWithGraphvizsMessage() throws {
    let error = try #require(throws: RenderingError.self) {
      try Graphviz.render(dot: "digraph { a -> ; }", format: .svg)
    }
    #expect(error.message.hasPrefix("Graphviz could not read the DOT text: "))
    #expect(error.message.contains("syntax error in line 1"), "\(error.message)")
    #expect(error.reason == .invalidDOT && error.path == nil)
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
  func otherMalformedDOT(_ dot: String) throws {
    let error = try #require(throws: RenderingError.self) { try Graphviz.render(dot: dot, format: .svg) }
    #expect(error.reason == .invalidDOT, "\(error)")
  }

  @Test func nulInDOTIsRejected() throws {
    let error = try #require(throws: RenderingError.self) {
      try Graphviz.render(dot: "digraph { a\u{0} -> b }", format: .svg)
    }
    #expect(error.reason == .invalidDOT)
  }

  /// 1,000 random graphs with hostile labels and type names: every SVG parses as XML and contains
  /// every node.
  @Test func hostileRandomGraphsRenderToValidSVG() throws {
    var random = SplitMix64(seed: 2024)
    for round in 0..<1_000 {
      let graph = try HostileGraphs.make(using: &random)
      let style = DrawingStyle(
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
    #expect(error.reason == .fileNotWritten && error.path == nowhere.path)
    #expect(!FileManager.default.fileExists(atPath: nowhere.path))
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["viper.svg"])
  }
}
