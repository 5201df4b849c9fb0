public import Foundation
public import RetainGraph
internal import RetainGraphSupport

extension ObjectGraph {
  /// One self-contained HTML page to explore the graph in a browser, with nothing fetched from the
  /// network (its styles and script are inline): the SVG drawing (made by Graphviz, in-process), the
  /// report's retain cycles and fix plans, the path from the root to the node you click, a search
  /// by type name that highlights the matching nodes, and the marked nodes (a growing holder).
  ///
  /// ```swift
  /// let page = try ObjectGraph(reflecting: viewController).htmlPage()
  /// ```
  /// Every name and label is HTML-escaped; the graph's data is embedded as JSON that cannot end its
  /// `<script>` element early.
  /// - Parameters:
  ///   - style: what to draw and how (see `DrawingStyle`).
  ///   - marks: nodes to mark, each with why.
  /// - Returns: the page's text.
  /// - Throws: ``RenderingError`` when Graphviz cannot lay out or draw the graph, or a mark names a
  ///   node the graph does not have.
  public func htmlPage(style: DrawingStyle = .init(), marking marks: [HTMLMark] = []) throws(RenderingError)
    -> String
  {
    try htmlPage(style: style, marking: marks, limits: ReportLimits())
  }

  /// The page, with its leak trace shortened to `limits` (the command line's `--max-hops`,
  /// `--max-cycles`).
  package func htmlPage(style: DrawingStyle, marking marks: [HTMLMark], limits: ReportLimits)
    throws(RenderingError) -> String
  {
    let page = try HTMLPage(graph: self, style: style, marks: marks, limits: limits)
    let svg = try render(.svg, style: style)
    return page.text(svg: String(decoding: svg, as: UTF8.self))
  }

  /// Writes ``htmlPage(style:marking:)`` to a file atomically: the file appears, complete, only when
  /// everything succeeded.
  /// - Parameters:
  ///   - url: the file to write; an existing file is replaced.
  ///   - style: what to draw and how.
  ///   - marks: nodes to mark, each with why.
  /// - Throws: ``RenderingError`` when the page cannot be made or the file cannot be written.
  public func writeHTMLPage(to url: URL, style: DrawingStyle = .init(), marking marks: [HTMLMark] = [])
    throws(RenderingError)
  {
    let page = Data(try htmlPage(style: style, marking: marks).utf8)
    do {
      try AtomicFile.write(page, to: url)
    } catch {
      throw RenderingError(.fileNotWritten, path: error.path, error.description)
    }
  }
}
