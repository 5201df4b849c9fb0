import Foundation
import RetainGraph
import RetainGraphTestSupport

#if canImport(FoundationXML)
  import FoundationXML
#endif

// Shared fixtures for the rendering tests.

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
          ? .strong : ownerships[Int(random.next() % UInt64(ownerships.count))],
        kind: .property, property: nil)
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
