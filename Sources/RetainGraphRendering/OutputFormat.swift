public import Foundation
public import RetainGraph

/// Every format a graph is written in: the one list that the command line's `--format`, its help
/// and `ObjectGraph.data(_:style:marking:)` share. ``RenderFormat`` is the part of it
/// Graphviz draws.
public enum OutputFormat: String, Sendable, Hashable, CaseIterable {
  /// The leak trace (`ObjectGraph.report()`), or the graph's summary when it has no
  /// cycle.
  case text
  /// Graphviz's DOT text (`ObjectGraph.dot(style:)`).
  case dot
  /// Scalable Vector Graphics, drawn by Graphviz.
  case svg
  /// A PNG bitmap, drawn by Graphviz.
  case png
  /// A one-page PDF document, drawn by Graphviz.
  case pdf
  /// The graph's JSON (`ObjectGraph.jsonData()`), which reads back.
  case json
  /// One self-contained page: the drawing, the cycles and their fixes, a search by type.
  case html
  /// A Mermaid flowchart (`ObjectGraph.mermaid(style:)`): the text GitHub draws in
  /// issues, pull requests and Markdown files.
  case mermaid
  /// Each fix as a compiler warning at the declaration to change (`ObjectGraph.diagnostics()`):
  /// `FILE:LINE:COLUMN: warning: make Interactor.output weak (retain cycle: …)`.
  case diagnostics
  /// The fixes as a SARIF 2.1.0 log for code-scanning services (`ObjectGraph.sarifData()`).
  case sarif

  /// Whether the bytes are binary (PNG, PDF) rather than text.
  public var isBinary: Bool { self == .png || self == .pdf }

  /// Whether it is a drawing of the graph, which `DrawingStyle.maxNodes` limits.
  public var isPicture: Bool { !isReport && self != .json }

  /// Whether it reports the cycles and their fixes rather than the graph (text, diagnostics, SARIF):
  /// the formats `retain-graph check` writes.
  public var isReport: Bool { self == .text || self == .diagnostics || self == .sarif }

  /// The format Graphviz draws it in (SVG, PNG, PDF); nil for the others.
  public var renderFormat: RenderFormat? { RenderFormat(rawValue: rawValue) }

  /// The usual file name extension, without the dot (`txt` for text, `mmd` for Mermaid).
  public var fileExtension: String {
    switch self {
    case .text: "txt"
    case .mermaid: "mmd"
    case .diagnostics: "log"
    default: rawValue
    }
  }
}

extension ObjectGraph {
  /// The graph written in `format`: the leak trace (or the summary) as text, DOT, a Graphviz
  /// drawing, JSON, the HTML page, a Mermaid flowchart, or the fixes as compiler warnings or SARIF.
  ///
  /// ```swift
  /// for format in OutputFormat.allCases {
  ///   try graph.data(format).write(to: folder.appendingPathComponent("graph.\(format.fileExtension)"))
  /// }
  /// ```
  /// - Parameters:
  ///   - format: the format.
  ///   - style: what a picture draws and how (see `DrawingStyle`).
  ///   - marks: nodes to mark on the HTML page.
  /// - Returns: the bytes; text ends with a line break.
  /// - Throws: ``RenderingError`` when Graphviz cannot lay out or draw the graph, or a mark names a
  ///   node the graph does not have.
  public func data(_ format: OutputFormat, style: DrawingStyle = .init(), marking marks: [HTMLMark] = [])
    throws(RenderingError) -> Data
  {
    try data(format, style: style, marking: marks, limits: ReportLimits())
  }

  /// The graph in `format`, its leak trace shortened to `limits` (the command line's `--max-hops`,
  /// `--max-cycles`).
  package func data(
    _ format: OutputFormat, style: DrawingStyle, marking marks: [HTMLMark], limits: ReportLimits
  )
    throws(RenderingError) -> Data
  {
    switch format {
    case .text:
      let report = report(limits: limits)
      return Data(((report.isEmpty ? summary() : report) + "\n").utf8)
    case .dot: return Data(dot(style: style).utf8)
    case .json: return jsonData()
    case .svg, .png, .pdf: return try render(format.renderFormat ?? .svg, style: style)
    case .html: return Data(try htmlPage(style: style, marking: marks, limits: limits).utf8)
    case .mermaid: return Data(mermaid(style: style).utf8)
    case .diagnostics: return Data(diagnostics().utf8)
    case .sarif: return sarifData()
    }
  }
}
