import Foundation
import RetainGraph
import RetainGraphTestSupport
import Samples
import Testing

@Suite struct DOTTests {
  static func viperGraph() throws -> ObjectGraph {
    let instance = try #require(Sample.named("viper-module")).make()
    defer { instance.breakCycles() }
    return ObjectGraph(reflecting: instance.root)
  }

  @Test func theAutomaticLayoutIsLeftToRightWhenSmallAndTopToBottomForALongChain() throws {
    #expect(try Self.viperGraph().dot().contains("rankdir=LR"))
    let chain = ObjectGraph(reflecting: ListNode.make(count: 30))
    #expect(chain.dot().contains("rankdir=TB"))
    #expect(chain.dot(style: DrawingStyle(rankDirection: .leftToRight)).contains("rankdir=LR"))
    #expect(chain.dot(style: DrawingStyle(maxNodes: 12)).contains("rankdir=LR"))
  }

  // Needs the binary readers: it checks names read from the symbol tables (BinaryReadersTests

  // checks the names without them).
  #if BinaryReaders
    @Test func longNamesAreWrappedAndClosureNamesShortened() throws {
      let holder = ClosureHolder()
      let extra = 1
      holder.plain = { [holder] in _ = (holder.tag, extra) }
      defer { holder.clear() }
      let graph = ObjectGraph(reflecting: holder)
      let closure = try #require(graph.nodes.first { $0.kind == .closure })
      let dot = graph.dot()
      // The label has neither the signature nor the module; the full name stays in the tooltip.
      #expect(closure.typeName.contains(" -> "))
      #expect(dot.contains("tooltip=\"\(closure.typeName.replacingOccurrences(of: ">", with: "\\>"))\""))
      #expect(
        dot.contains(
          "\"n\(closure.id)\" [label=\"closure #1 in DOTTests.\\nlongNamesAreWrappedAnd\\nClosureNamesShortened()\""
        ))
      let long = ObjectGraph(reflecting: GenericBox(GenericBox(GenericBox(Leaf()))))
      let root = try #require(long.dot().split(separator: "\n").first { $0.contains("\"n0\" [") })
      #expect(root.contains("label=\"GenericBox\\<GenericBox\\<\\nGenericBox\\<Leaf\\>\\>\\>\""), "\(root)")
    }
  #endif

  @Test func sameGraphGivesSameBytes() throws {
    for sample in Sample.all {
      let first = sample.make()
      let second = sample.make()
      let one = ObjectGraph(reflecting: first.root).dot()
      let two = ObjectGraph(reflecting: second.root).dot()
      first.breakCycles()
      second.breakCycles()
      #expect(one == two, "\(sample.name)")
      // A property of every DOT text rather than a text to compare (each sample's is a golden file).
      #expect(!one.contains("0x"), "no addresses in \(sample.name)")
    }
  }

  @Test func viperModuleIsDrawnWithItsCycleInRed() throws {
    // The cycle in a red cluster (the presenter and the interactor inside it, the view outside), the
    // reference to break marked, references back toward the root reversed and drawn with `dir=back`.
    assertGolden(try Self.viperGraph().dot(), named: "viper-module", pathExtension: "dot")
  }

  @Test func fixedModuleHasNoClusterAndNoRed() {
    let instance = Sample.named("viper-module-fixed")?.make()
    let dot = instance.map { ObjectGraph(reflecting: $0.root).dot() } ?? ""
    assertGolden(dot, named: "viper-module-fixed", pathExtension: "dot")
  }

  @Test func ownershipStylesAndShapes() throws {
    let graph = try ObjectGraph(
      nodes: [
        Node(id: 0, typeName: "App.Root", kind: .value),
        Node(id: 1, typeName: "closure at Root.handler", kind: .closure),
        Node(id: 2, typeName: "App.A", kind: .object),
      ],
      edges: [
        Edge(from: 0, to: 1, label: "handler (closure)", ownership: .strong, kind: .closure, property: nil),
        Edge(
          from: 1, to: 2, label: "capture 0", ownership: .unowned, kind: .capture(index: 0), property: nil),
        Edge(from: 0, to: 2, label: "raw", ownership: .unownedUnsafe, kind: .property, property: "raw"),
        Edge(from: 2, to: 0, label: "back", ownership: .weak, kind: .property, property: "back"),
      ],
      danglingReferences: [DanglingReference(holder: 2, label: "owner")])
    assertGolden(
      graph.dot(style: DrawingStyle(rankDirection: .topToBottom)), named: "ownership-styles",
      pathExtension: "dot"
    )
    assertGolden(
      graph.dot(style: DrawingStyle(showsDanglingReferences: false)),
      named: "ownership-styles-without-dangling",
      pathExtension: "dot")
  }

  @Test func qualifiedTypeNames() throws {
    let graph = try Self.viperGraph()
    assertGolden(
      graph.dot(style: DrawingStyle(qualifiedTypeNames: true)), named: "viper-module-qualified",
      pathExtension: "dot")
    assertGolden(graph.dot(), named: "viper-module", pathExtension: "dot")
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
    func dot(_ text: String) throws -> String {
      try ObjectGraph(
        nodes: [Node(id: 0, typeName: text, kind: .object), Node(id: 1, typeName: "B", kind: .object)],
        edges: [Edge(from: 0, to: 1, label: text, ownership: .strong, kind: .property, property: nil)]
      ).dot(style: DrawingStyle(qualifiedTypeNames: true))
    }
    // The whole text is the golden one of a plain name, with the name escaped wherever it appears.
    let template = try dot("PLAIN")
    assertGolden(template, named: "escaping-plain", pathExtension: "dot")
    let dot = try dot(text)
    #expect(dot == template.replacingOccurrences(of: "PLAIN", with: String(expected.dropFirst().dropLast())))
    // Every statement stays on its own line: no raw line break or NUL escapes a string.
    for line in dot.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
      #expect(line.hasPrefix(" ") || line.hasPrefix("digraph") || line == "}", "\(line)")
    }
    #expect(!dot.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
  }

  @Test func veryLongGenericNamesAreAbbreviated() throws {
    let long = "Swift.Dictionary<" + String(repeating: "Swift.Array<App.Item>, ", count: 200) + "Swift.Int>"
    let graph = try ObjectGraph(nodes: [Node(id: 0, typeName: long, kind: .object)], edges: [])
    let dot = graph.dot(style: DrawingStyle(qualifiedTypeNames: true))
    let start = try #require(dot.firstRange(of: "\"n0\" [label=\"")).upperBound
    let text = dot[start...].prefix { $0 != "\"" }
    #expect(text.count <= 80 + 10)  // escapes add a few backslashes
    // The label abbreviated with `…`, the tooltip keeping the full name.
    assertGolden(dot, named: "very-long-generic-name", pathExtension: "dot")
  }

  @Test func nodeCapCollapsesTheRestPerHolder() throws {
    var nodes = [Node(id: 0, typeName: "Root", kind: .object)]
    var edges: [Edge] = []
    for id in 1...10 {
      nodes.append(Node(id: id, typeName: "Child\(id)", kind: .object))
      edges.append(
        Edge(
          from: 0, to: id, label: "children[\(id - 1)]", ownership: .strong, kind: .element,
          property: "children"))
    }
    for id in 11...13 {
      nodes.append(Node(id: id, typeName: "Grandchild\(id)", kind: .object))
      edges.append(
        Edge(
          from: 1, to: id, label: "items[\(id - 11)]", ownership: .strong, kind: .element, property: "items"))
    }
    let graph = try ObjectGraph(nodes: nodes, edges: edges)
    let dot = graph.dot(style: DrawingStyle(maxNodes: 4))
    let drawn = dot.split(separator: "\n").filter { $0.hasPrefix("  \"n") && !$0.contains("->") }
    #expect(drawn.count == 4)
    assertGolden(dot, named: "node-cap", pathExtension: "dot")
    assertGolden(graph.dot(), named: "node-cap-not-reached", pathExtension: "dot")
  }

  @Test func nodeCapKeepsTheCycleFirst() throws {
    var nodes = [Node(id: 0, typeName: "Root", kind: .object)]
    var edges: [Edge] = []
    for id in 1...20 {
      nodes.append(Node(id: id, typeName: "Leaf\(id)", kind: .object))
      edges.append(
        Edge(
          from: 0, to: id, label: "leaves[\(id - 1)]", ownership: .strong, kind: .element, property: "leaves")
      )
    }
    nodes.append(Node(id: 21, typeName: "A", kind: .object))
    nodes.append(Node(id: 22, typeName: "B", kind: .object))
    edges += [
      Edge(from: 20, to: 21, label: "a", ownership: .strong, kind: .property, property: "a"),
      Edge(from: 21, to: 22, label: "b", ownership: .strong, kind: .property, property: "b"),
      Edge(from: 22, to: 21, label: "a", ownership: .strong, kind: .property, property: "a"),
    ]
    let dot = try ObjectGraph(nodes: nodes, edges: edges).dot(style: DrawingStyle(maxNodes: 4))
    // Drawn: the root n0, the path n20 and the cycle n21, n22; the 19 other leaves collapsed.
    assertGolden(dot, named: "node-cap-keeps-the-cycle", pathExtension: "dot")
  }

  @Test func cyclesOnlyDrawsTheCyclesAndThePathToThem() throws {
    let graph = try ObjectGraph(
      nodes: (0..<6).map { Node(id: $0, typeName: "T\($0)", kind: .object) },
      edges: [
        Edge(from: 0, to: 1, label: "unrelated", ownership: .strong, kind: .property, property: "unrelated"),
        Edge(from: 0, to: 2, label: "path", ownership: .strong, kind: .property, property: "path"),
        Edge(from: 2, to: 3, label: "into", ownership: .strong, kind: .property, property: "into"),
        Edge(from: 3, to: 4, label: "loop", ownership: .strong, kind: .property, property: "loop"),
        Edge(from: 4, to: 3, label: "back", ownership: .strong, kind: .property, property: "back"),
        Edge(from: 4, to: 5, label: "leaf", ownership: .strong, kind: .property, property: "leaf"),
      ])
    // Drawn: n0, n2, n3, n4 (not the unrelated n1 nor the leaf n5), nothing collapsed.
    assertGolden(graph.dot(style: DrawingStyle(cyclesOnly: true)), named: "cycles-only", pathExtension: "dot")
  }
}
