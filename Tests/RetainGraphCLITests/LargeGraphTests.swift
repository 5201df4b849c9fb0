import Foundation
import RetainGraph
import RetainGraphTestSupport
import Testing

/// The command line's defaults on graphs too large to print or draw whole (issue 20, item 9): a
/// trace keeps its first and last references and a count, a picture at most 200 nodes with a note.
@Suite struct LargeGraphTests {
  /// A version 1 snapshot of `count` rings of `length` `App.Node` objects each (`next` references),
  /// all held by one `App.Root` (`rings[i]`).
  static func rings(count: Int, length: Int) -> Data {
    var nodes = [#"{"id": 0, "kind": "object", "type": "App.Root"}"#]
    var edges: [String] = []
    for ring in 0..<count {
      let first = 1 + ring * length
      edges.append(#"{"from": 0, "to": \#(first), "label": "rings[\#(ring)]", "ownership": "strong"}"#)
      for index in 0..<length {
        let id = first + index
        let next = first + (index + 1) % length
        nodes.append(#"{"id": \#(id), "kind": "object", "type": "App.Node"}"#)
        edges.append(#"{"from": \#(id), "to": \#(next), "label": "next", "ownership": "strong"}"#)
      }
    }
    let text =
      #"{"format": "retain-graph", "version": 1, "root": 0, "truncated": false, "nodes": ["#
      + nodes.joined(separator: ",\n") + "], \"edges\": [" + edges.joined(separator: ",\n") + "]}"
    return Data(text.utf8)
  }

  static func write(_ data: Data, named name: String, in directory: URL) throws -> String {
    let file = directory.appendingPathComponent(name)
    try data.write(to: file)
    return file.path
  }

  @Test func checkPrintsALongLoopAsItsEndsAndACount() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let length = 20_000
    let snapshot = try Self.write(Self.rings(count: 1, length: length), named: "ring.json", in: directory)
    let check = try CLITests.run("check", snapshot)
    #expect(check.status == 1)
    #expect(check.stderr.isEmpty)
    assertGolden(check.text, named: "check-ring-20000")

    // The loop whole: the root, its reference, and two lines per reference of the loop, independently
    // of the report: root + `rings[0]` + 20,000 hops, each a reference line and an object line.
    let whole = try CLITests.run("check", snapshot, "--max-hops", "all")
    #expect(whole.status == 1)
    let lines = whole.text.split(separator: "\n", omittingEmptySubsequences: false)
    let trace = lines.drop { $0 != "Root" }.prefix { !$0.hasPrefix("fix:") }
    #expect(trace.count == 1 + 2 * (1 + length))
    #expect(trace.filter { $0 == "  ↓ next" || $0 == "  ↓ next   ← break this" }.count == length)
    #expect(whole.text.count > 20 * check.text.count)

    // The same text from `render --format text`, and a smaller limit.
    #expect(try CLITests.run("render", snapshot, "--format", "text").stdout == check.stdout)
    let short = try CLITests.run("check", snapshot, "--max-hops", "4")
    assertGolden(short.text, named: "check-ring-20000-max-hops-4")
    let refused = try CLITests.run("check", snapshot, "--max-hops", "0")
    #expect(refused.status == 2)
    #expect(refused.stderr.hasPrefix("Error: --max-hops must be at least 1 or 'all', got 0\n"))
  }

  /// The command reads a snapshot through a window, never whole; what it cannot read is said as
  /// before: a missing file, a directory, a text that is not a snapshot.
  @Test func checkReadsFilesInAWindowAndSaysWhatItCannotRead() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    // 60,000 objects: a 5 MB text, several windows.
    let data = Self.rings(count: 3, length: 20_000)
    let snapshot = try Self.write(data, named: "rings.json", in: directory)
    let check = try CLITests.run("check", snapshot, "--max-cycles", "all", "--max-hops", "all")
    #expect(check.status == 1)
    #expect(check.text == (try ObjectGraph(jsonData: data)).report() + "\n")

    let missing = try CLITests.run("check", directory.appendingPathComponent("none.json").path)
    #expect(missing.status == 2)
    #expect(missing.stderr(replacing: directory) == "error: $TMP/none.json: no such file\n")
    let folder = try CLITests.run("check", directory.path)
    #expect(folder.status == 2)
    #expect(folder.stderr(replacing: directory) == "error: $TMP: cannot be read\n")
    let broken = try Self.write(data.prefix(data.count - 2), named: "broken.json", in: directory)
    let invalid = try CLITests.run("check", broken)
    #expect(invalid.status == 2)
    #expect(
      invalid.stderr(replacing: directory)
        == "error: $TMP/broken.json: invalid graph: not JSON: Unexpected end of file during JSON parse.\n")
  }

  @Test func checkCountsTheCyclesItLeavesOut() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let snapshot = try Self.write(Self.rings(count: 23, length: 2), named: "rings.json", in: directory)
    let check = try CLITests.run("check", snapshot)
    #expect(check.status == 1)
    assertGolden(check.text, named: "check-23-rings")
    let graph = try ObjectGraph(jsonData: Data(contentsOf: URL(fileURLWithPath: snapshot)))
    #expect(graph.cycles.count == 23)
    let all = try CLITests.run("check", snapshot, "--max-cycles", "all")
    #expect(all.text == graph.report() + "\n", "'all' is the library's whole report")
    #expect(try CLITests.run("check", snapshot, "--max-cycles", "23").stdout == all.stdout)
  }

  @Test func picturesDrawAtMost200NodesAndSaySo() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let snapshot = try Self.write(Self.rings(count: 1, length: 2_000), named: "ring.json", in: directory)
    let dot = try CLITests.run("render", snapshot, "--format", "dot")
    #expect(dot.status == 0)
    assertGolden(dot.stderr, named: "render-ring-2000-note")
    let drawn = dot.text.split(separator: "\n").filter { $0.contains("[label=") && $0.contains("tooltip=") }
    #expect(drawn.count == 200)
    #expect(dot.text.contains("1801 of 2001 nodes not drawn"))
    #expect(dot.text.contains("\"+1 more\""))

    // SVG goes through Graphviz with the same cap (a 2,000-node ring did not finish in minutes).
    let svg = try CLITests.run(
      "render", snapshot, "--format", "svg", "--output", directory.appendingPathComponent("r.svg").path)
    #expect(svg.status == 0)
    #expect(svg.stderr == dot.stderr)
    let svgText = try String(contentsOf: directory.appendingPathComponent("r.svg"), encoding: .utf8)
    #expect(svgText.components(separatedBy: "class=\"node\"").count - 1 == 201, "200 nodes and one '+N more'")

    let cycles = try CLITests.run("render", snapshot, "--format", "dot", "--cycles-only", "--max-nodes", "50")
    assertGolden(cycles.stderr, named: "render-ring-2000-cycles-only-note")
    let all = try CLITests.run("render", snapshot, "--format", "dot", "--max-nodes", "all")
    #expect(all.stderr.isEmpty, "nothing left out, no note")
    #expect(all.text.split(separator: "\n").filter { $0.contains("tooltip=") }.count == 2_001)
    let small = try CLITests.run("sample", "viper-module", "--format", "dot")
    #expect(small.stderr.isEmpty, "a graph within the cap gets no note")
  }
}
