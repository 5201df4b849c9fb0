import Foundation
import RetainGraph
import RetainGraphTestSupport
import Samples
import Testing

/// `retain-graph render --format html` loaded in a real browser, headless Chromium (`make deps`
/// installs Debian's): the page's own script clicks a drawn node (the address asks it to, with
/// `#click=n<id>`, at the node's centre on the screen) and searches (`#search=…`); Chromium dumps the
/// resulting DOM, and the path the page shows is compared with the graph's own path to that node.
@Suite struct BrowserTests {
  /// What Chromium left in the DOM after the page's script ran, and what the page logged.
  struct Page {
    var dom: String
    /// The console's lines (`CONSOLE` in Chromium's log).
    var console: [String]

    /// The texts of `<ol id="path">`'s items: the trace the page shows for the clicked node.
    var pathLines: [String] {
      guard let list = section(from: "<ol id=\"path\"", to: "</ol>") else { return [] }
      return matches(of: #"<li class="[^"]*">(.*?)</li>"#, in: list).map { Self.unescaped($0[1]) }
    }

    /// The ids of the drawn nodes (`data-node`) whose `class` has `className`.
    func drawnNodes(withClass className: String) -> Set<Int> {
      var ids: Set<Int> = []
      for tag in matches(of: #"<g [^>]*>"#, in: dom).map({ $0[0] }) {
        guard let classes = matches(of: #"class="([^"]*)""#, in: tag).first?[1],
          let id = matches(of: #"data-node="(\d+)""#, in: tag).first.flatMap({ Int($0[1]) }),
          classes.split(separator: " ").contains(Substring(className))
        else { continue }
        ids.insert(id)
      }
      return ids
    }

    /// The text of the element with `id` (its first text, without markup).
    func text(ofElementWithID id: String) -> String? {
      matches(of: #"id="\#(id)"[^>]*>([^<]*)<"#, in: dom).first.map { Self.unescaped($0[1]) }
    }

    func section(from start: String, to end: String) -> String? {
      guard let lower = dom.range(of: start),
        let upper = dom.range(of: end, range: lower.upperBound..<dom.endIndex)
      else { return nil }
      return String(dom[lower.lowerBound..<upper.upperBound])
    }

    func matches(of pattern: String, in text: String) -> [[String]] {
      guard let expression = try? NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators])
      else { return [] }
      let range = NSRange(text.startIndex..., in: text)
      return expression.matches(in: text, range: range).map { match in
        (0..<match.numberOfRanges).map { index in
          Range(match.range(at: index), in: text).map { String(text[$0]) } ?? ""
        }
      }
    }

    /// Text as Chromium serialises it, back to the text: `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&nbsp;`.
    static func unescaped(_ text: String) -> String {
      text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
        .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&nbsp;", with: "\u{A0}")
        .replacingOccurrences(of: "&amp;", with: "&")
    }
  }

  /// The Chromium to run: `RETAIN_GRAPH_CHROMIUM`, else `chromium` or `chromium-browser` on the PATH.
  static let chromium: String? = {
    let environment = ProcessInfo.processInfo.environment
    if let path = environment["RETAIN_GRAPH_CHROMIUM"], !path.isEmpty {
      return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }
    let folders = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    for name in ["chromium", "chromium-browser"] {
      for folder in folders where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
        return "\(folder)/\(name)"
      }
    }
    return nil
  }()

  static let missingChromium =
    "Chromium is not installed (no chromium or chromium-browser on the PATH; or RETAIN_GRAPH_CHROMIUM names "
    + "no executable): "
    + "`make deps` installs it (apt-get install chromium on Debian); this test loads the html page in it"

  /// Loads `file#fragment` in headless Chromium and returns the DOM once the page's script ran.
  static func load(_ file: URL, fragment: String, in directory: URL) throws -> Page {
    let chromium = try #require(Self.chromium, Comment(rawValue: missingChromium))
    let output = directory.appendingPathComponent("dom.html")
    let log = directory.appendingPathComponent("chromium.log")
    try Data().write(to: output)
    try Data().write(to: log)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: chromium)
    process.arguments = [
      "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
      "--disable-extensions", "--user-data-dir=\(directory.appendingPathComponent("profile").path)",
      "--window-size=1280,800", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=2000",
      "--dump-dom", file.absoluteString + "#" + fragment,
    ]
    process.standardOutput = try FileHandle(forWritingTo: output)
    process.standardError = try FileHandle(forWritingTo: log)
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // A browser that hangs fails the test instead of holding the run.
    let deadline = Date().addingTimeInterval(60)
    while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    if process.isRunning {
      process.terminate()
      process.waitUntilExit()
      Issue.record("Chromium did not finish loading the page within 60 s")
    }
    process.waitUntilExit()
    let dom = try String(contentsOf: output, encoding: .utf8)
    let logText = try String(contentsOf: log, encoding: .utf8)
    let console = logText.split(separator: "\n").filter { $0.contains(":CONSOLE") }.map(String.init)
    #expect(process.terminationStatus == 0, "Chromium exited with \(process.terminationStatus): \(logText)")
    #expect(dom.contains("</html>"), "Chromium printed no DOM: \(logText)")
    return Page(dom: dom, console: console)
  }

