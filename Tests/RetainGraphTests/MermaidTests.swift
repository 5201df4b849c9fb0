import Foundation
import PropertyBased
import RetainGraph
import RetainGraphFormats
import RetainGraphTestSupport
import Samples
import Testing

/// `ObjectGraph.mermaid()`: the samples' flowcharts whole, hostile type names and labels escaped so
/// that the text stays in the subset of Mermaid's flowchart grammar the writer emits (checked by
/// ``MermaidGrammar``, written here from Mermaid's flowchart syntax), and Mermaid's default limits.
@Suite struct MermaidTests {
  #if BinaryReaders
    /// Each sample's flowchart, whole, against `__Snapshots__/MermaidTests/NAME.mmd`.
    @Test(arguments: Sample.all.map(\.name))
    func samplesMatchTheirGoldenFiles(name: String) throws {
      let instance = try #require(Sample.named(name)).make()
      defer { instance.breakCycles() }
      let graph = ObjectGraph(reflecting: instance.root)
      let text = graph.mermaid()
      assertGolden(text, named: name, pathExtension: "mmd")
      let parsed = try MermaidGrammar.parse(text)
      try MermaidGrammar.expectLabels(parsed, of: DrawingPlan(graph: graph, style: DOTStyle()))
    }
  #endif

  /// The names that break a naive writer, in one graph: a directive, quotes, brackets, entities,
  /// HTML, Markdown, line breaks, Mermaid's own keywords.
  static let hostile = [
    "%%{init: {\"theme\": \"dark\", \"securityLevel\": \"loose\"}}%%", "say \"hi\"", "Box[Int]", "f(x)",
    "{a|b}", "#35; #quot; &amp; &#38;", "<img src=x onerror=alert(1)>", "`md` **bold**",
    "line\nbreak\r\nthen\rthat",
    "tab\tnul\u{0}del\u{7F}", "end", "subgraph x", "a --> b", "a;b", "back\\slash", "日本語 🧵 é", ":::cycle",
    "click n0 call f()",
  ]

  static func graph(names: [String]) throws -> ObjectGraph {
    // A ring of every name (a cycle of them all), each reference labelled with the next name, and a
    // weak reference back to the root.
    let count = names.count
    let nodes = names.enumerated().map { Node(id: $0.offset, typeName: $0.element, kind: .object) }
    var edges = (0..<count).map {
      Edge(
        from: $0, to: ($0 + 1) % count, label: names[($0 + 1) % count], ownership: .strong, kind: .property,
        property: names[($0 + 1) % count])
    }
    if count > 1 {
      edges.append(
        Edge(from: count - 1, to: 0, label: "back", ownership: .weak, kind: .property, property: "back"))
    }
    return try ObjectGraph(nodes: nodes, edges: edges, root: 0)
  }

  @Test func hostileNamesAreEscaped() throws {
    let graph = try Self.graph(names: Self.hostile)
    let text = graph.mermaid(style: DOTStyle(qualifiedTypeNames: true))
    assertGolden(text, named: "hostile-names", pathExtension: "mmd")
    #expect(!text.contains("%%{"))
    let parsed = try MermaidGrammar.parse(text)
    try MermaidGrammar.expectLabels(
      parsed, of: DrawingPlan(graph: graph, style: DOTStyle(qualifiedTypeNames: true)))
  }

  /// Random names made of hostile pieces and random characters: the text always parses, and every
  /// label reads back as the drawing plan's.
  @Test func randomHostileNamesStayParseable() async {
    // A hostile piece, or any scalar below U+3000 (controls, ASCII, Latin, symbols, CJK punctuation).
    let pieces = Self.hostile + ["%%", "%", "#", "\"", "|", "<br>", "]]", "[[", "-.->", "==>", " "]
    let piece = Gen.int(in: 0...(pieces.count + 0x2FFF)).map { index in
      index < pieces.count ? pieces[index] : String(Unicode.Scalar(UInt32(index - pieces.count)) ?? "?")
    }
    let name = piece.array(of: 1...6).map { $0.joined() }
    await propertyCheck(count: 300, input: name.array(of: 1...5)) { names in
      let graph = try Self.graph(names: names)
      for style in [DOTStyle(), DOTStyle(qualifiedTypeNames: true)] {
        let text = graph.mermaid(style: style)
        #expect(!text.contains("%%{"))
        let parsed = try MermaidGrammar.parse(text)
        try MermaidGrammar.expectLabels(parsed, of: DrawingPlan(graph: graph, style: style))
      }
    }
  }

