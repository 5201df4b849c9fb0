package import RetainGraph
internal import RetainGraphFormats

/// Writes `ObjectGraph.htmlPage(style:marking:)`: the page around Graphviz's SVG.
///
/// The page's script finds each drawn node by its SVG `<title>` (`n12` for node 12, as the DOT
/// text names it) and reads the graph from JSON embedded in the page: per node its name, full type
/// name, the holder that first reaches it from the root (the breadth-first search of
/// `ObjectGraph.path(to:)`) and that reference as a trace line. The path to a clicked node is then
/// a climb through holders, without a search in the browser.
package struct HTMLPage {
  let graph: ObjectGraph
  let style: DrawingStyle
  let marks: [HTMLMark]
  let limits: ReportLimits

  /// The most members of a cycle the page lists as buttons; a larger component says how many it
  /// leaves out.
  static let maxMembersListed = 50
  /// The most cycles the page lists (the leak trace counts the rest).
  static let maxCyclesListed = 100

  /// - Throws: ``RenderingError`` when a mark names a node the graph does not have.
  package init(graph: ObjectGraph, style: DrawingStyle, marks: [HTMLMark], limits: ReportLimits)
    throws(RenderingError)
  {
    if let bad = marks.first(where: { $0.node < 0 || $0.node >= graph.nodeCount }) {
      throw RenderingError(
        .unknownNode,
        "cannot mark node \(bad.node): the graph's nodes are 0 to \(graph.nodeCount - 1)")
    }
    self.graph = graph
    self.style = style
    self.marks = marks
    self.limits = limits
  }

  /// The whole page around `svg`, Graphviz's drawing of the graph in `style`.
  package func text(svg: String) -> String {
    let summary = graph.summary()
    var lines = [
      "<!DOCTYPE html>",
      "<html lang=\"en\">",
      "<head>",
      "<meta charset=\"utf-8\">",
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
      // Nothing from the network: no request leaves the page, whatever a label says.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        + "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">",
      "<title>retain-graph: \(HTMLText.escaped(summary))</title>",
      "<style>",
      Self.styleSheet,
      "</style>",
      "</head>",
      "<body>",
      "<header>",
      "<h1>\(HTMLText.escaped(summary))</h1>",
      "<div class=\"tools\">",
      "<label>Find a type <input id=\"search\" type=\"search\" placeholder=\"type name\" "
        + "autocomplete=\"off\" spellcheck=\"false\"></label>",
      "<span id=\"search-count\" aria-live=\"polite\"></span>",
      "<span class=\"zoom\"><button type=\"button\" id=\"zoom-out\" title=\"Zoom out\">−</button>"
        + "<button type=\"button\" id=\"zoom-fit\" title=\"Fit the width\">fit</button>"
        + "<button type=\"button\" id=\"zoom-in\" title=\"Zoom in\">+</button></span>",
      "</div>",
      "</header>",
      "<main>",
      "<section id=\"graph\" aria-label=\"The graph\">",
      HTMLText.inlineSVG(svg),
      "</section>",
      "<aside>",
    ]
    lines += marksSection()
    lines += [
      "<section id=\"selection\">",
      "<h2>Path from the root</h2>",
      "<p id=\"path-hint\">Click a node (or a name below) to see the references that reach it from the "
        + "root.</p>",
      "<ol id=\"path\" class=\"trace\"></ol>",
      "</section>",
      "<section id=\"search-results\" hidden>",
      "<h2>Matching types</h2>",
      "<ul id=\"matches\"></ul>",
      "</section>",
    ]
    lines += cyclesSection()
    lines += [
      "<section id=\"report\">",
      "<h2>Leak trace</h2>",
      "<pre>\(HTMLText.escaped(reportText()))</pre>",
      "</section>",
      "</aside>",
      "</main>",
      "<noscript><p>The drawing, the cycles and the leak trace show without JavaScript; the path to a "
        + "clicked node and the search need it.</p></noscript>",
      "<script type=\"application/json\" id=\"graph-data\">\(dataJSON())</script>",
      "<script>",
      Self.script,
      "</script>",
      "</body>",
      "</html>",
    ]
    return lines.joined(separator: "\n") + "\n"
  }

  /// The report within the limits, or the summary when there is nothing to report (with the notes
  /// in a library's own storage), and how to see what the walk did not.
  private func reportText() -> String {
    let report = graph.report(limits: limits)
    var text = report.isEmpty ? graph.summary() : report
    let library = graph.libraryNoteLines(graph.walkNotes)
    if report.isEmpty && !library.isEmpty { text += "\n\n" + library.joined(separator: "\n") }
    if let incomplete = graph.incompleteness(graph.walkNotes, mayMiss: "a retain cycle") {
      text += "\n\n" + incomplete.howToSee
    }
    return text
  }

  /// A button that selects `node`: shows the path to it and, when it is drawn, highlights it.
  private func nodeButton(_ node: Node.ID) -> String {
    "<button type=\"button\" class=\"node-link\" data-node=\"\(node)\">"
      + "\(HTMLText.escaped(graph.displayName(node)))</button>"
  }

  /// The marked nodes and why, when there are any.
  private func marksSection() -> [String] {
    guard !marks.isEmpty else { return [] }
    return ["<section id=\"marks\">", "<h2>Marked</h2>", "<ul>"]
      + marks.map { "<li class=\"mark\">\(nodeButton($0.node)) \(HTMLText.escaped($0.note))</li>" }
      + ["</ul>", "</section>"]
  }

  /// Each retain cycle: its members (buttons) and its fix plan, the report's `fix:` lines.
  private func cyclesSection() -> [String] {
    let cycles = graph.cycles
    guard !cycles.isEmpty else { return [] }
    var lines = ["<section id=\"cycles\">", "<h2>Retain cycles (\(cycles.count))</h2>", "<ol>"]
    for (index, cycle) in cycles.enumerated().prefix(Self.maxCyclesListed) {
      let count = cycle.members.count
      lines.append("<li class=\"cycle\">")
      lines.append("<h3>cycle \(index + 1) (\(count) object\(count == 1 ? "" : "s"))</h3>")
      var members = cycle.members.prefix(Self.maxMembersListed).map(nodeButton).joined(separator: " ")
      if count > Self.maxMembersListed { members += " … and \(count - Self.maxMembersListed) more" }
      lines.append("<p class=\"members\">\(members)</p>")
      if !cycle.fixPlan.isEmpty {
        let edits = cycle.referencesToWeaken - cycle.fixPlan.reduce(0) { $0 + $1.editedReferenceCount - 1 }
        lines.append("<ul class=\"fixes\">")
        for (number, fix) in cycle.fixPlan.enumerated() {
          let prefix = edits > 1 ? "fix \(number + 1) of \(edits)" : "fix"
          lines.append("<li>\(Self.fixItem("\(prefix): \(fix.fix)", at: fix.location))</li>")
        }
        lines.append("</ul>")
      }
      lines.append("</li>")
    }
    lines.append("</ol>")
    if cycles.count > Self.maxCyclesListed {
      lines.append("<p>… and \(cycles.count - Self.maxCyclesListed) more cycles (see the leak trace).</p>")
    }
    lines.append("</section>")
    return lines
  }

  /// A fix's text; with its location, the location as its tooltip and a link beside it to the
  /// file (a relative path stays relative: the link works from a page saved at the package root),
  /// every part escaped.
  package static func fixItem(_ text: String, at location: CodeLocation?) -> String {
    guard let location else { return HTMLText.escaped(text) }
    let place = HTMLText.escaped(location.description)
    return "<span class=\"fix\" title=\"\(place)\">\(HTMLText.escaped(text))</span> "
      + "<a class=\"location\" href=\"\(HTMLText.escaped(URIReference.percentEncoded(location.file)))\" "
      + "title=\"\(place)\">\(place)</a>"
  }

  /// The graph for the page's script: `{"root": id, "marks": [id…], "nodes": [[name, type name,
  /// holder id or -1, trace line of the reference from the holder or ""]…]}`, node `i` at index `i`.
  func dataJSON() -> String {
    var text = "{\"root\":\(graph.root),\"marks\":["
    text += marks.map { String($0.node) }.joined(separator: ",")
    text += "],\"nodes\":[\n"
    let count = graph.nodeCount
    for id in 0..<count {
      let node = graph.node(id)
      let parent = graph.parentEdge(of: id)
      text += "["
      text += HTMLText.jsonString(graph.displayName(id)) + ","
      text += HTMLText.jsonString(node.typeName) + ","
      text += String(parent?.from ?? -1) + ","
      text += HTMLText.jsonString(parent.map { LeakTrace.hop($0.label, ownership: $0.ownership) } ?? "")
      text += id == count - 1 ? "]\n" : "],\n"
    }
    return text + "]}"
  }
}