  /// The node farthest from the root among the drawn ones (its path is the longest to check).
  static func deepestNode(of graph: ObjectGraph) -> Node.ID {
    (0..<graph.nodeCount).max {
      (graph.path(to: $0)?.count ?? -1, $1) < (graph.path(to: $1)?.count ?? -1, $0)
    }
      ?? graph.root
  }

  /// An app's coordinators, screens and a store whose observer closure captures its view model:
  /// six references deep, one cycle, four coordinators to find.
  static func appGraph() throws -> ObjectGraph {
    let types = [
      "App.AppCoordinator", "App.TabCoordinator", "App.FeedCoordinator", "App.FeedViewController",
      "App.FeedViewModel", "App.Store", "closure #1 in App.FeedViewModel.init()", "App.ProfileCoordinator",
      "App.ProfileViewController",
    ]
    let nodes = types.enumerated().map { id, type in
      Node(id: id, typeName: type, kind: type.hasPrefix("closure") ? .closure : .object)
    }
    let edges = [
      Edge(from: 0, to: 1, label: "tabs[0]", ownership: .strong, kind: .element, property: "tabs"),
      Edge(from: 1, to: 2, label: "children[0]", ownership: .strong, kind: .element, property: "children"),
      Edge(from: 1, to: 7, label: "children[1]", ownership: .strong, kind: .element, property: "children"),
      Edge(from: 2, to: 1, label: "parent", ownership: .weak, kind: .property, property: "parent"),
      Edge(
        from: 2, to: 3, label: "viewController", ownership: .strong, kind: .property,
        property: "viewController"),
      Edge(from: 3, to: 2, label: "coordinator", ownership: .weak, kind: .property, property: "coordinator"),
      Edge(from: 3, to: 4, label: "viewModel", ownership: .strong, kind: .property, property: "viewModel"),
      Edge(from: 4, to: 5, label: "store", ownership: .strong, kind: .property, property: "store"),
      Edge(from: 5, to: 6, label: "observers[0]", ownership: .strong, kind: .element, property: "observers"),
      Edge(from: 6, to: 4, label: "self", ownership: .strong, kind: .property, property: "self"),
      Edge(
        from: 7, to: 8, label: "viewController", ownership: .strong, kind: .property,
        property: "viewController"),
    ]
    return try ObjectGraph(nodes: nodes, edges: edges, root: 0)
  }

  @Test func clickingANodeShowsItsPathAndSearchHighlightsTypes() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let snapshot = directory.appendingPathComponent("graph.json")
    let pagePath = directory.appendingPathComponent("graph.html")
    try Self.appGraph().jsonData().write(to: snapshot)
    let graph = try ObjectGraph(jsonData: Data(contentsOf: snapshot))
    let target = Self.deepestNode(of: graph)
    let marked = try #require(graph.cycles.first?.members.first)
    let render = try CLITests.run(
      "render", snapshot.path, "--format", "html", "--output", pagePath.path, "--mark", "\(marked):grows")
    #expect(render.status == 0, "\(render.stderr)")
    #expect(render.stderr.isEmpty)

    let page = try Self.load(pagePath, fragment: "search=Coordinator&click=n\(target)", in: directory)
    #expect(!page.console.contains { $0.contains("Uncaught") }, "\(page.console)")

    let path = try #require(graph.path(to: target))
    #expect(path.count == 6)
    #expect(page.pathLines == graph.traceLines(along: path), "\(page.console)")
    #expect(page.drawnNodes(withClass: "selected") == [target])
    #expect(page.drawnNodes(withClass: "on-path") == Set([graph.root] + path.map(\.to)))
    #expect(page.drawnNodes(withClass: "marked") == [marked])

