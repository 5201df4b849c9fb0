public import Foundation
public import RetainGraph
internal import RetainGraphSupport

extension ObjectGraph {
  /// Draws the graph with Graphviz, in-process.
  ///
  /// ```swift
  /// let svg = try ObjectGraph(reflecting: viewController).render(.svg)
  /// ```
  /// - Parameters:
  ///   - format: SVG, PNG or PDF.
  ///   - style: what to draw and how (see `DrawingStyle`).
  /// - Returns: the rendered file's bytes.
  /// - Throws: ``RenderingError`` quoting Graphviz when it cannot lay out or render the graph.
  public func render(_ format: RenderFormat, style: DrawingStyle = .init()) throws(RenderingError) -> Data {
    try Graphviz.render(dot: dot(style: style), format: format)
  }

  /// Draws the graph with Graphviz and writes it to a file atomically: the file appears, complete,
  /// only when everything succeeded (it is written to a temporary file in the same directory, then
  /// renamed).
  /// - Parameters:
  ///   - url: the file to write; an existing file is replaced.
  ///   - format: SVG, PNG or PDF.
  ///   - style: what to draw and how.
  /// - Throws: ``RenderingError`` when Graphviz fails or the file cannot be written (the message
  ///   names the file and the reason).
  public func write(to url: URL, format: RenderFormat, style: DrawingStyle = .init()) throws(RenderingError) {
    let data = try render(format, style: style)
    do {
      try AtomicFile.write(data, to: url)
    } catch {
      throw RenderingError(.fileNotWritten, path: error.path, error.description)
    }
  }
}
