import Foundation
import RetainGraphTestSupport
import Samples
import Testing

@testable import RetainGraph

/// `ObjectGraph.diagnostics()` and `sarifData()`: every sample's lines and log whole against golden
/// files, every log held to the SARIF 2.1.0 standard's requirements (``SARIFRequirements``), hostile
/// type names and paths kept on one line and in valid JSON, and the forms of a location.
@Suite struct DiagnosticsTests {
  /// `text` parsed as JSON, and the SARIF requirements it does not meet.
  static func sarifViolations(_ data: Data) throws -> [String] {
    SARIFRequirements.violations(of: try JSONSerialization.jsonObject(with: data))
  }

  #if BinaryReaders
    /// Each sample's diagnostics and SARIF log, whole, against `__Snapshots__/DiagnosticsTests/`.
    /// Until the breaks carry their locations, every line is `<unknown>:0:`; with them, each points
    /// at the property or closure in `Samples/` to change.
    @Test(arguments: Sample.all.map(\.name))
    func samplesMatchTheirGoldenFiles(name: String) throws {
      let sample = try #require(Sample.named(name))
      let instance = sample.make()
      defer { instance.breakCycles() }
      let graph = ObjectGraph(reflecting: instance.root)
      let diagnostics = graph.diagnostics()
      assertGolden(diagnostics, named: name, pathExtension: "log")
      let sarif = graph.sarifData()
      assertGolden(String(decoding: sarif, as: UTF8.self), named: name, pathExtension: "sarif")
      #expect(try Self.sarifViolations(sarif) == [])
      // One line per fix of each cycle that is not a library's own, none for a sample without one.
      let fixes = graph.cycles.reduce(0) { $0 + $1.fixPlan.count }
      #expect(diagnostics.split(separator: "\n").count <= fixes)
      #expect(diagnostics.isEmpty == !graph.cycles.contains { !$0.fixPlan.isEmpty })
      #expect(sample.hasCycle || diagnostics.isEmpty)
    }
  #endif

  /// The names that break a line-based or a JSON writer: quotes, backslashes, line breaks, control
  /// characters, separators, non-ASCII, a compiler diagnostic's own syntax.
  static let hostile = [
    "say \"hi\"", "back\\slash\\", "line\nbreak\r\nthen\rthat", "tab\tnul\u{0}del\u{7F}",
    "sep\u{2028}para\u{2029}nel\u{85}", "日本語 🧵 é", "File.swift:1:2: error: x", "<unknown>:0:", "\\u0022",
    "{\"json\": [1]}",
  ]

  /// A ring of `names` (one cycle of them all), each reference labelled with the next name.
  static func ring(_ names: [String]) throws -> ObjectGraph {
    let nodes = names.enumerated().map { Node(id: $0.offset, typeName: "App.\($0.element)", kind: .object) }
    let edges = names.indices.map {
      Edge(
        from: $0, to: ($0 + 1) % names.count, label: names[($0 + 1) % names.count], ownership: .strong,
        kind: .property, property: names[($0 + 1) % names.count])
    }
    return try ObjectGraph(nodes: nodes, edges: edges, root: 0)
  }

  @Test func hostileNamesStayOnOneLineAndInValidSARIF() throws {
    let graph = try Self.ring(Self.hostile)
    let diagnostics = graph.diagnostics()
    assertGolden(diagnostics, named: "hostile-names", pathExtension: "log")
    let lines = diagnostics.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    #expect(lines.count == graph.cycles[0].fixPlan.count)
    for line in lines {
      #expect(line.hasPrefix("<unknown>:0: warning: "))
      #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0 == "\u{2028}" })
    }
    let sarif = graph.sarifData()
    assertGolden(String(decoding: sarif, as: UTF8.self), named: "hostile-names", pathExtension: "sarif")
    #expect(try Self.sarifViolations(sarif) == [])
    // Each result's message is its line's text, read back through JSON.
    let log = try #require(try JSONSerialization.jsonObject(with: sarif) as? [String: Any])
    let runs = try #require(log["runs"] as? [[String: Any]])
    let results = try #require(runs.first?["results"] as? [[String: Any]])
    let messages = results.map { ($0["message"] as? [String: Any])?["text"] as? String }
    #expect(messages == lines.map { String($0.dropFirst("<unknown>:0: warning: ".count)) })
  }