  /// A ring of 2,000 objects drawn whole: Mermaid would draw none of it past 500 links; the text keeps
  /// to 500 links and 50,000 characters, and a note says what was left out.
  @Test func largeGraphsKeepMermaidsLimits() throws {
    let count = 2_000
    let nodes = (0..<count).map { Node(id: $0, typeName: "App.RingNode\($0 % 7)", kind: .object) }
    let edges = (0..<count).map {
      Edge(
        from: $0, to: ($0 + 1) % count, label: "next", ownership: .strong, kind: .property, property: "next")
    }
    let graph = try ObjectGraph(nodes: nodes, edges: edges, root: 0)
    let text = graph.mermaid(style: DOTStyle())
    let parsed = try MermaidGrammar.parse(text)
    #expect(parsed.links.count <= 500)
    #expect(text.count <= 50_000)
    #expect(parsed.nodes.count > 100)
    let note = try #require(parsed.nodes["mermaidCut"])
    #expect(
      note.hasSuffix(
        "Mermaid draws at most 500 links and 50000 characters (see the SVG or HTML output for all of it)"))
    // Long names: the character limit cuts before the link limit.
    let long = try ObjectGraph(
      nodes: (0..<400).map {
        Node(id: $0, typeName: "App." + String(repeating: "Long", count: 40) + "\($0)", kind: .object)
      },
      edges: (0..<400).map {
        Edge(
          from: $0, to: ($0 + 1) % 400, label: "next", ownership: .strong, kind: .property, property: "next")
      }, root: 0)
    let longText = long.mermaid(style: DOTStyle(qualifiedTypeNames: true))
    #expect(longText.count <= 50_000)
    let longParsed = try MermaidGrammar.parse(longText)
    #expect(longParsed.nodes["mermaidCut"] != nil)
    // A small graph is not cut.
    let small = try Self.graph(names: ["A", "B"]).mermaid()
    #expect(try MermaidGrammar.parse(small).nodes["mermaidCut"] == nil)
  }
}

/// The subset of Mermaid's flowchart grammar `mermaid()` emits, line by line: the header, `%%`
/// comments, `subgraph ID ["…"]` … `end`, node statements (`ID["…"]`, `ID[["…"]]`, `ID(["…"])`,
/// `ID>"…"]`, optionally `:::class`), links (`ID --> ID`, `==>`, `-.->`, `-.-`, optionally
/// `|"…"|`), `classDef` and `linkStyle`. A string holds no `"`, no `%` (a directive), no `#` but an
/// entity code (`#35;`), no `<` but `<br>`, and none of `` ` | & > \ `` raw. Every link's ends
/// are declared nodes; `linkStyle` names existing links.
enum MermaidGrammar {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  struct Parsed {
    /// Each node's label, read back (entity codes decoded, `<br>` a line break).
    var nodes: [String: String] = [:]
    /// Each link's holder, target and label read back.
    var links: [(from: String, to: String, label: String?)] = []
  }

  static let string = #""((?:[^"%#<>&`|\\\n]|#[0-9]+;|<br>)*)""#
  static let id = #"([A-Za-z][A-Za-z0-9]*)"#
  static let style = #"[a-z-]+:[^,;\n]+(?:,[a-z-]+:[^,;\n]+)*"#

  /// A whole-line pattern; nil if it does not compile (then no line matches it, and parsing fails).
  static func regex(_ pattern: String) -> NSRegularExpression? {
    try? NSRegularExpression(pattern: "^" + pattern + "$")
  }

  static let header = regex("flowchart (LR|TB)")
  static let comment = regex("%% [^%{}\\n]*")
  static let subgraph = regex("  subgraph cycle[0-9]+ \\[" + string + "\\]")
  static let end = regex("  end")
  static let node = regex(
    " {2,4}" + id + "(?:\\[\\[" + string + "\\]\\]|\\(\\[" + string + "\\]\\)|\\[" + string + "\\]|>" + string
      + "\\])(?::::[a-z]+)?")
  static let link = regex("  " + id + " (?:-->|==>|-\\.->|-\\.-)(?:\\|" + string + "\\|)? " + id)
  static let classDef = regex("  classDef [a-z]+ " + style)
  static let linkStyle = regex("  linkStyle ([0-9]+(?:,[0-9]+)*) " + style)

  static func captures(_ regex: NSRegularExpression?, _ line: String) -> [String?]? {
    let range = NSRange(line.startIndex..., in: line)
    guard let match = regex?.firstMatch(in: line, range: range) else { return nil }
    return (1..<match.numberOfRanges).map { index in
      Range(match.range(at: index), in: line).map { String(line[$0]) }
    }
  }

