import Foundation
import RetainGraph
import RetainGraphRendering
import Samples
import Testing

/// One list of formats: each writes what its own entry point writes, and Graphviz's formats are
/// the pictures it draws.
@Suite struct OutputFormatTests {
  @Test func eachFormatWritesWhatItsOwnEntryPointWrites() throws {
    let instance = try #require(Sample.named("viper-module")).make()
    defer { instance.breakCycles() }
    let graph = ObjectGraph(reflecting: instance.root)
    let style = DrawingStyle(cyclesOnly: true)
    #expect(try graph.data(.text) == Data((graph.report() + "\n").utf8))
    #expect(try graph.data(.dot, style: style) == Data(graph.dot(style: style).utf8))
    #expect(try graph.data(.json) == graph.jsonData())
    #expect(try graph.data(.svg, style: style) == graph.render(.svg, style: style))
    #expect(try graph.data(.html) == Data(graph.htmlPage().utf8))
    #expect(try graph.data(.mermaid, style: style) == Data(graph.mermaid(style: style).utf8))
    #expect(try graph.data(.diagnostics) == Data(graph.diagnostics().utf8))
    #expect(try graph.data(.sarif) == graph.sarifData())
    let pdf = try graph.data(.pdf)
    #expect(String(decoding: pdf.prefix(5), as: UTF8.self) == "%PDF-")
    // A graph with no cycle writes its summary as text.
    let fixed = ObjectGraph(reflecting: try #require(Sample.named("viper-module-fixed")).make().root)
    #expect(fixed.report().isEmpty)
    #expect(try fixed.data(.text) == Data((fixed.summary() + "\n").utf8))
  }

  @Test func theListSaysWhatEachFormatIs() {
    #expect(
      OutputFormat.allCases.map(\.rawValue) == [
        "text", "dot", "svg", "png", "pdf", "json", "html", "mermaid", "diagnostics", "sarif",
      ])
    #expect(OutputFormat.allCases.filter(\.isBinary) == [.png, .pdf])
    #expect(OutputFormat.allCases.filter { !$0.isPicture } == [.text, .json, .diagnostics, .sarif])
    #expect(OutputFormat.allCases.filter(\.isReport) == [.text, .diagnostics, .sarif])
    #expect(OutputFormat.allCases.compactMap(\.renderFormat) == RenderFormat.allCases)
    #expect(
      OutputFormat.allCases.map(\.fileExtension) == [
        "txt", "dot", "svg", "png", "pdf", "json", "html", "mmd", "log", "sarif",
      ])
  }
}