  /// Alike cycles share their line, a long loop's trace keeps its ends, a library's own loop has
  /// no line.
  @Test func alikeCyclesLongLoopsAndLibraryLoops() throws {
    // Three rings of two Node objects, from one root.
    var nodes = [Node(id: 0, typeName: "App.Root", kind: .object)]
    var edges: [Edge] = []
    for ring in 0..<3 {
      let first = nodes.count
      nodes += [
        Node(id: first, typeName: "App.Node", kind: .object),
        Node(id: first + 1, typeName: "App.Node", kind: .object),
      ]
      edges += [
        Edge(
          from: 0, to: first, label: "rings[\(ring)]", ownership: .strong, kind: .element, property: "rings"),
        Edge(
          from: first, to: first + 1, label: "next", ownership: .strong, kind: .property, property: "next"),
        Edge(
          from: first + 1, to: first, label: "next", ownership: .strong, kind: .property, property: "next"),
      ]
    }
    let alike = try ObjectGraph(nodes: nodes, edges: edges, root: 0)
    #expect(alike.cycles.count == 3)
    #expect(
      alike.diagnostics()
        == "<unknown>:0: warning: make Node.next weak (2 references: one in each of 2 Node objects) "
        + "(retain cycle: Node → Node → Node; one edit for all 3 cycles)\n")