  /// `#35;` → `#`, `<br>` → a line break.
  static func decode(_ text: String) -> String {
    var result = ""
    var rest = Substring(text)
    while let start = rest.firstIndex(where: { $0 == "#" || $0 == "<" }) {
      result += rest[..<start]
      rest = rest[start...]
      if rest.hasPrefix("<br>") {
        result += "\n"
        rest = rest.dropFirst(4)
      } else if let end = rest.firstIndex(of: ";"), let value = UInt32(rest[rest.index(after: start)..<end]),
        let scalar = Unicode.Scalar(value)
      {
        result.unicodeScalars.append(scalar)
        rest = rest[rest.index(after: end)...]
      } else {
        result += String(rest.prefix(1))
        rest = rest.dropFirst()
      }
    }
    return result + rest
  }

  static func parse(_ text: String) throws -> Parsed {
    guard text.hasSuffix("\n") else { throw Failure(description: "no line break at the end") }
    guard text.count <= 50_000 else { throw Failure(description: "\(text.count) characters, above 50,000") }
    guard !text.contains("%%{") else { throw Failure(description: "a directive") }
    var parsed = Parsed()
    var open = false
    var styled: [Int] = []
    for (number, line) in text.dropLast().split(separator: "\n", omittingEmptySubsequences: false).map(
      String.init
    )
    .enumerated() {
      if number == 0 {
        guard captures(header, line) != nil else { throw Failure(description: "header: \(line)") }
        continue
      }
      if captures(comment, line) != nil || captures(classDef, line) != nil { continue }
      if captures(subgraph, line) != nil {
        guard !open else { throw Failure(description: "nested subgraph: \(line)") }
        open = true
      } else if captures(end, line) != nil {
        guard open else { throw Failure(description: "end without subgraph") }
        open = false
      } else if let parts = captures(node, line), let name = parts[0] {
        guard parsed.nodes[name] == nil else { throw Failure(description: "\(name) declared twice") }
        parsed.nodes[name] = decode(parts.dropFirst().compactMap { $0 }.first ?? "")
      } else if let parts = captures(link, line), let from = parts[0], let to = parts[2] {
        parsed.links.append((from, to, parts[1].map(decode)))
      } else if let parts = captures(linkStyle, line), let list = parts[0] {
        styled += list.split(separator: ",").compactMap { Int($0) }
      } else {
        throw Failure(description: "line \(number + 1) is not in the grammar: \(line)")
      }
    }
    guard !open else { throw Failure(description: "subgraph not ended") }
    guard parsed.links.count <= 500 else {
      throw Failure(description: "\(parsed.links.count) links, above 500")
    }
    for link in parsed.links where parsed.nodes[link.from] == nil || parsed.nodes[link.to] == nil {
      throw Failure(description: "link \(link.from) → \(link.to) to an undeclared node")
    }
    for index in styled where index >= parsed.links.count {
      throw Failure(description: "linkStyle \(index) names no link")
    }
    return parsed
  }

  /// The plan's labels as the writer shows them: control characters as their pictures, every line
  /// break one.
  static func shown(_ label: String) -> String {
    var result = ""
    var afterReturn = false
    for scalar in label.unicodeScalars {
      defer { afterReturn = scalar == "\r" }
      if scalar == "\n" {
        if !afterReturn { result += "\n" }
      } else if scalar == "\r" {
        result += "\n"
      } else if scalar.value < 0x20 || scalar.value == 0x7F {
        result.unicodeScalars.append(
          Unicode.Scalar(0x2400 + (scalar.value == 0x7F ? 0x21 : scalar.value)) ?? "?")
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// Every drawn node of `plan` is declared with its label, and every reference drawn has its label.
  static func expectLabels(_ parsed: Parsed, of plan: DrawingPlan) throws {
    for node in plan.nodes where parsed.nodes[node.name] != nil {
      guard parsed.nodes[node.name] == shown(node.label) else {
        throw Failure(description: "\(node.name): \(parsed.nodes[node.name] ?? "") is not \(node.label)")
      }
    }
    let drawnLabels = Set(parsed.links.compactMap(\.label))
    for reference in plan.references
    where parsed.nodes[DrawingPlan.elementName(of: reference.from)] != nil
      && parsed.nodes[DrawingPlan.elementName(of: reference.to)] != nil
    {
      guard drawnLabels.contains(shown(reference.label)) else {
        throw Failure(description: "no link labelled \(reference.label)")
      }
    }
  }
}
