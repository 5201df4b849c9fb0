import Foundation
import RetainGraph
import Samples
import Testing

@Suite struct DOTTests {
  static func viperGraph() throws -> ObjectGraph {
    let instance = try #require(Sample.named("viper-module")).make()
    defer { instance.breakCycles() }
    return ObjectGraph(reflecting: instance.root)
  }

  @Test func sameGraphGivesSameBytes() throws {
    for sample in Sample.all {
      let first = sample.make()
      let second = sample.make()
      let one = ObjectGraph(reflecting: first.root).dot()
      let two = ObjectGraph(reflecting: second.root).dot()
      first.breakCycles()
      second.breakCycles()
      #expect(one == two, "\(sample.name)")
      #expect(!one.contains("0x"), "no addresses in \(sample.name)")
    }
  }

  @Test func viperModuleIsDrawnWithItsCycleInRed() throws {
    let dot = try Self.viperGraph().dot()
    #expect(dot.hasPrefix("digraph \"retain-graph\" {\n"))
    #expect(dot.hasSuffix("}\n"))
    #expect(dot.contains("rankdir=LR"))
    #expect(dot.contains("subgraph cluster_0 {"))
    #expect(
      dot.contains(#""n0" [label="ViewController", tooltip="Samples.ViewController", shape=doubleoctagon"#))
    #expect(
      dot.contains(
        ##""n1" -> "n2" [label="output ✂ break here", color="#cc0000", fontcolor="#cc0000", penwidth=2.5, style=bold, dir=back];"##
      ))
    #expect(dot.contains(##""n1" -> "n2" [label="interactor", color="#cc0000""##))
    // References back toward the root are written reversed, drawn with `dir=back`.
    #expect(
      dot.contains(
        ##""n0" -> "n1" [label="view (weak)", style=dashed, color="#666666", fontcolor="#666666", dir=back];"##
      ))
    // The presenter and the interactor are declared inside the cluster, the view outside it.
    let cluster = dot.range(of: "subgraph cluster_0 {")?.upperBound
    let clusterEnd = cluster.flatMap { dot[$0...].range(of: "\n  }\n")?.lowerBound }
    if let cluster, let clusterEnd {
      let body = dot[cluster..<clusterEnd]
      #expect(body.contains("\"n1\" [label=\"Presenter\""))
      #expect(body.contains("\"n2\" [label=\"Interactor\""))
      #expect(!body.contains("\"n0\" ["))
    } else {
      Issue.record("no cluster in\n\(dot)")
    }
  }

  @Test func fixedModuleHasNoClusterAndNoRed() {
    let instance = Sample.named("viper-module-fixed")?.make()
    let dot = instance.map { ObjectGraph(reflecting: $0.root).dot() } ?? ""
    #expect(dot.contains("no retain cycle"))
    #expect(!dot.contains("cluster"))
    #expect(!dot.contains("#cc0000"))
    #expect(dot.contains("(weak)"))
  }

  @Test func ownershipStylesAndShapes() throws {
    let graph = try ObjectGraph(
      nodes: [
        Node(id: 0, typeName: "App.Root", kind: .value),
        Node(id: 1, typeName: "closure at Root.handler", kind: .closure),
        Node(id: 2, typeName: "App.A", kind: .object),
      ],
      edges: [
        Edge(from: 0, to: 1, label: "handler (closure)", ownership: .strong),
        Edge(from: 1, to: 2, label: "capture 0", ownership: .unowned),
        Edge(from: 0, to: 2, label: "raw", ownership: .unownedUnsafe),
        Edge(from: 2, to: 0, label: "back", ownership: .weak),
      ],
      danglingReferences: [DanglingReference(holder: 2, label: "owner")])
    let dot = graph.dot(style: DOTStyle(rankDirection: .topToBottom))
    #expect(dot.contains("rankdir=TB"))
    #expect(
      dot.contains(
        #""n1" [label="closure at Root.handler", tooltip="closure at Root.handler", shape=ellipse"#))
    #expect(dot.contains(##""n1" -> "n2" [label="capture 0 (unowned)", style=dotted, color="#333333"];"##))
    #expect(
      dot.contains(
        ##""n0" -> "n2" [label="raw (unowned(unsafe))", style=dotted, color="#999999", fontcolor="#999999"];"##
      ))
    #expect(
      dot.contains(
        ##""n0" -> "n2" [label="back (weak)", style=dashed, color="#666666", fontcolor="#666666", dir=back];"##
      ))
    #expect(dot.contains(#""dangling0" [label="dangling\n(deinitialized)""#))
    #expect(dot.contains(##""n2" -> "dangling0" [label="owner (unowned)", style=dotted, color="#cc0000""##))
    #expect(!graph.dot(style: DOTStyle(showsDanglingReferences: false)).contains("dangling0"))
  }

  @Test func qualifiedTypeNames() throws {
    let graph = try Self.viperGraph()
    #expect(graph.dot(style: DOTStyle(qualifiedTypeNames: true)).contains(#"label="Samples.Presenter""#))
    #expect(graph.dot().contains(#"label="Presenter""#))
  }

  @Test(arguments: [
    ("quote\"", #""quote\"""#),
    (#"back\slash \N \G"#, #""back\\slash \\N \\G""#),
    ("line\nbreak\r\nwindows\rmac", #""line\nbreak\nwindows\nmac""#),
    ("tab\there", #""tab here""#),
    ("<b>{x}|y</b>", #""\<b\>\{x\}\|y\</b\>""#),
    ("nul\u{0}bell\u{7}del\u{7F}nel\u{85}", "\"nul\u{2400}bell\u{2407}del\u{2421}nel\u{FFFD}\""),
    ("non\u{FFFE}char\u{FFFF}", "\"non\u{FFFD}char\u{FFFD}\""),
    ("&amp; &#38; &x; & ok &;", "\"&\u{2060}amp; &\u{2060}#38; &\u{2060}x; & ok &\u{2060};\""),
    ("日本語 🧵 é", "\"日本語 🧵 é\""),
  ])
  func escaping(_ text: String, _ expected: String) throws {
    let graph = try ObjectGraph(
      nodes: [Node(id: 0, typeName: text, kind: .object), Node(id: 1, typeName: "B", kind: .object)],
      edges: [Edge(from: 0, to: 1, label: text, ownership: .strong)])
    let dot = graph.dot(style: DOTStyle(qualifiedTypeNames: true))
    #expect(dot.contains("\"n0\" [label=\(expected), tooltip=\(expected)"))
    #expect(dot.contains("\"n0\" -> \"n1\" [label=\(expected)];"))
    // Every statement stays on its own line: no raw line break or NUL escapes a string.
    for line in dot.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
      #expect(line.hasPrefix(" ") || line.hasPrefix("digraph") || line == "}", "\(line)")
    }
    #expect(!dot.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
  }

  @Test func veryLongGenericNamesAreAbbreviated() throws {
    let long = "Swift.Dictionary<" + String(repeating: "Swift.Array<App.Item>, ", count: 200) + "Swift.Int>"
    let graph = try ObjectGraph(nodes: [Node(id: 0, typeName: long, kind: .object)], edges: [])
    let dot = graph.dot(style: DOTStyle(qualifiedTypeNames: true))
    let start = try #require(dot.firstRange(of: "\"n0\" [label=\"")).upperBound
    let text = dot[start...].prefix { $0 != "\"" }
    #expect(text.count <= 80 + 10)  // escapes add a few backslashes
    #expect(text.contains("…"))
    #expect(text.hasSuffix("Swift.Int\\>"))
    #expect(dot.contains("tooltip=\"\(long.replacingAngles())\""), "the tooltip keeps the full name")
  }

  @Test func nodeCapCollapsesTheRestPerHolder() throws {
    var nodes = [Node(id: 0, typeName: "Root", kind: .object)]
    var edges: [Edge] = []
    for id in 1...10 {
      nodes.append(Node(id: id, typeName: "Child\(id)", kind: .object))
      edges.append(Edge(from: 0, to: id, label: "children[\(id - 1)]", ownership: .strong))
    }
    for id in 11...13 {
      nodes.append(Node(id: id, typeName: "Grandchild\(id)", kind: .object))
      edges.append(Edge(from: 1, to: id, label: "items[\(id - 11)]", ownership: .strong))
    }
    let graph = try ObjectGraph(nodes: nodes, edges: edges)
    let dot = graph.dot(style: DOTStyle(maxNodes: 4))
    let drawn = dot.split(separator: "\n").filter { $0.hasPrefix("  \"n") && !$0.contains("->") }
    #expect(drawn.count == 4)
    #expect(dot.contains(#""more0" [label="+7 more""#))
    #expect(dot.contains(#""more1" [label="+3 more""#))
    #expect(dot.contains(#""n0" -> "more0""#))
    #expect(dot.contains("10 of 14 nodes not drawn"))
    #expect(!graph.dot().contains("more"))
  }

  @Test func nodeCapKeepsTheCycleFirst() throws {
    var nodes = [Node(id: 0, typeName: "Root", kind: .object)]
    var edges: [Edge] = []
    for id in 1...20 {
      nodes.append(Node(id: id, typeName: "Leaf\(id)", kind: .object))
      edges.append(Edge(from: 0, to: id, label: "leaves[\(id - 1)]", ownership: .strong))
    }
    nodes.append(Node(id: 21, typeName: "A", kind: .object))
    nodes.append(Node(id: 22, typeName: "B", kind: .object))
    edges += [
      Edge(from: 20, to: 21, label: "a", ownership: .strong),
      Edge(from: 21, to: 22, label: "b", ownership: .strong),
      Edge(from: 22, to: 21, label: "a", ownership: .strong),
    ]
    let dot = try ObjectGraph(nodes: nodes, edges: edges).dot(style: DOTStyle(maxNodes: 4))
    for id in [0, 20, 21, 22] { #expect(dot.contains("\"n\(id)\" [label="), "n\(id)") }
    #expect(dot.contains(#""more0" [label="+19 more""#))
  }

  @Test func cyclesOnlyDrawsTheCyclesAndThePathToThem() throws {
    let graph = try ObjectGraph(
      nodes: (0..<6).map { Node(id: $0, typeName: "T\($0)", kind: .object) },
      edges: [
        Edge(from: 0, to: 1, label: "unrelated", ownership: .strong),
        Edge(from: 0, to: 2, label: "path", ownership: .strong),
        Edge(from: 2, to: 3, label: "into", ownership: .strong),
        Edge(from: 3, to: 4, label: "loop", ownership: .strong),
        Edge(from: 4, to: 3, label: "back", ownership: .strong),
        Edge(from: 4, to: 5, label: "leaf", ownership: .strong),
      ])
    let dot = graph.dot(style: DOTStyle(cyclesOnly: true))
    for id in [0, 2, 3, 4] { #expect(dot.contains("\"n\(id)\" [label="), "n\(id)") }
    for id in [1, 5] { #expect(!dot.contains("\"n\(id)\""), "n\(id)") }
    #expect(
      dot.contains(
        ##""n3" -> "n4" [label="back ✂ break here", color="#cc0000", fontcolor="#cc0000", penwidth=2.5, style=bold, dir=back];"##
      ))
    #expect(!dot.contains("more"))
  }
}

extension String {
  fileprivate func replacingAngles() -> String {
    var result = ""
    for character in self {
      if character == "<" || character == ">" { result.append("\\") }
      result.append(character)
    }
    return result
  }
}
