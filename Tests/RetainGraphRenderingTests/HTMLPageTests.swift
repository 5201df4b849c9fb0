import Foundation
import RetainGraph
import RetainGraphRendering
import RetainGraphTestSupport
import Samples
import Testing

/// The HTML page's own parts (everything but Graphviz's SVG) against golden files, the embedded data
/// against the graph, and the page's promise to fetch nothing. `BrowserTests` loads it in Chromium.
@Suite struct HTMLPageTests {
  /// What the golden pages show where Graphviz's drawing goes: the SVG's wording and coordinates
  /// depend on the Graphviz version.
  static let placeholderSVG = "<svg width=\"10pt\" height=\"10pt\"><!-- Graphviz's drawing --></svg>"

  /// A notifier and its observer holding each other, reached from a screen, with names and labels
  /// that would break the page if they were not escaped: `</script>`, markup, `&`, U+2028.
  static func hostileGraph() throws -> ObjectGraph {
    let nodes = [
      Node(id: 0, typeName: "App.Screen", kind: .object),
      Node(id: 1, typeName: "App.Notifier<</script><b id=\"injected\">&amp;</b>>", kind: .object),
      Node(id: 2, typeName: "App.Observer<\u{2028}<!--'\">", kind: .object),
      Node(id: 3, typeName: "App.Delegate", kind: .object),
    ]
    let edges = [
      Edge(from: 0, to: 1, label: "notifier", ownership: .strong, kind: .property, property: "notifier"),
      Edge(from: 1, to: 2, label: "observers[0]", ownership: .strong, kind: .element, property: "observers"),
      Edge(
        from: 2, to: 1, label: "owner</script>", ownership: .strong, kind: .property,
        property: "owner</script>"),
      Edge(from: 0, to: 3, label: "delegate", ownership: .weak, kind: .property, property: "delegate"),
    ]
    return try ObjectGraph(nodes: nodes, edges: edges, root: 0)
  }

  @Test func hostilePageMatchesItsGolden() throws {
    let graph = try Self.hostileGraph()
    let marks = [HTMLMark(node: 1, note: "Notifier.observers grows by 1 per run <b>&</b>")]
    let page = try HTMLPage(graph: graph, style: DrawingStyle(), marks: marks, limits: ReportLimits())
    assertGolden(page.text(svg: Self.placeholderSVG), named: "hostile", pathExtension: "html")
  }

  @Test func samplePageMatchesItsGolden() throws {
    let instance = try #require(Sample.named("coordinator-parent")).make()
    defer { instance.breakCycles() }
    let graph = ObjectGraph(reflecting: instance.root)
    let page = try HTMLPage(graph: graph, style: DrawingStyle(), marks: [], limits: ReportLimits())
    assertGolden(page.text(svg: Self.placeholderSVG), named: "coordinator-parent", pathExtension: "html")
  }

  /// A graph whose walk did not read a part of the user's object and a library's closure context:
  /// the page says what was not seen (the library's short) and how to see it.
  @Test func notedPageMatchesItsGolden() throws {
    let graph = try ObjectGraph(
      nodes: [
        Node(id: 0, typeName: "App.Slots", kind: .object),
        Node(id: 1, typeName: "closure #1 in Logging.Logger.init(label:)", kind: .closure),
      ],
      edges: [Edge(from: 0, to: 1, label: "log", ownership: .strong, kind: .property, property: "log")],
      walkNotes: [
        GraphNote(
          kind: .unreadElements, node: 0, typeName: "App.Slots",
          description: "App.Slots: the elements a ManagedBuffer stores after its header are not walked"),
        GraphNote(
          kind: .unrecognisedClosure, node: 1, typeName: "closure #1 in Logging.Logger.init(label:)",
          description: "closure #1 in Logging.Logger.init(label:): closure context layout not recognised"),
      ])
    let page = try HTMLPage(graph: graph, style: DrawingStyle(), marks: [], limits: ReportLimits())
    assertGolden(page.text(svg: Self.placeholderSVG), named: "noted", pathExtension: "html")
    assertGolden(graph.dot(), named: "noted", pathExtension: "dot")
  }