    let long = try Self.ring((0..<20).map { "T\($0)" })
    #expect(
      long.diagnostics()
        == "<unknown>:0: warning: make T0.T1 weak (retain cycle: T0 → T1 → T2 → T3 → (+13 more) → T17 → T18 → "
        + "T19 → T0)\n")

    // A screen holding a subject whose subscription holds it back: the library's own loop.
    let library = try ObjectGraph(
      nodes: [
        Node(id: 0, typeName: "App.Screen", kind: .object),
        Node(id: 1, typeName: "OpenCombine.PassthroughSubject<Swift.Int, Swift.Never>", kind: .object),
        Node(id: 2, typeName: "OpenCombine.Conduit<Swift.Int>", kind: .object),
      ],
      edges: [
        Edge(from: 0, to: 1, label: "subject", ownership: .strong, kind: .property, property: "subject"),
        Edge(from: 1, to: 2, label: "conduits[0]", ownership: .strong, kind: .element, property: "conduits"),
        Edge(from: 2, to: 1, label: "parent", ownership: .strong, kind: .property, property: "parent"),
      ], root: 0)
    #expect(library.cycles.map(\.isLibraryOnly) == [true])
    #expect(library.diagnostics() == "")
    #expect(try Self.sarifViolations(library.sarifData()) == [])
  }

  /// A diagnostic at each kind of place: a relative path with a column, one without, an absolute
  /// path, a path with spaces, `#`, `%`, `:` and non-ASCII, a line break in a path, and none.
  static let located: [Diagnostic] = {
    let locations: [CodeLocation?] = [
      CodeLocation(file: "Samples/ViperModule.swift", line: 17, column: 14),
      CodeLocation(file: "Sources/App/Cart View#1 100% é:x.swift", line: 3),
      CodeLocation(file: "/src/App/Screen.swift", line: 42, column: 1),
      CodeLocation(file: "a:b/c.swift", line: 1, column: 1),
      CodeLocation(file: "bad\npath.swift", line: 9),
      nil,
    ]
    let idioms = Cycle.Break.Idiom.allCases
    return locations.enumerated().map { number, location in
      Diagnostic(
        location: location, idiom: idioms[number % idioms.count],
        message: "make T\(number).output weak (retain cycle: T\(number) → U → T\(number))",
        signature: CycleSignature(text: "object T\(number)"), advice: .weakProperty("T\(number).output"))
    }
  }()

  @Test func eachFormOfALocation() throws {
    let lines = Self.located.map(DiagnosticText.warning)
    #expect(
      lines == [
        "Samples/ViperModule.swift:17:14: warning: make T0.output weak (retain cycle: T0 → U → T0)",
        "Sources/App/Cart View#1 100% é:x.swift:3: warning: make T1.output weak (retain cycle: T1 → U → T1)",
        "/src/App/Screen.swift:42:1: warning: make T2.output weak (retain cycle: T2 → U → T2)",
        "a:b/c.swift:1:1: warning: make T3.output weak (retain cycle: T3 → U → T3)",
        "bad␊path.swift:9: warning: make T4.output weak (retain cycle: T4 → U → T4)",
        "<unknown>:0: warning: make T5.output weak (retain cycle: T5 → U → T5)",
      ])
    let sarif = Data(SARIFWriter(diagnostics: Self.located).data())
    assertGolden(String(decoding: sarif, as: UTF8.self), named: "locations", pathExtension: "sarif")
    #expect(try Self.sarifViolations(sarif) == [])
    let log = try #require(try JSONSerialization.jsonObject(with: sarif) as? [String: Any])
    let results = try #require((log["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])
    let artifacts = results.map {
      (($0["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])?[
        "artifactLocation"]
        as? [String: String]
    }
    #expect(
      artifacts == [
        ["uri": "Samples/ViperModule.swift", "uriBaseId": "%SRCROOT%"],
        ["uri": "Sources/App/Cart%20View%231%20100%25%20%C3%A9%3Ax.swift", "uriBaseId": "%SRCROOT%"],
        ["uri": "file:///src/App/Screen.swift"],
        ["uri": "a%3Ab/c.swift", "uriBaseId": "%SRCROOT%"],
        ["uri": "bad%0Apath.swift", "uriBaseId": "%SRCROOT%"],
        nil,
      ])
    // No `locations` member at all for a diagnostic without a location.
    #expect(results[5]["locations"] == nil)
  }

  /// The requirements check itself rejects what the standard forbids.
  @Test func theRequirementsCheckRejectsWhatTheStandardForbids() {
    let valid: [String: Any] = [
      "version": "2.1.0",
      "runs": [
        [
          "tool": ["driver": ["name": "t", "rules": [["id": "a"], ["id": "b"]]]],
          "results": [
            [
              "message": ["text": "m"], "ruleId": "b", "ruleIndex": 1, "level": "warning",
              "locations": [
                [
                  "physicalLocation": [
                    "artifactLocation": ["uri": "a%20b/c.swift", "uriBaseId": "%SRCROOT%"],
                    "region": ["startLine": 1, "startColumn": 1],
                  ]
                ]
              ],
            ]
          ],
        ]
      ],
    ]
    #expect(SARIFRequirements.violations(of: valid) == [])
    func broken(_ change: (inout [String: Any]) -> Void) -> Int {
      var log = valid
      change(&log)
      return SARIFRequirements.violations(of: log).count
    }
    func result(_ change: @escaping (inout [String: Any]) -> Void) -> (inout [String: Any]) -> Void {
      { log in
        var runs = log["runs"] as? [[String: Any]] ?? [[:]]
        var results = runs[0]["results"] as? [[String: Any]] ?? [[:]]
        change(&results[0])
        runs[0]["results"] = results
        log["runs"] = runs
      }
    }
    #expect(broken { $0["version"] = "2.0.0" } == 1)
    #expect(broken { $0["runs"] = nil } == 1)
    #expect(broken { $0["runs"] = [["tool": ["driver": [:]]]] } == 1)
    #expect(
      broken { $0["runs"] = [["tool": ["driver": ["name": "t", "rules": [["id": "a"], ["id": "a"]]]]]] } == 1)
    #expect(broken(result { $0["message"] = ["id": "x"] }) == 1)
    #expect(broken(result { $0["ruleId"] = "a" }) == 1)
    #expect(broken(result { $0["level"] = "fatal" }) == 1)
    for uri in ["a b.swift", "1:2/c.swift", "%zz", "é.swift", "a\nb"] {
      #expect(
        broken(
          result {
            $0["locations"] = [["physicalLocation": ["artifactLocation": ["uri": uri]]]]
          }) == 1, "\(uri)")
    }
    for region in [["startLine": 0], ["startLine": 1, "startColumn": 0], ["startLine": -3]] {
      #expect(broken(result { $0["locations"] = [["physicalLocation": ["region": region]]] }) == 1)
    }
  }
}