    let matching = Set(
      (0..<graph.nodeCount).filter {
        graph.displayName($0).lowercased().contains("coordinator")
          || graph.node($0).typeName.lowercased().contains("coordinator")
      })
    #expect(matching == [0, 1, 2, 7])
    #expect(page.drawnNodes(withClass: "match") == matching)
    #expect(
      page.text(ofElementWithID: "search-count") == "\(matching.count) nodes match, \(matching.count) drawn")
  }

  /// A '+N more' node (the picture's node cap) lists the nodes its holder first reaches that are
  /// not drawn.
  @Test func clickingAMoreNodeListsWhatIsNotDrawn() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let nodes =
      [Node(id: 0, typeName: "App.Feed", kind: .object)]
      + (1...12).map { Node(id: $0, typeName: "App.Item", kind: .object) }
    let edges = (1...12).map {
      Edge(from: 0, to: $0, label: "items[\($0 - 1)]", ownership: .strong, kind: .element, property: "items")
    }
    let graph = try ObjectGraph(nodes: nodes, edges: edges, root: 0)
    let snapshot = directory.appendingPathComponent("feed.json")
    try graph.jsonData().write(to: snapshot)
    let pagePath = directory.appendingPathComponent("feed.html")
    let render = try CLITests.run(
      "render", snapshot.path, "--format", "html", "--output", pagePath.path, "--max-nodes", "5")
    #expect(render.status == 0, "\(render.stderr)")

    let page = try Self.load(pagePath, fragment: "click=more0", in: directory)
    #expect(!page.console.contains { $0.contains("Uncaught") }, "\(page.console)")
    let drawn = page.drawnNodes(withClass: "node")
    #expect(drawn.count == 5)
    #expect(page.drawnNodes(withClass: "selected") == [0])
    let listed = page.matches(
      of: #"<li><button [^>]*data-node="(\d+)""#,
      in: page.section(from: "<ul id=\"matches\"", to: "</ul>") ?? ""
    )
    .compactMap { Int($0[1]) }
    #expect(Set(listed) == Set(1...12).subtracting(drawn))
    #expect(listed.count == 12 + 1 - 5)
    #expect(page.dom.contains("<section id=\"search-results\">\n<h2>Not drawn, first reached from Feed</h2>"))
  }

  /// Names made of markup and script endings show as text: the page's script still runs (its data
  /// was not cut short), the path shows the names as they are, and no element they spell exists.
  @Test func hostileNamesShowAsText() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let nodes = [
      Node(id: 0, typeName: "App.Screen", kind: .object),
      Node(id: 1, typeName: "App.Notifier<</script><b id=\"injected\">&amp;</b>>", kind: .object),
      Node(id: 2, typeName: "App.Observer<\u{2028}<!--'\"><img src=x id=\"injected-image\">", kind: .object),
    ]
    let edges = [
      Edge(from: 0, to: 1, label: "notifier", ownership: .strong, kind: .property, property: "notifier"),
      Edge(
        from: 1, to: 2, label: "observers[0]</script>", ownership: .strong, kind: .element,
        property: "observers"),
      Edge(from: 2, to: 1, label: "owner", ownership: .strong, kind: .property, property: "owner"),
    ]
    let graph = try ObjectGraph(nodes: nodes, edges: edges, root: 0)
    let snapshot = directory.appendingPathComponent("hostile.json")
    try graph.jsonData().write(to: snapshot)
    let pagePath = directory.appendingPathComponent("hostile.html")
    let render = try CLITests.run(
      "render", snapshot.path, "--format", "html", "--output", pagePath.path, "--mark",
      "n1:<i id=\"injected-note\">")
    #expect(render.status == 0, "\(render.stderr)")

    let page = try Self.load(pagePath, fragment: "click=n2", in: directory)
    #expect(!page.console.contains { $0.contains("Uncaught") }, "\(page.console)")
    #expect(page.pathLines == graph.traceLines(along: try #require(graph.path(to: 2))))
    #expect(page.pathLines.last == "Observer<\u{2028}<!--'\"><img src=x id=\"injected-image\">")
    for injected in ["id=\"injected\"", "id=\"injected-image\"", "id=\"injected-note\""] {
      let elements = page.matches(of: #"<[a-z]+ [^>]*\#(injected)"#, in: page.dom)
      #expect(elements.isEmpty, "an element made from a name: \(elements)")
    }
  }
}

/// `--format html` and `--mark` at the command line, without a browser.
@Suite struct HTMLOutputTests {
  @Test func htmlGoesToStandardOutputAndMarksAreChecked() throws {
    let page = try CLITests.run("sample", "viper-module", "--format", "html", "--mark", "n2:grows")
    #expect(page.status == 0, "\(page.stderr)")
    #expect(page.stderr.isEmpty)
    #expect(page.text.hasPrefix("<!DOCTYPE html>\n"))
    #expect(
      page.text.contains("<li class=\"mark\"><button type=\"button\" class=\"node-link\" data-node=\"2\">"))
    #expect(page.text.contains("<title>n2</title>"))

    let outOfRange = try CLITests.run("sample", "viper-module", "--format", "html", "--mark", "3")
    #expect(outOfRange.status == 2)
    #expect(outOfRange.stderr == "error: cannot mark node 3: the graph's nodes are 0 to 2\n")
    let notANode = try CLITests.run("sample", "viper-module", "--format", "html", "--mark", "presenter")
    #expect(notANode.status == 2)
    #expect(
      notANode.stderr.contains("The value 'presenter' is invalid for '--mark <id[:note]>'"),
      "\(notANode.stderr)")
    let notHTML = try CLITests.run("sample", "viper-module", "--format", "svg", "--mark", "1")
    #expect(notHTML.status == 2)
    #expect(notHTML.stderr == "error: --mark marks nodes on the html page; add --format html\n")
  }
}