  /// The page with Graphviz's real drawing: the SVG inline (without its XML declaration), every
  /// node's `<title>n<id></title>` there for the script, nothing that loads from elsewhere.
  @Test func pageInlinesGraphvizsSVG() throws {
    let instance = try #require(Sample.named("viper-module")).make()
    defer { instance.breakCycles() }
    let graph = ObjectGraph(reflecting: instance.root)
    let page = try graph.htmlPage()
    #expect(!page.contains("<?xml"))
    #expect(!page.contains("<!DOCTYPE svg"))
    #expect(page.components(separatedBy: "<svg ").count == 2)
    for id in 0..<graph.nodeCount { #expect(page.contains("<title>n\(id)</title>")) }
    // The only addresses are the SVG's XML namespaces, which are names, never fetched.
    let addresses = page.components(separatedBy: "://").count - 1
    #expect(page.components(separatedBy: "xmlns=\"http://www.w3.org/2000/svg\"").count == 2)
    #expect(page.components(separatedBy: "xmlns:xlink=\"http://www.w3.org/1999/xlink\"").count == 2)
    #expect(addresses == 2, "\(addresses) addresses in the page")
    for fetching in ["src=", "url(", "@import"] {
      #expect(!page.contains(fetching), "the page contains \(fetching)")
    }
    // Links only to the source files of the fixes, which the reader follows (never fetched).
    let links = page.components(separatedBy: "href=").count - 1
    #expect(links == page.components(separatedBy: "<a class=\"location\" href=\"").count - 1)
    #expect(links == graph.cycles.flatMap(\.fixPlan).filter { $0.location != nil }.count)
  }

  /// A fix with a location: the location is its tooltip and a link beside it, relative paths stay
  /// relative, the path is percent-encoded in the link and everything is escaped as the page
  /// escapes names.
  @Test func aFixWithALocationLinksToItsFile() {
    let fix = "fix: make Interactor.output weak"
    #expect(HTMLPage.fixItem(fix, at: nil) == "fix: make Interactor.output weak")
    #expect(
      HTMLPage.fixItem(fix, at: CodeLocation(file: "Samples/ViperModule.swift", line: 17, column: 14))
        == "<span class=\"fix\" title=\"Samples/ViperModule.swift:17:14\">fix: make Interactor.output weak</span> "
        + "<a class=\"location\" href=\"Samples/ViperModule.swift\" title=\"Samples/ViperModule.swift:17:14\">"
        + "Samples/ViperModule.swift:17:14</a>")
    #expect(
      HTMLPage.fixItem("fix: <b>&</b>", at: CodeLocation(file: "/src/A \"b\" <c>&'#?.swift", line: 3))
        == "<span class=\"fix\" title=\"/src/A &quot;b&quot; &lt;c&gt;&amp;&#39;#?.swift:3\">fix: &lt;b&gt;&amp;&lt;/b&gt;</span> "
        + "<a class=\"location\" href=\"/src/A%20%22b%22%20%3Cc%3E%26%27%23%3F.swift\" "
        + "title=\"/src/A &quot;b&quot; &lt;c&gt;&amp;&#39;#?.swift:3\">/src/A &quot;b&quot; &lt;c&gt;&amp;&#39;#?.swift:3</a>"
    )
  }

  /// 300 random graphs with hostile names and labels: the embedded data ends where its `<script>`
  /// ends, parses as JSON, and gives back every name, type name and holder; the page has exactly
  /// its two scripts.
  @Test func embeddedDataSurvivesHostileNames() throws {
    var random = SplitMix64(seed: 22)
    let opening = "<script type=\"application/json\" id=\"graph-data\">"
    for round in 0..<300 {
      let graph = try HostileGraphs.make(using: &random)
      let page = try HTMLPage(graph: graph, style: DrawingStyle(), marks: [], limits: ReportLimits())
        .text(svg: Self.placeholderSVG)
      #expect(page.components(separatedBy: "<script").count == 3, "round \(round)")
      #expect(page.components(separatedBy: "</script>").count == 3, "round \(round)")
      let start = try #require(page.range(of: opening)).upperBound
      let end = try #require(page.range(of: "</script>", range: start..<page.endIndex)).lowerBound
      let json = String(page[start..<end])
      #expect(
        !json.contains("<") && !json.contains("\u{2028}") && !json.contains("\u{2029}"), "round \(round)")
      let data = try #require(
        try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "round \(round)")
      let nodes = try #require(data["nodes"] as? [[Any]])
      #expect(nodes.count == graph.nodeCount)
      for (id, node) in nodes.enumerated() {
        #expect(node[0] as? String == graph.displayName(id), "round \(round) node \(id)")
        #expect(node[1] as? String == graph.node(id).typeName, "round \(round) node \(id)")
        let parent = graph.parentEdge(of: id)
        #expect((node[2] as? NSNumber)?.intValue == parent?.from ?? -1, "round \(round) node \(id)")
      }
    }
  }

  @Test func aMarkOfAMissingNodeIsAnError() throws {
    let graph = try Self.hostileGraph()
    let error = try #require(throws: RenderingError.self) {
      try graph.htmlPage(marking: [HTMLMark(node: 4, note: "grows")])
    }
    #expect(error.message == "cannot mark node 4: the graph's nodes are 0 to 3")
    #expect(error.reason == .unknownNode)
  }

  @Test func writeHTMLPageWritesThePage() throws {
    let graph = try Self.hostileGraph()
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("retain-graph-\(UUID()).html")
    defer { try? FileManager.default.removeItem(at: url) }
    try graph.writeHTMLPage(to: url)
    #expect(try String(contentsOf: url, encoding: .utf8) == graph.htmlPage())
  }
}
