internal import CGraphviz
public import Foundation
internal import Synchronization

/// Graphviz's libgvc, called in-process: DOT text in, SVG, PNG or PDF bytes out.
///
/// Graphviz keeps global state and is not thread-safe, so every call into it, from any thread, goes
/// through one process-wide lock; concurrent renders simply take turns. Graphviz's own error and
/// warning messages are captured instead of being printed to standard error, and quoted by the
/// ``RenderingError`` thrown when a render fails. The `dot` program is never started.
public enum Graphviz {
  /// Lays out DOT text with Graphviz's `dot` engine and renders it.
  ///
  /// ```swift
  /// let svg = try Graphviz.render(dot: "digraph { a -> b }", format: .svg)
  /// ```
  /// - Parameters:
  ///   - dot: one graph in the DOT language.
  ///   - format: the output format.
  /// - Returns: the rendered file's bytes.
  /// - Throws: ``RenderingError`` quoting Graphviz when the text is not valid DOT or Graphviz cannot
  ///   lay it out or render it.
  public static func render(dot: String, format: RenderFormat) throws(RenderingError) -> Data {
    if dot.utf8.contains(0) {
      throw RenderingError("Graphviz could not read the DOT text: it contains a NUL character")
    }
    return try session.withLock { context throws(RenderingError) -> Data in
      let gvc = try GraphvizSession.prepare(&context)
      capturedMessages = ""
      defer { capturedMessages = "" }
      cgraphviz_reset_lexer()
      guard let graph = dot.withCString({ agmemread($0) }) else {
        throw RenderingError(
          "Graphviz could not read the DOT text: \(GraphvizSession.messages(or: "no graph found"))")
      }
      defer { agclose(graph) }
      guard gvLayout(gvc, graph, "dot") == 0 else {
        throw RenderingError(
          "Graphviz could not lay out the graph: \(GraphvizSession.messages(or: "gvLayout failed"))")
      }
      defer { gvFreeLayout(gvc, graph) }
      var bytes: UnsafeMutablePointer<CChar>?
      var length: UInt32 = 0
      let status = gvRenderData(gvc, graph, format.rawValue, &bytes, &length)
      defer { if let bytes { gvFreeRenderData(bytes) } }
      guard status == 0, let bytes, length > 0 else {
        throw RenderingError(
          "Graphviz could not render \(format.rawValue): "
            + GraphvizSession.messages(or: "no output (is Graphviz's cairo plugin installed?)"))
      }
      return Data(bytes: bytes, count: Int(length))
    }
  }

  /// The Graphviz context, created on first use and kept for the life of the process. Every libgvc
  /// and cgraph call happens while this lock is held.
  private static let session = Mutex<OpaquePointer?>(nil)
}

/// Graphviz's messages for the render in progress. Only touched with `Graphviz.session` locked: by
/// the render itself, and by `collectMessage`, which Graphviz calls synchronously from inside it.
nonisolated(unsafe) private var capturedMessages = ""

/// Graphviz's error callback (`agusererrf`): appends to `capturedMessages` instead of printing.
private let collectMessage: agusererrf = { message in
  if let message { capturedMessages += String(cString: message) }
  return 0
}

private enum GraphvizSession {
  /// Routes Graphviz's messages to `collectMessage` and returns the context, creating it once.
  static func prepare(_ context: inout OpaquePointer?) throws(RenderingError) -> OpaquePointer {
    // Report warnings and errors through the callback: below the threshold, cgraph would append them
    // to a temporary file that grows for the life of the process.
    _ = agseterr(AGWARN)
    _ = agseterrf(collectMessage)
    if let context { return context }
    // gvContext() loads the plugins listed in Graphviz's installed config (dot layout, core SVG
    // renderer, cairo for PNG and PDF).
    guard let created = gvContext() else {
      throw RenderingError("Graphviz could not create a context: \(messages(or: "gvContext failed"))")
    }
    context = created
    return created
  }

  /// The messages Graphviz gave during this render, one per line, or `fallback` when it said nothing.
  static func messages(or fallback: String) -> String {
    let lines = capturedMessages.split(whereSeparator: \.isNewline).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    let text = lines.filter { !$0.isEmpty }.joined(separator: "; ")
    return text.isEmpty ? fallback : text
  }
}
